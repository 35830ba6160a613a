"""Blank lines and rows of empty cells in a CSV: skipped, as CSV readers do (a trailing newline
too many is no error, and a million of them are not a million problems)."""

from __future__ import annotations

import re

import polars as pl

from app.ingest.point_table import ROW

_BLANK_LINE = re.compile(rb"\n[ \t\r,]*(?:\n|$)")


def without_blank_lines(data: bytes) -> tuple[bytes, list[int] | None]:
    """The data without its blank lines (and lines of only commas), and the line of each row
    kept (the header is line 1), or the data itself and None when it has none to drop.

    Before polars reads it: a frame holds a blank line as a row of empty text cells, ~100
    bytes each (a million blank lines cost 220 MB). A quoted cell may span lines, so a file
    with a quote is left whole (its blank rows are dropped from the frame instead)."""
    if b'"' in data or not _BLANK_LINE.search(data):
        return data, None
    header, _, body = data.partition(b"\n")
    kept: list[bytes] = [header]
    lines: list[int] = []
    for number, line in enumerate(body.split(b"\n"), start=2):
        if line.strip(b" \t\r,"):
            kept.append(line)
            lines.append(number)
    return b"\n".join(kept) + b"\n", lines


def without_blank_rows(frame: pl.DataFrame, first_row: int = 2) -> pl.DataFrame:
    """The frame with each row's line in the file (ROW; the header is row 1), blank lines and
    rows of empty cells dropped: they hold nothing, and CSV readers skip them (a trailing
    newline too many is no error, and a million of them are not a million problems)."""
    data = [c for c in frame.columns if c != ROW]
    framed = frame if ROW in frame.columns else frame.with_row_index(ROW, offset=first_row)
    if not data or any(not _text(frame.schema[c]) and not frame[c].null_count() for c in data):
        return framed  # a typed column full in every row: no row is blank (counts are kept)
    blank = pl.all_horizontal(_empty(c, framed.schema[c]) for c in data)
    if not framed.select(blank.any()).item():
        return framed
    return framed.filter(~blank)


def _empty(column: str, dtype: pl.DataType) -> pl.Expr:
    """A cell that holds nothing: null, or empty text. A typed cell (a number, a boolean) is
    never empty text, so only text columns are cast and compared (casting a million floats to
    text cost a second of a million-row upload)."""
    if _text(dtype):
        return pl.col(column).is_null() | (pl.col(column).cast(pl.String) == "")
    return pl.col(column).is_null()


def _text(dtype: pl.DataType) -> bool:
    return dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum)
