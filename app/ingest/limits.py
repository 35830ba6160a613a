"""Bounds on what one upload may become, and the checks that keep stored values storable.

Every database gets the same limits: SQLite stores any text length, a NUL byte or a 64-bit
integer, Postgres refuses them; checking here means a sweep that imports on one imports on the
other, and the refusal names the file, the row and the field instead of a database error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import polars as pl

from app.domain.bounds import magnitude_problem
from app.domain.bounds import text_problem as unicode_problem
from app.domain.sweep_fields import SWEEP_INT_FIELDS, SWEEP_TEXT_LIMITS
from app.ingest.errors import IngestError, Problems, RowError
from app.ingest.parsed import ParsedPoint, ParsedSweep

MB = 1024 * 1024
INT32_MAX = 2**31 - 1  # Postgres INTEGER

POINT_TEXT_LIMITS: dict[str, int] = {"goodput_slo": 200}
SOURCE_FILE_LIMIT = 500
# Columns a CSV header may name, counted on the header line before any row is parsed: a wide
# frame costs far more memory than its bytes (100,000 columns in 889 KB took 3.75 GB).
# Canonical CSV has well under 100 columns; tools write fewer still.
MAX_CSV_COLUMNS = 1_000
MAX_POINTS_PER_SWEEP = 9_999_999  # app.store.point_blocks: ids are sweep id x 10^7 + position
# Whole-number fields, checked and refused in this order: GPU counts first, then the sweep's
# other counts, then a point's request counts.
INT_FIELDS: tuple[str, ...] = (
    *sorted(SWEEP_INT_FIELDS, key=lambda k: not k.endswith("_gpus")),
    "num_requests",
    "num_failed",
)
_INT_SET = frozenset(INT_FIELDS)
# The order a sweep's refused fields are listed in: text fields (notes, the long free text,
# last), then whole numbers.
_REFUSAL_ORDER = (*(k for k in SWEEP_TEXT_LIMITS if k != "notes"), "notes", *INT_FIELDS)
_META_ORDER = {k: i for i, k in enumerate(_REFUSAL_ORDER)}
SAMPLE_INT_FIELDS: tuple[str, ...] = ("output_len", "input_len", "cached_input_tokens")


@dataclass(frozen=True)
class Limits:
    """What one upload may expand to; the defaults suit the default 50 MB upload cap."""

    max_unpacked_bytes: int = 500 * MB  # all archive members together, as they are extracted
    max_ratio: float = 200.0  # uncompressed / compressed bytes, per member and per archive
    ratio_grace_bytes: int = 1 * MB  # tiny, very repetitive files may compress better than that
    max_extra_bytes: int = 256 * 1024  # one point's extra fields, serialised as JSON


DEFAULT_LIMITS = Limits()


def text_problem(value: str, limit: int) -> str | None:
    """Why a text value cannot be stored, or None."""
    problem = unicode_problem(value)
    if problem:
        return problem
    if len(value) > limit:
        return f"is {len(value):,} characters long; at most {limit:,}"
    return None


def int_problem(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT32_MAX:
        return f"{value} is out of range (at most {INT32_MAX:,})"
    return None


def check_sweeps(sweeps: list[ParsedSweep], limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse, naming file, row and field, anything one of the databases could not store."""
    errors: list[RowError] = Problems()
    for sweep in sweeps:
        file = sweep.source_file
        if len(file) > SOURCE_FILE_LIMIT or "\x00" in file:
            shown = file[:80].replace("\x00", "\\0")
            errors.append(
                RowError(shown, f"the file name is longer than {SOURCE_FILE_LIMIT} characters")
                if "\x00" not in file
                else RowError(shown, "the file name contains a NUL byte")
            )
            continue
        if sweep.point_count > MAX_POINTS_PER_SWEEP:
            errors.append(
                RowError(
                    file,
                    f"sweep {sweep.name!r} has {sweep.point_count:,} points; a sweep may have at "
                    f"most {MAX_POINTS_PER_SWEEP:,} (a point's id is its sweep's and its place)",
                    sweep.first_row,
                )
            )
            continue
        found: list[tuple[int, str, str]] = []
        for key, value in sweep.meta.items():  # only the fields given (most are not)
            limit = SWEEP_TEXT_LIMITS.get(key)
            if limit is not None and isinstance(value, str):
                problem = text_problem(value, limit)
            elif key in _INT_SET:
                problem = int_problem(value)
            else:
                continue
            if problem:
                found.append((_META_ORDER[key], key, problem))
        for _, key, problem in sorted(found):  # text fields first, then whole numbers
            errors.append(RowError(file, problem, sweep.first_row, key))
        rows = sweep.table_rows
        if rows is not None and not rows.may_break_limits(limits.max_extra_bytes):
            continue  # screened as columns: no point comes near a limit
        for point in sweep.points:
            _check_point(file, point, limits, errors)
    if errors:
        raise IngestError(errors)


def _check_point(file: str, point: ParsedPoint, limits: Limits, errors: list[RowError]) -> None:
    for key, limit in POINT_TEXT_LIMITS.items():
        value = point.values.get(key)
        if value is None:
            continue
        problem = text_problem(value, limit) if isinstance(value, str) else None
        if problem:
            errors.append(RowError(file, problem, point.row, key))
    values = point.values
    for key, value in values.items():
        size = (
            magnitude_problem(value)
            if isinstance(value, int | float) and not isinstance(value, bool)
            else None
        )
        if size:
            errors.append(RowError(file, size, point.row, key))
    if not _INT_SET.isdisjoint(values):  # most points give none of these
        for key in INT_FIELDS:
            problem = int_problem(values.get(key))
            if problem:
                errors.append(RowError(file, problem, point.row, key))
    _check_extra(file, point, limits, errors)
    _check_samples(file, point, errors)


def _check_extra(file: str, point: ParsedPoint, limits: Limits, errors: list[RowError]) -> None:
    """The point's extra fields: their stored size and no NUL byte."""
    if point.extra:
        # Sizes are counted as stored (compact JSON).
        text = json.dumps(point.extra, default=str, separators=(",", ":"))
        if len(text) > limits.max_extra_bytes:
            errors.append(
                RowError(
                    file,
                    f"the point's extra fields take {len(text):,} bytes; at most "
                    f"{limits.max_extra_bytes:,} per point are kept (remove unneeded fields)",
                    point.row,
                )
            )
        elif _has_nul(point.extra):
            errors.append(RowError(file, "an extra field contains a NUL byte", point.row))


def _check_samples(file: str, point: ParsedPoint, errors: list[RowError]) -> None:
    """The request samples: each readable as a column, each count within 32 bits."""
    if point.samples is not None and point.sample_count:
        try:
            # A typed frame (canonical CSV) is read as is: casting a million rows again costs.
            samples = point.samples
            frame = samples if isinstance(samples, pl.DataFrame) else point.samples_frame()
        except (pl.exceptions.PolarsError, OverflowError, TypeError, ValueError):
            # e.g. a token count of 1e30: no 64-bit column holds it
            errors.append(RowError(file, "a request sample holds a value out of range", point.row))
            return
        # A column of 32 bits or fewer holds no count beyond them: only wider ones are looked
        # at, in one pass.
        wide = [
            k for k in SAMPLE_INT_FIELDS if k in frame.columns and _wider_than_32(frame.schema[k])
        ]
        if not wide:
            return
        tops = frame.select(pl.col(k).abs().max() for k in wide).row(0)
        for key, top in zip(wide, tops, strict=True):
            if top is not None and top > INT32_MAX:
                errors.append(
                    RowError(file, f"a request's {key} {top} is out of range", point.row, key)
                )


def _wider_than_32(dtype: pl.DataType) -> bool:
    return dtype not in (pl.Int32, pl.Int16, pl.Int8, pl.UInt16, pl.UInt8)


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False
