"""Bytes of an uploaded file as text: UTF-8 or a clear refusal."""

from __future__ import annotations

import codecs
import csv
import io

from app.ingest.errors import IngestError
from app.ingest.limits import MAX_CSV_COLUMNS

# How far into a file every sniffer looks for its format's marks (and for binary content).
SNIFF_BYTES = 65536


def decode_text(file: str, data: bytes) -> str:
    """UTF-8 (a BOM is allowed); anything else is refused rather than guessed."""
    if not data.strip():
        raise IngestError.one(file, "the file is empty")
    if b"\x00" in data[:SNIFF_BYTES]:
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


TEXT_CHUNK = 1024 * 1024


def check_text(file: str, data: bytes) -> None:
    """The refusals of decode_text, without keeping a decoded copy of a large file."""
    if len(data) <= TEXT_CHUNK:
        decode_text(file, data)
        return
    if data.isspace():  # not data.strip(): that copies a large file
        raise IngestError.one(file, "the file is empty")
    if b"\x00" in data[:SNIFF_BYTES]:
        raise IngestError.one(file, "binary content: not a text file")
    if data.isascii():
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    for start in range(0, len(data), TEXT_CHUNK):
        try:
            decoder.decode(data[start : start + TEXT_CHUNK], final=start + TEXT_CHUNK >= len(data))
        except UnicodeDecodeError:
            decode_text(file, data)  # raises the message naming the byte and its line
            raise


def first_text_line(file: str, data: bytes) -> str:
    """The first line, with the refusals decode_text makes for the head of the file."""
    if b"\x00" in data[:SNIFF_BYTES]:
        raise IngestError.one(file, "binary content: not a text file")
    end = data.find(b"\n")
    first = data[: end if end >= 0 else len(data)]
    return decode_text(file, first) if first.strip() else ""


def looks_like_csv(data: bytes) -> bool:
    """True when the first line reads as a CSV header (commas, no colon, not a comment): such
    a file is no YAML mapping, so sniffers need not search all of it for YAML keys."""
    end = data.find(b"\n", 0, SNIFF_BYTES)
    first = data[: end if end >= 0 else SNIFF_BYTES].strip()
    return b"," in first and b":" not in first and not first.startswith(b"#")


def check_csv_width(file: str, data: bytes) -> None:
    """Refuse a CSV whose header names more than MAX_CSV_COLUMNS columns, before any row is
    parsed. Commas are counted in place (no copy); only a line with that many commas is read
    as CSV, to count quoted names containing commas once."""
    end = data.find(b"\n")
    stop = end if end >= 0 else len(data)
    if data.count(b",", 0, stop) < MAX_CSV_COLUMNS:
        return
    first = data[:stop].decode("utf-8-sig", "replace")
    try:
        columns = len(next(csv.reader(io.StringIO(first)), []))
    except csv.Error:
        columns = first.count(",") + 1
    if columns > MAX_CSV_COLUMNS:
        raise IngestError.one(
            file,
            f"the header names {columns:,} columns; at most {MAX_CSV_COLUMNS:,} are read",
            row=1,
        )
