"""Impossible values (app.domain.impossible) refused for every importer's points, naming the
file, the row and the field.

A canonical file's points kept as columns are screened with polars first: only the rows the
screen flags become Python values for the exact check, so a 100,000-point file that is sound
costs a few column operations, not a check per point.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import polars as pl

from app.domain.accounting import POINT_SPLIT_KEYS, SPLIT_COLUMNS
from app.domain.columns import POINT_COLUMN_NAMES
from app.domain.covariates import ACCEPTANCE_LENGTH, CACHED_INPUT_TOKENS
from app.domain.impossible import ISSUED_KEYS, METRICS, impossible_values, statistic_rank
from app.domain.impossible_ranges import (
    FRACTIONS,
    NON_NEGATIVE,
    PERCENTS,
    range_problems,
    split_problem,
)
from app.domain.stat_names import statistic_field
from app.domain.stated_order import stated_order_problems
from app.ingest.errors import IngestError, RowError
from app.ingest.parsed import ParsedPoint, ParsedSweep, point_label
from app.ingest.point_table import ROW, PointRows, PointTable

_POINT_SET = frozenset(POINT_COLUMN_NAMES)


def check_impossible(sweeps: list[ParsedSweep]) -> None:
    """Refuse points holding values no run can have measured (every sweep of the upload is
    checked, so one answer lists them all)."""
    errors: list[RowError] = []
    screened: set[int] = set()  # tables already screened: all slices of one file at once
    for sweep in sweeps:
        rows = sweep.table_rows
        if isinstance(rows, PointRows):
            if id(rows.table) not in screened:
                screened.add(id(rows.table))
                _check(sweep.source_file, _flagged(rows.table), errors)
            continue
        points = ((p.row, p.values, p.extra) for p in sweep.points)
        _check(sweep.source_file, points, errors)
    if errors:
        raise IngestError(errors)


def _check(
    file: str,
    points: Iterable[tuple[int | None, Mapping[str, Any], Mapping[str, Any]]],
    errors: list[RowError],
) -> None:
    for row, values, extra in points:
        for problem in [
            *impossible_values(values, extra),
            *range_problems(extra, values),
            *stated_order_problems(extra),
        ]:
            label = point_label(ParsedPoint(dict(values)))
            errors.append(RowError(file, f"point {label}: {problem.message}", row, problem.field))


def _flagged(
    table: PointTable,
) -> Iterator[tuple[int | None, Mapping[str, Any], Mapping[str, Any]]]:
    """The table's points (row, values, extra) that may hold an impossible value, in file
    order: a superset of what `impossible_values` finds."""
    frame = table.frame
    flags = screen(frame, table.point_columns, table.extra_columns)
    if flags is None:
        return
    found = frame.filter(flags).sort(ROW)
    for cells in found.select(ROW, *table.point_columns, *table.extra_columns).iter_rows(
        named=True
    ):
        row = cells.pop(ROW)
        values = {k: v for k, v in cells.items() if k in _POINT_SET and v is not None}
        extra = {k: v for k, v in cells.items() if k not in _POINT_SET and v is not None}
        yield row, values, extra


def screen(
    frame: pl.DataFrame, point_columns: list[str], extra_columns: list[str]
) -> pl.Expr | None:
    """Rows that may break a rule of app.domain.impossible."""
    present = set(point_columns)
    flags: list[pl.Expr] = []
    number = _numbers(frame, present)
    if "concurrency" in present:
        c = number("concurrency")
        flags.append((c <= 0) | (c != c.floor()) | c.is_infinite() | c.is_nan())
    if "duration_s" in present:
        flags.append(number("duration_s") <= 0)
    flags += _order_flags([*point_columns, *extra_columns], number)
    done = [number(c).fill_null(0) for c in ("num_requests", "num_failed") if c in present]
    for key in ISSUED_KEYS:
        if key in extra_columns and done:
            flags.append(pl.sum_horizontal(done) > number(key))
    flags += _range_flags(extra_columns, number, point_columns)
    if not flags:
        return None
    return pl.any_horizontal(f.fill_null(False) for f in flags)


def _numbers(frame: pl.DataFrame, present: set[str]) -> Callable[[str], pl.Expr]:
    """A column as Float64: numeric columns cast, others parsed (what does not parse is null)."""

    def number(name: str) -> pl.Expr:
        column = pl.col(name)
        if name in present and frame.schema[name].is_numeric():
            return column.cast(pl.Float64)
        return column.cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False)

    return number


def _order_flags(columns: list[str], number: Callable[[str], pl.Expr]) -> list[pl.Expr]:
    """Rows whose statistics of one metric are out of order (a p90 below the p50, a mean
    outside min … max)."""
    flags: list[pl.Expr] = []
    by_metric: dict[str, list[tuple[float, str, str]]] = {}
    for name in columns:
        named = statistic_field(name)
        if named is not None and named[0] in METRICS:
            rank = -2.0 if named[1] == "mean" else statistic_rank(named[1])
            by_metric.setdefault(named[0], []).append((rank, named[1], name))
    for stats in by_metric.values():
        ordered = sorted(s for s in stats if s[1] != "mean")
        for i in range(1, len(ordered)):
            below = pl.max_horizontal(number(s[2]) for s in ordered[:i])
            flags.append(number(ordered[i][2]) < below)
        means = [s[2] for s in stats if s[1] == "mean"]
        ends = {s[1]: s[2] for s in stats}
        if means and "min" in ends and "max" in ends:
            mean = number(means[0])
            flags.append((mean < number(ends["min"])) | (mean > number(ends["max"])))
    return flags


def _range_flags(extra_columns: list[str], number: Any, point_columns: list[str]) -> list[pl.Expr]:
    """Rows whose covariate columns may be out of range (app.domain.impossible_ranges)."""
    present = set(extra_columns)
    bounds: list[tuple[str, float, float | None]] = [
        *((k, 0.0, 1.0) for k in FRACTIONS),
        *((k, 0.0, 100.0) for k in PERCENTS),
        *((k, 0.0, None) for k in NON_NEGATIVE),
        (ACCEPTANCE_LENGTH, 1.0, None),
    ]
    flags = []
    for key, low, high in bounds:
        if key in present:
            value = number(key)
            flags.append(value < low if high is None else (value < low) | (value > high))
    if CACHED_INPUT_TOKENS in present and "input_len" in point_columns:
        flags.append(number(CACHED_INPUT_TOKENS) > number("input_len"))
    if {"spec_decode_accepted_tokens", "spec_decode_draft_tokens"} <= present:
        accepted = number("spec_decode_accepted_tokens")
        flags.append((accepted < 0) | (accepted > number("spec_decode_draft_tokens")))
    return flags


def split_errors(sweeps: list[ParsedSweep]) -> list[RowError]:
    """Each sweep (or point, where the split changes along a sweep) whose prefill and decode
    GPUs do not add up to its GPU count, naming the file, row and field. Checked once every
    detail the user gave is applied (the form may give the GPU count or the split)."""
    errors: list[RowError] = []
    for sweep in sweeps:
        file = sweep.source_file
        total = sweep.meta.get("num_gpus")
        problem = split_problem(total, *(sweep.meta.get(k) for k in SPLIT_COLUMNS))
        if problem is not None:
            errors.append(RowError(file, problem.message, sweep.first_row, problem.field))
        if problem is not None or isinstance(sweep.table_rows, PointRows):
            continue
        for point in sweep.points:
            own = [point.extra.get(k) for k in POINT_SPLIT_KEYS]
            problem = split_problem(total, *own) if own != [None, None] else None
            if problem is not None:
                label = point_label(point)
                message = f"point {label}: {problem.message}"
                errors.append(RowError(file, message, point.row, problem.field))
    return errors
