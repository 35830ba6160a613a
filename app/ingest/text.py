"""Bytes of an uploaded file as text: UTF-8 or a clear refusal."""

from __future__ import annotations

from app.ingest.errors import IngestError


def decode_text(file: str, data: bytes) -> str:
    """UTF-8 (a BOM is allowed); anything else is refused rather than guessed."""
    if not data.strip():
        raise IngestError.one(file, "the file is empty")
    if b"\x00" in data[:65536]:
        raise IngestError.one(file, "binary content: not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise IngestError.one(
            file,
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} cannot be decoded",
            row=line,
        ) from exc
