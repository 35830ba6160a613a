"""A sweep's content hash (format 2): sha256 of its description and its measurements.

The same measurements and description hash the same, whether an importer built a list of
points or a canonical file's table holds them, so a sweep exported as canonical CSV imports
back as the same sweep. Provenance (tool, file, kind) and the tools' extra fields are left out.

What is hashed, in order:
- `FORMAT`, then the description as compact JSON, its keys sorted, each value normalised
  (`_norm`: a whole float as an int, any other float by its repr, infinity as "inf");
- the number of points (8 bytes, little-endian);
- every point's numeric columns (`NUMERIC_COLUMNS`, sorted by name) as little-endian doubles,
  point by point, an unmeasured value as 0.0, -0.0 as 0.0 and every NaN as one NaN; then
  which of them were measured, one byte per value;
- the other values as compact JSON `[[point, column, value], ...]` (text columns, and a
  numeric column's value that is not a number), then each point's request-sample digest as
  `[[point, digest], ...]`.

Format 1 wrote every point as JSON text, which took longer than storing the points; doubles
are hashed as they are. Stored sweeps were rehashed by migration 0013.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from app.domain.columns import POINT_COLUMNS

FORMAT = b"paretoscope sweep content 2\n"
NUMERIC_COLUMNS: tuple[str, ...] = tuple(
    sorted(c.name for c in POINT_COLUMNS if c.kind in ("int", "float"))
)
TEXT_COLUMNS: tuple[str, ...] = tuple(
    sorted(c.name for c in POINT_COLUMNS if c.kind not in ("int", "float"))
)
_COLUMN_INDEX = {name: i for i, name in enumerate(NUMERIC_COLUMNS)}
# Built once: json.dumps with any option builds an encoder on every call.
_ENCODER = json.JSONEncoder(default=str, separators=(",", ":"))

Other = tuple[int, str, Any]  # (point, column, value) of a value that is not a double


def meta_json(meta: dict[str, Any], keys: Sequence[str]) -> bytes:
    """The description as the hash writes it: these keys, sorted, each value normalised."""
    doc = {}
    for k in sorted(keys):
        value = meta.get(k)
        doc[k] = _norm(value) if value.__class__ is float else value
    return _ENCODER.encode(doc).encode()


@dataclass(frozen=True)
class PointArrays:
    """Points as the hash reads them: `values` (points x NUMERIC_COLUMNS, C order), `measured`
    (the same shape, 1 where a value was given) and the other values by point."""

    values: np.ndarray
    measured: np.ndarray
    others: list[Other]  # sorted by point, then column

    def digest(
        self,
        head: bytes,
        start: int = 0,
        stop: int | None = None,
        samples: Sequence[tuple[int, str]] = (),
    ) -> str:
        """The content hash of points [start, stop) under `head` (FORMAT + meta_json)."""
        stop = len(self.values) if stop is None else stop
        digest = hashlib.sha256(head + (stop - start).to_bytes(8, "little"))
        digest.update(self.values[start:stop].data)  # contiguous rows: no copy
        digest.update(self.measured[start:stop].data)
        others = self._others_of(start, stop)
        digest.update(_compact(others) if others else b"[]")
        digest.update(_compact([list(s) for s in samples]) if samples else b"[]")
        return digest.hexdigest()

    def _others_of(self, start: int, stop: int) -> list[list[Any]]:
        if not self.others:
            return []
        # The other values are sorted by point: a sweep's are one run of them.
        first = bisect.bisect_left(self.others, (start,))
        last = bisect.bisect_left(self.others, (stop,))
        return [[i - start, c, v] for i, c, v in self.others[first:last]]


def head(meta: bytes) -> bytes:
    return FORMAT + meta + b"\n"


def from_frame(frame: pl.DataFrame) -> PointArrays:
    """The points of a frame with any of the point columns (the others are unmeasured)."""
    n = frame.height
    values = np.zeros((n, len(NUMERIC_COLUMNS)), dtype=np.float64)
    measured = np.zeros((n, len(NUMERIC_COLUMNS)), dtype=np.uint8)
    others: list[Other] = []
    for j, name in enumerate(NUMERIC_COLUMNS):
        if name not in frame.columns:
            continue
        column = frame[name]
        if column.dtype.is_numeric():
            doubles = column.cast(pl.Float64).to_numpy(allow_copy=True)  # null -> NaN
            given = column.is_not_null().to_numpy()
            values[:, j] = np.where(given, doubles, 0.0)
            measured[:, j] = given
        elif column.dtype != pl.Null:
            for i, value in enumerate(column.to_list()):
                if value is not None:
                    _put(values, measured, others, i, name, value)
    for name in TEXT_COLUMNS:
        if name in frame.columns and frame[name].null_count() < n:
            texts = frame[name].to_list()
            others += [(i, name, _text(v)) for i, v in enumerate(texts) if v is not None]
    return _canonical(values, measured, others)


def from_values(points: Sequence[dict[str, Any]]) -> PointArrays:
    """The same arrays from each point's values (a column not given is unmeasured)."""
    n = len(points)
    values = np.zeros((n, len(NUMERIC_COLUMNS)), dtype=np.float64)
    measured = np.zeros((n, len(NUMERIC_COLUMNS)), dtype=np.uint8)
    others: list[Other] = []
    for i, point in enumerate(points):
        for name, value in point.items():
            if value is None:
                continue
            if name in _COLUMN_INDEX:
                _put(values, measured, others, i, name, value)
            elif name in TEXT_COLUMNS:
                others.append((i, name, _text(value)))
    return _canonical(values, measured, others)


def _put(
    values: np.ndarray, measured: np.ndarray, others: list[Other], i: int, name: str, value: Any
) -> None:
    """One numeric column's value: a number (or text that reads as one) goes in the doubles,
    anything else into the other values."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        others.append((i, name, _text(value)))
        return
    j = _COLUMN_INDEX[name]
    values[i, j] = number
    measured[i, j] = 1


def _canonical(values: np.ndarray, measured: np.ndarray, others: list[Other]) -> PointArrays:
    values[np.isnan(values)] = np.nan  # one NaN, whatever its payload (a signalling one too)
    values[values == 0.0] = 0.0  # -0.0 == 0.0: both become 0.0
    order = {name: k for k, name in enumerate((*NUMERIC_COLUMNS, *TEXT_COLUMNS))}
    others.sort(key=lambda o: (o[0], order[o[1]]))
    return PointArrays(np.ascontiguousarray(values), np.ascontiguousarray(measured), others)


def _text(value: Any) -> Any:
    return value if isinstance(value, str | int | bool) else str(value)


def _compact(value: Any) -> bytes:
    return _ENCODER.encode(value).encode()


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        if value.is_integer():
            return int(value)
        return repr(value)
    return value
