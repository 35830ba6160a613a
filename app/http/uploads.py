"""Uploads as they stream in: a multipart body parsed with each file held in memory, then the
files read under the size limit, for the API and the upload page.

Starlette's own form parser spools every file part to a temporary file, one trip to a thread
per 64 KB chunk of the body, for the file to be read back whole right after (every importer
reads a file's bytes). Routes of `UploadRoute` parse the body with `_HeldParts` instead: the
same python-multipart parser, fed each chunk as it arrives, each part written into its own
in-memory buffer as the chunk comes (one copy of the file in all, no join at the end). Its
limits and errors are Starlette's, word for word (a part without a name, too many files or
fields, a text field over its size, malformed data: 400), and a body cut off inside a part is
a 400 saying so, where Starlette drops the part; the body cap stays the BodyLimitMiddleware's,
enforced as the body arrives.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import Any

import python_multipart
from fastapi import Request, Response
from fastapi.routing import APIRoute
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartState, parse_options_header
from starlette.datastructures import FormData, Headers, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException

from app.http.errors import AppError
from app.ingest import UploadFile as RawFile
from app.ingest.limits import SOURCE_FILE_LIMIT

CUT_OFF = (
    "The upload ended inside a part, before the body's closing boundary: it was cut off "
    "on the way. Nothing was stored; send it again."
)


class HeldUpload(UploadFile):
    """A file part of the body held in memory: read whole without a copy or a thread."""

    def __init__(self, data: bytes, filename: str, headers: Headers) -> None:
        # A BytesIO shares the bytes it starts from, and reading them whole returns them.
        super().__init__(io.BytesIO(data), size=len(data), filename=filename, headers=headers)

    @property
    def _in_memory(self) -> bool:
        return True


class _Part:
    def __init__(self) -> None:
        self.disposition = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.name = ""
        self.filename: str | None = None
        # Written as the body arrives: each chunk is copied in and let go, so its memory serves
        # the next one, and the buffer grows in place (large ones by remapping, not copying).
        self.data = io.BytesIO()
        self.size = 0


class _HeldParts:
    """The parts of a multipart body: text fields as text, files as bytes."""

    def __init__(
        self, content_type: str, max_files: float, max_fields: float, max_part_size: int
    ) -> None:
        _, params = parse_options_header(content_type)
        charset = params.get(b"charset", b"utf-8")
        try:
            self.charset = codecs.lookup(charset.decode("latin-1")).name
        except LookupError:
            self.charset = "latin-1"
        boundary = params.get(b"boundary")
        if not boundary:
            raise MultiPartException("Missing boundary in multipart.")
        self.boundary = boundary
        self.max_files, self.max_fields, self.max_part_size = max_files, max_fields, max_part_size
        self.files = 0
        self.fields = 0
        self.part = _Part()
        self.header_name = b""
        self.header_value = b""
        self.done: list[_Part] = []

    def on_part_begin(self) -> None:
        self.part = _Part()

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        part = self.part
        part.size += end - start
        if part.filename is None and part.size > self.max_part_size:
            raise MultiPartException(
                f"Part exceeded maximum size of {int(self.max_part_size / 1024)}KB."
            )
        part.data.write(memoryview(data)[start:end])

    def on_part_end(self) -> None:
        self.done.append(self.part)

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def on_header_end(self) -> None:
        name = self.header_name.lower()
        if name == b"content-disposition":
            self.part.disposition = self.header_value
        self.part.headers.append((name, self.header_value))
        self.header_name = b""
        self.header_value = b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self.part.disposition)
        if b"name" not in options:
            raise MultiPartException(
                'The Content-Disposition header field "name" must be provided.'
            )
        self.part.name = self._text(options[b"name"])
        if b"filename" in options:
            self.files += 1
            if self.files > self.max_files:
                raise MultiPartException(
                    f"Too many files. Maximum number of files is {self.max_files}."
                )
            self.part.filename = self._text(options[b"filename"])
        else:
            self.fields += 1
            if self.fields > self.max_fields:
                raise MultiPartException(
                    f"Too many fields. Maximum number of fields is {self.max_fields}."
                )

    def _text(self, value: bytes) -> str:
        try:
            return value.decode(self.charset)
        except UnicodeDecodeError:
            return value.decode("latin-1")

    async def parse(self, stream: AsyncGenerator[bytes, None]) -> FormData:
        parser = python_multipart.MultipartParser(
            self.boundary,
            {
                "on_part_begin": self.on_part_begin,
                "on_part_data": self.on_part_data,
                "on_part_end": self.on_part_end,
                "on_header_field": self.on_header_field,
                "on_header_value": self.on_header_value,
                "on_header_end": self.on_header_end,
                "on_headers_finished": self.on_headers_finished,
            },
        )
        try:
            async for chunk in stream:
                parser.write(chunk)
            parser.finalize()
        except FormParserError as exc:
            raise MultiPartException("Invalid multipart data.") from exc
        if parser.state not in (MultipartState.START, MultipartState.END):
            # Starlette drops the unfinished part unnamed ("files: Field required").
            raise MultiPartException(CUT_OFF)
        items: list[tuple[str, str | UploadFile]] = []
        for part in self.done:
            # The buffer's own bytes, without a copy (BytesIO.getvalue of a buffer not shared).
            data = part.data.getvalue()
            part.data = io.BytesIO()
            if part.filename is None:
                items.append((part.name, self._text(data)))
                continue
            items.append((part.name, HeldUpload(data, part.filename, Headers(raw=part.headers))))
        return FormData(items)


class HeldUploadRequest(Request):
    """A request whose multipart form holds its files in memory (see the module's docstring)."""

    async def _get_form(
        self,
        *,
        max_files: int | float = 1000,
        max_fields: int | float = 1000,
        max_part_size: int = 1024 * 1024,
    ) -> FormData:
        content_type = self.headers.get("Content-Type", "")
        if self._form is not None or not content_type.lower().startswith("multipart/form-data"):
            return await super()._get_form(
                max_files=max_files, max_fields=max_fields, max_part_size=max_part_size
            )
        try:
            parts = _HeldParts(content_type, max_files, max_fields, max_part_size)
            self._form = await parts.parse(self.stream())
        except MultiPartException as exc:
            raise HTTPException(status_code=400, detail=exc.message) from exc
        return self._form


class UploadRoute(APIRoute):
    """A route whose form (read by FastAPI for `File` parameters, or by a dependency) is
    parsed by `HeldUploadRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            return await handler(HeldUploadRequest(request.scope, request.receive))

        return handle


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
