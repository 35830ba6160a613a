"""Why a file no importer recognised is not a result file: what it nearly is, and what kept it
out (JSON behind a comment, a canonical CSV with another delimiter, a first line no header of
a known format could be). Only the first 64 KiB are looked at, decoded leniently: telling why
must not cost a parse."""

from __future__ import annotations

from app.ingest.canonical import is_request_header, looks_like_canonical
from app.ingest.source import head_of
from app.ingest.text import SNIFF_BYTES

LONG_LINE = 10_000  # no known format's header line is near this long
_DELIMITERS = {";": "semicolons", "\t": "tabs", "|": "vertical bars"}


def near_miss(data: bytes) -> str | None:
    """The reason, or None when the file is nothing near a known format."""
    head = head_of(data, SNIFF_BYTES, lstrip=False)
    if b"\x00" in head:
        return None
    text = head.decode("utf-8", "replace")
    if text.lstrip().startswith(("//", "/*")) and _after_comments(text)[:1] in ("{", "["):
        return (
            "it is JSON behind a comment (// or /* */), and JSON has no comments: delete the "
            "comment lines"
        )
    end = text.find("\n")
    first = text if end < 0 else text[:end]
    delimited = any(sep in first for sep in (",", *_DELIMITERS))
    # A long delimited first line: a CSV whose header holds a field of a novel's length.
    if (
        delimited
        and not first.lstrip().startswith(("{", "["))
        and end < 0
        and len(data) > SNIFF_BYTES
    ):
        return (
            f"its first line runs over {SNIFF_BYTES:,} bytes: "
            "no header of a known format is that long"
        )
    if delimited and len(first) > LONG_LINE and not first.lstrip().startswith(("{", "[")):
        return (
            f"its first line is {len(first):,} characters long: no header of a known format is "
            "that long"
        )
    for sep, words in _DELIMITERS.items():
        cells = [c.strip().strip('"') for c in first.split(sep)]
        if len(cells) > 1 and (is_request_header(cells) or looks_like_canonical(cells)):
            return f"its header reads as a canonical CSV delimited by {words}: save it with commas"
    return None


def _after_comments(text: str) -> str:
    """The text after leading // line comments and /* */ block comments."""
    rest = text.lstrip()
    while rest.startswith(("//", "/*")):
        if rest.startswith("//"):
            end = rest.find("\n")
            rest = "" if end < 0 else rest[end + 1 :]
        else:
            end = rest.find("*/")
            rest = "" if end < 0 else rest[end + 2 :]
        rest = rest.lstrip()
    return rest
