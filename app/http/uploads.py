"""Uploaded files read into memory under the size limit, for the API and the upload page."""

from __future__ import annotations

from fastapi import UploadFile

from app.http.errors import AppError
from app.ingest import UploadFile as RawFile
from app.ingest.limits import SOURCE_FILE_LIMIT


async def read_uploads(files: list[UploadFile], limit_bytes: int) -> list[RawFile]:
    raw: list[RawFile] = []
    total = 0
    for f in files:
        name = f.filename or "upload"
        if len(name) > SOURCE_FILE_LIMIT:
            raise AppError(
                422,
                "File name too long",
                f"{name[:60]}…: a file name of {len(name):,} characters (at most "
                f"{SOURCE_FILE_LIMIT:,}); nothing was stored. Rename the file.",
            )
        data = await f.read()
        total += len(data)
        if total > limit_bytes:
            raise AppError(
                413,
                "Upload too large",
                f"{f.filename}: the upload exceeds the limit of {limit_bytes / 1048576:g} MB "
                "(PARETOSCOPE_MAX_UPLOAD_MB)",
            )
        raw.append(RawFile(name, data))
    return raw
