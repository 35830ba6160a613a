"""Staged uploads: the files of one upload, kept by a random token until saved or expired."""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.ingest import UploadFile
from app.store.models import StagedUpload


def purge_expired(session: Session, now_s: int) -> int:
    """Delete every staged upload past its expiry; the number deleted."""
    result = session.execute(delete(StagedUpload).where(StagedUpload.expires_at_s <= now_s))
    return int(getattr(result, "rowcount", 0) or 0)


def staged_bytes(session: Session) -> int:
    """Bytes held by all staged uploads (expired ones included until purged)."""
    return int(session.scalar(select(func.coalesce(func.sum(StagedUpload.total_bytes), 0))) or 0)


def add(
    session: Session,
    token: str,
    files: list[UploadFile],
    now_s: int,
    ttl_s: int,
    keep_apart: bool = False,
) -> None:
    session.add(
        StagedUpload(
            token=token,
            created_at_s=now_s,
            expires_at_s=now_s + ttl_s,
            total_bytes=sum(len(f.data) for f in files),
            files=[[f.name, len(f.data)] for f in files],
            data=b"".join(f.data for f in files),
            keep_apart=keep_apart,
        )
    )
    session.flush()


def get(session: Session, token: str, now_s: int) -> tuple[list[UploadFile], int, bool] | None:
    """The staged files, their expiry and whether they are kept apart, or None when unknown or
    expired."""
    row = session.get(StagedUpload, token)
    if row is None or row.expires_at_s <= now_s:
        return None
    files: list[UploadFile] = []
    offset = 0
    for name, size in row.files:
        files.append(UploadFile(str(name), row.data[offset : offset + int(size)]))
        offset += int(size)
    return files, row.expires_at_s, bool(row.keep_apart)


def remove(session: Session, token: str) -> bool:
    result = session.execute(delete(StagedUpload).where(StagedUpload.token == token))
    return bool(getattr(result, "rowcount", 0))
