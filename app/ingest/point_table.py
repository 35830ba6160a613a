"""The points of a canonical file kept as columns, one table for the whole file.

A 100,000-point file becomes one frame, its rows sorted stably by sweep (in the order the
sweeps first appear) so each sweep is a contiguous slice; `__row` keeps each point's row in
the file for messages. A `ParsedSweep` backed by a slice builds its `ParsedPoint` list only
when something asks for `points`; until then the store path (limits, warnings, the content
hash, the point inserts) reads the columns.
"""

from __future__ import annotations

import bisect
import hashlib
import io
import json
from typing import Any

import polars as pl

from app.domain.columns import POINT_COLUMN_NAMES
from app.ingest.json_text import (
    hashed_texts,
    json_string_expr,
    json_string_texts,
    only_fractions,
    polars_spells_floats,
    spelled_floats,
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
        self._points_json: tuple[memoryview, list[tuple[int, int]]] | None = None
        self._flagged: dict[int, list[int]] = {}
        self._lengths: list[tuple[Any, Any, Any]] | None = None

    def slice(self, index: int, offset: int, length: int) -> PointRows:
        return PointRows(self, index, offset, length)

    def digest(self, index: int, head: bytes) -> str:
        """sha256 of `head`, then slice `index`'s points as the content hash writes them
        (comma-separated), then "]}": the content hash of that sweep when `head` is its
        '{"meta":{...},"points":[' (ParsedSweep.content_hash)."""
        if self._points_json is None:
            self._points_json = self._all_points_json()
        text, spans = self._points_json
        start, end = spans[index]
        digest = hashlib.sha256(head)
        digest.update(text[start:end])
        digest.update(b"]}")
        return digest.hexdigest()

    def _all_points_json(self) -> tuple[memoryview, list[tuple[int, int]]]:
        """Every point's JSON, comma-joined in one buffer, and each slice's span of it: the
        text is written once, and each sweep hashes its span without a copy."""
        fragments = self.frame.select(pl.col(SWEEP), hash_fragments(self.frame).alias("__json"))
        size = pl.col("__json").str.len_bytes().cast(pl.Int64)
        ends = (size + 1).cum_sum() - 1  # where each point's text ends (its comma follows)
        spans = (
            fragments.select(pl.col(SWEEP), (ends - size).alias("start"), ends.alias("end"))
            .group_by(SWEEP, maintain_order=True)
            .agg(pl.col("start").first(), pl.col("end").last())
        )
        # Written out by the CSV writer, a comma after each point: one copy of the text, where
        # str.join, a cast to bytes and handing them to Python made three.
        buffer = io.BytesIO()
        fragments.select("__json").write_csv(
            buffer, include_header=False, line_terminator=",", quote_style="never"
        )
        return buffer.getbuffer(), list(spans.select("start", "end").iter_rows())

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
        return self.table.digest(self.index, head)

    def may_break_limits(self, max_extra_bytes: int) -> bool:
        flagged = self.table.flagged_rows(max_extra_bytes)
        at = bisect.bisect_left(flagged, self.offset)
        return at < len(flagged) and flagged[at] < self.offset + self.length

    def lengths(self) -> list[tuple[Any, Any, Any]]:
        every = self.table.lengths()
        return every[self.offset : self.offset + self.length] if every else []


def hash_fragments(frame: pl.DataFrame) -> pl.Expr:
    """Per point, `{"s":null,"v":{...}}` exactly as `ParsedSweep.content_hash` writes a point
    without samples: every canonical column in sorted order, a column not given as null.

    One expression for all columns. A column holding a value polars does not spell as Python
    does (rare: infinities, NaN, tiny fractions, huge numbers, text to escape; see
    app.ingest.json_text) is written beforehand as a whole, those values by Python."""
    given = [c for c in _SORTED_POINT_COLUMNS if c in frame.columns]
    floats = [c for c in given if frame.schema[c] == pl.Float64]
    texts_columns = [c for c in given if frame.schema[c] == pl.String]
    checks = [polars_spells_floats(c).alias(c) for c in floats]
    checks += [only_fractions(c).alias(f"bare {c}") for c in floats]
    checks += [
        (pl.col(c).is_null() | json_string_expr(c).is_not_null()).all() for c in texts_columns
    ]
    plain = frame.select(checks).row(0, named=True) if checks else {}
    parts: list[pl.Expr] = []
    pending = '{"s":null,"v":{'
    for i, name in enumerate(_SORTED_POINT_COLUMNS):
        pending += ("," if i else "") + json.dumps(name) + ":"
        if name not in given:
            pending += "null"
            continue
        dtype = frame.schema[name]
        after = ""
        if name in floats and plain[name]:
            bare = plain[f"bare {name}"]
            if bare:  # every value a fraction: its quotes join the text around it
                pending, after = pending + '"', '"'
            value = spelled_floats(name, bare)
        elif name in texts_columns and plain[name]:
            value = json_string_expr(name).fill_null("null")
        elif dtype.is_integer():
            value = pl.col(name).cast(pl.String).fill_null("null")
        else:
            value = pl.lit(hashed_texts(frame[name])).fill_null("null")
        parts += [pl.lit(pending), value]
        pending = after
    parts.append(pl.lit(pending + "}}"))
    return pl.concat_str(parts)


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
