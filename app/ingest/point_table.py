"""The points of a canonical file kept as columns, one table for the whole file.

A 100,000-point file becomes one frame, its rows sorted stably by sweep (in the order the
sweeps first appear) so each sweep is a contiguous slice; `__row` keeps each point's row in
the file for messages. A `ParsedSweep` backed by a slice builds its `ParsedPoint` list only
when something asks for `points`; until then the store path (limits, warnings, the content
hash, the point inserts) reads the columns.
"""

from __future__ import annotations

import bisect
import json
from typing import Any

import polars as pl

from app.domain.bounds import MAX_NUMBER, MIN_POSITIVE
from app.domain.columns import POINT_COLUMN_NAMES
from app.ingest import content_hash
from app.ingest.json_text import (
    json_string_texts,
)
from app.ingest.limits import INT32_MAX, INT_FIELDS, POINT_TEXT_LIMITS
from app.ingest.parsed import ParsedPoint

ROW = "__row"  # the point's row in its file (the header is row 1)
SWEEP = "__sweep"  # which slice (sweep) of the table the point is in
POSITION = "__position"  # the point's place in its sweep
_SORTED_POINT_COLUMNS = tuple(sorted(POINT_COLUMN_NAMES))


class PointTable:
    """One file's points: `frame` holds ROW, SWEEP, POSITION, the point columns the file has
    and its extra (unknown) columns, sweep by sweep."""

    def __init__(
        self, frame: pl.DataFrame, point_columns: list[str], extra_columns: list[str]
    ) -> None:
        self.frame = frame
        self.point_columns = point_columns
        self.extra_columns = extra_columns
        self._arrays: content_hash.PointArrays | None = None
        self._flagged: dict[int, list[int]] = {}
        self._lengths: list[tuple[Any, Any, Any]] | None = None

    def slice(self, index: int, offset: int, length: int) -> PointRows:
        return PointRows(self, index, offset, length)

    def digest(self, head: bytes, offset: int, length: int) -> str:
        """The content hash of the points at [offset, offset + length) under `head`
        (ParsedSweep.content_hash): the whole table is read into the hash's arrays once."""
        if self._arrays is None:
            self._arrays = content_hash.from_frame(self.frame)
        return self._arrays.digest(head, offset, offset + length)

    def flagged_rows(self, max_extra_bytes: int) -> list[int]:
        """Table positions of the points that may break a storage limit (a superset: each one
        is checked exactly, point by point, by `limits`)."""
        found = self._flagged.get(max_extra_bytes)
        if found is None:
            flags = limit_flags(self.frame, self.point_columns, self.extra_columns, max_extra_bytes)
            found = []
            if flags is not None:
                found = self.frame.select(flags).to_series().arg_true().to_list()
            self._flagged[max_extra_bytes] = found
        return found

    def lengths(self) -> list[tuple[Any, Any, Any]]:
        """(input_len, output_len, num_requests) of every point; empty when the file gives
        neither length."""
        if self._lengths is None:
            names = ("input_len", "output_len", "num_requests")
            if {"input_len", "output_len"}.isdisjoint(self.point_columns):
                self._lengths = []
            else:
                self._lengths = self.frame.select(
                    pl.col(c) if c in self.point_columns else pl.lit(None).alias(c) for c in names
                ).rows()
        return self._lengths

    def extra_json(self, frame: pl.DataFrame) -> pl.Expr:
        """Each point's extra fields as `json.dumps(extra)` writes them ("{}" when none)."""
        if not self.extra_columns:
            return pl.lit("{}")
        return _extra_object(frame, self.extra_columns, ": ", ", ")


class PointRows:
    """One sweep's points: a slice of its file's table."""

    def __init__(self, table: PointTable, index: int, offset: int, length: int) -> None:
        self.table = table
        self.index = index
        self.offset = offset
        self.length = length

    def __len__(self) -> int:
        return self.length

    @property
    def frame(self) -> pl.DataFrame:
        return self.table.frame.slice(self.offset, self.length)

    def materialise(self) -> list[ParsedPoint]:
        table = self.table
        values = self.frame.select(table.point_columns).iter_rows()
        rows = self.frame[ROW].to_list()
        extras = self.frame.select(table.extra_columns).iter_rows() if table.extra_columns else None
        points = []
        for row, cells in zip(rows, values, strict=True):
            point = ParsedPoint(
                {k: v for k, v in zip(table.point_columns, cells, strict=True) if v is not None},
                row,
            )
            if extras is not None:
                extra = zip(table.extra_columns, next(extras), strict=True)
                point.extra = {k: v for k, v in extra if v is not None}
            points.append(point)
        return points

    def digest(self, head: bytes) -> str:
        return self.table.digest(head, self.offset, self.length)

    def may_break_limits(self, max_extra_bytes: int) -> bool:
        flagged = self.table.flagged_rows(max_extra_bytes)
        at = bisect.bisect_left(flagged, self.offset)
        return at < len(flagged) and flagged[at] < self.offset + self.length

    def lengths(self) -> list[tuple[Any, Any, Any]]:
        every = self.table.lengths()
        return every[self.offset : self.offset + self.length] if every else []


def limit_flags(
    frame: pl.DataFrame, point_columns: list[str], extra_columns: list[str], max_extra: int
) -> pl.Expr | None:
    """Points whose text, whole numbers or extra fields may be refused by `limits`."""
    flags: list[pl.Expr] = []
    for name, limit in POINT_TEXT_LIMITS.items():
        if name in point_columns and frame.schema[name] == pl.String:
            text = pl.col(name)
            flags.append((text.str.len_chars() > limit) | text.str.contains("\x00", literal=True))
        elif name in point_columns:
            flags.append(pl.col(name).is_not_null())  # not text: let the exact check say
    for name in INT_FIELDS:
        if name in point_columns:
            flags.append(pl.col(name).cast(pl.Float64).abs() > INT32_MAX)
    for name in point_columns:
        if frame.schema[name].is_numeric():  # sizes beyond app.domain.bounds
            size = pl.col(name).cast(pl.Float64).abs()
            flags.append(
                size.is_finite() & ((size > MAX_NUMBER) | ((size > 0) & (size < MIN_POSITIVE)))
            )
    if extra_columns:
        # An upper bound on the compact JSON: a character is at most 12 escaped ones.
        size = pl.sum_horizontal(
            pl.when(pl.col(c).is_not_null())
            .then(pl.col(c).str.len_chars() * 12 + len(json.dumps(c)) + 4)
            .otherwise(0)
            for c in extra_columns
        )
        nul = pl.any_horizontal(pl.col(c).str.contains("\x00", literal=True) for c in extra_columns)
        flags += [size + 2 > max_extra, nul]
    if not flags:
        return None
    return pl.any_horizontal(f.fill_null(False) for f in flags)


def _extra_object(frame: pl.DataFrame, names: list[str], colon: str, comma: str) -> pl.Expr:
    members = []
    for name in names:
        texts = json_string_texts(frame[name])
        members.append(pl.concat_str(pl.lit(json.dumps(name) + colon), pl.lit(texts)))
    inner = pl.concat_str(members, separator=comma, ignore_nulls=True)
    return pl.concat_str(pl.lit("{"), inner.fill_null(""), pl.lit("}"))
