"""Canonical point rows judged and grouped as columns, for files with nothing to report.

A 100,000-point file must not cost a Python check per cell: `clean` screens every row with
polars expressions that flag a superset of what `canonical.check_values` and the required-value
checks report, and `group` builds the sweeps from columns. When the screen flags anything, or
two rows of a sweep disagree on its metadata, the caller takes the row-by-row path, which names
every problem by file, row and column exactly as before.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from app.domain.accounting import POINT_SPLIT_KEYS, SPLIT_COLUMNS
from app.domain.columns import (
    COLUMNS_BY_NAME,
    LATENCY_COLUMN_NAMES,
    POINT_COLUMN_NAMES,
    PROVENANCES,
    SOURCE_KINDS,
    STATS,
    SWEEP_COLUMN_NAMES,
    THROUGHPUT_COLUMN_NAMES,
    TPOT_COLUMN_NAMES,
)
from app.ingest.errors import Kind, RowError, kind_of
from app.ingest.parsed import ParsedSweep
from app.ingest.point_table import POSITION, ROW, SWEEP, PointTable

NON_NEGATIVE = (
    *LATENCY_COLUMN_NAMES,
    *THROUGHPUT_COLUMN_NAMES,
    "duration_s",
    "input_len",
    "output_len",
    "num_requests",
    "num_failed",
    "achieved_concurrency",
    "isl",
    "osl",
)
POSITIVE = ("num_gpus", "concurrency", "request_rate", "num_prefill_gpus", "num_decode_gpus")

# Text columns with a fixed set of values.
CHOICES: dict[str, tuple[str, ...]] = {"source_kind": SOURCE_KINDS, "provenance": PROVENANCES}


def with_defaults(frame: pl.DataFrame, defaults: dict[str, Any]) -> pl.DataFrame:
    """Each default fills the cells of its column that are empty (or the missing column)."""
    for key, value in defaults.items():
        if key not in frame.columns:
            frame = frame.with_columns(pl.lit(value).alias(key))
            continue
        column = pl.col(key)
        empty = column.is_null()
        if frame.schema[key] == pl.String:
            empty = empty | (column == "")
        frame = frame.with_columns(pl.when(empty).then(pl.lit(value)).otherwise(column).alias(key))
    return frame


def clean(frame: pl.DataFrame, required: tuple[str, ...], non_negative: tuple[str, ...]) -> bool:
    """True when no row can have a problem the row-by-row checks would report."""
    columns = set(frame.columns)
    schema = frame.schema
    flags: list[pl.Expr] = []

    def missing(name: str) -> pl.Expr:
        if name not in columns:
            return pl.lit(True)
        empty = pl.col(name).is_null()
        return empty | (pl.col(name) == "") if schema[name] == pl.String else empty

    flags += [missing(name) for name in required]
    flags.append(missing("concurrency") & missing("request_rate"))
    flags.append(pl.all_horizontal(*(missing(name) for name in TPOT_COLUMN_NAMES)))
    for name in non_negative:
        if name in columns:
            flags.append(_bad_number(name, schema[name], allow_zero=True, allow_inf=False))
    for name in ("num_gpus", "concurrency", "request_rate", "num_prefill_gpus", "num_decode_gpus"):
        if name in columns:
            allow_inf = name == "request_rate"
            flags.append(_bad_number(name, schema[name], allow_zero=False, allow_inf=allow_inf))
    for stat in STATS:
        ttft, e2el = f"ttft_{stat}_ms", f"e2el_{stat}_ms"
        if ttft in columns and e2el in columns:
            flags.append(_numeric_pair(ttft, e2el, schema))
    for name, allowed in CHOICES.items():
        if name in columns:
            kind = pl.col(name)
            flags.append(kind.is_not_null() & ~kind.cast(pl.String).is_in(allowed))
    flagged = frame.select(pl.any_horizontal(*(f.fill_null(False) for f in flags)).any()).item()
    return not flagged


def _bad_number(name: str, dtype: Any, *, allow_zero: bool, allow_inf: bool) -> pl.Expr:
    column = pl.col(name)
    if dtype.is_integer():
        return column.is_not_null() & ((column < 0) if allow_zero else (column <= 0))
    if not dtype.is_float():
        return column.is_not_null()  # an unexpected type: let the row checks look
    bad = column.is_nan() | ((column < 0) if allow_zero else (column <= 0))
    bad = bad | (column == float("-inf"))
    if not allow_inf:
        bad = bad | column.is_infinite()
    return column.is_not_null() & bad


def _numeric_pair(ttft: str, e2el: str, schema: Any) -> pl.Expr:
    if not (schema[ttft].is_numeric() and schema[e2el].is_numeric()):
        return pl.col(ttft).is_not_null() & pl.col(e2el).is_not_null()
    return pl.col(ttft) > pl.col(e2el)


def group(file: str, frame: pl.DataFrame, source_format: str) -> list[ParsedSweep] | None:
    """Sweeps of the rows, in the order their names first appear; None when two rows of one
    sweep disagree on a sweep-level value (the row-by-row path says where)."""
    columns = frame.columns
    meta_columns = [c for c in SWEEP_COLUMN_NAMES if c in columns]
    lines = pl.col(ROW) if ROW in columns else pl.int_range(2, pl.len() + 2, dtype=pl.Int64)
    keyed = _keyed(frame, meta_columns, lines)
    sweeps = keyed.group_by("__name", maintain_order=True).agg(
        pl.col("__i").first(),
        *(pl.col(c).drop_nulls().n_unique().alias(f"__n_{c}") for c in meta_columns),
        *(pl.col(c).drop_nulls().first() for c in meta_columns),
    )
    if _disagree(sweeps, meta_columns):
        return None
    point_columns = [c for c in POINT_COLUMN_NAMES if c in columns]
    extra_columns = [c for c in columns if c not in COLUMNS_BY_NAME and not c.startswith("__")]
    # One table for the file, sweep by sweep (a stable sort: each sweep's points keep their
    # order), each sweep a slice of it: no Python object per point (app.ingest.point_table).
    order = sweeps.select("__name", pl.int_range(pl.len(), dtype=pl.UInt32).alias(SWEEP))
    table = (
        frame.select(
            lines.alias(ROW),
            *point_columns,
            *(pl.col(c).cast(pl.String) for c in extra_columns),
        )
        .with_columns(keyed["__name"])
        .join(order, on="__name", how="left", maintain_order="left")
        .drop("__name")
        .sort(SWEEP, maintain_order=True)
    )
    table = table.with_columns(pl.int_range(pl.len()).over(SWEEP).alias(POSITION))
    counts = table.group_by(SWEEP, maintain_order=True).len()["len"].to_list()
    shared = PointTable(table, point_columns, extra_columns)
    out: list[ParsedSweep] = []
    offset = 0
    for index, (row, length) in enumerate(
        zip(sweeps.select("__i", *meta_columns).iter_rows(), counts, strict=True)
    ):
        found = {c: v for c, v in zip(meta_columns, row[1:], strict=True) if v is not None}
        rows = shared.slice(index, offset, length)
        out.append(ParsedSweep(found, None, file, source_format, first_row=row[0], table_rows=rows))
        offset += length
    return out


def _keyed(frame: pl.DataFrame, meta_columns: list[str], lines: pl.Expr) -> pl.DataFrame:
    """Each row's sweep name (`__name`), its sweep fields (an empty text as null) and line."""
    name = (
        pl.col("sweep").cast(pl.String).fill_null("")
        if "sweep" in frame.columns
        else pl.repeat("", pl.len(), dtype=pl.String)  # a literal alone would make one row
    )
    meta = [
        pl.when(pl.col(c) == "").then(None).otherwise(pl.col(c)).alias(c)
        if frame.schema[c] == pl.String
        else pl.col(c)
        for c in meta_columns
    ]
    return frame.select(name.alias("__name"), *meta, lines.alias("__i"))


def _disagree(sweeps: pl.DataFrame, meta_columns: list[str]) -> bool:
    """Whether two rows of one sweep give different values of a sweep field."""
    for c in meta_columns:
        most: Any = sweeps[f"__n_{c}"].max()
        if most is not None and most > 1:
            return True
    return False


def keep_point_splits(sweep: ParsedSweep, splits: list[tuple[Any, Any]]) -> None:
    """Where a sweep's rows give different prefill:decode splits, each point keeps its own in
    its extra fields (a row without one takes the sweep's); the sweep's is the first one given."""
    first = tuple(sweep.meta.get(k) for k in SPLIT_COLUMNS)
    each = [
        tuple(v if v is not None else f for v, f in zip(own, first, strict=True)) for own in splits
    ]
    if len(set(each)) < 2:
        return  # one split (empty cells take the sweep's): the sweep's alone, as before
    for point, own in zip(sweep.points, each, strict=True):
        for key, value in zip(POINT_SPLIT_KEYS, own, strict=True):
            if value is not None:
                point.extra[key] = value


def problem_counts(
    frame: pl.DataFrame,
    required: tuple[str, ...],
    non_negative: tuple[str, ...],
    positive: tuple[str, ...],
) -> list[tuple[Kind, int]]:
    """How many problems of each kind `canonical.check_values` and the required-value checks
    would report in these rows, counted as columns (after MAX_LISTED are listed)."""
    columns = set(frame.columns)
    schema = frame.schema
    checks = [
        *_required_checks(required, columns, schema),
        *_non_negative_checks(non_negative, columns, schema),
        *_positive_checks(positive, columns, schema),
        *_pair_checks(columns, schema),
        *_choice_checks(columns),
    ]
    if not checks or frame.height == 0:
        return []
    counted = frame.select(
        c.fill_null(False).sum().alias(str(i)) for i, (_, c) in enumerate(checks)
    )
    return [(k, int(counted[str(i)].item())) for i, (k, _) in enumerate(checks)]


Checks = list[tuple[Kind, pl.Expr]]  # each kind of problem with the rows that have it


def _required_checks(required: tuple[str, ...], columns: set[str], schema: Any) -> Checks:
    """Required values empty; neither load; no TPOT statistic (none when nothing is required)."""
    if not required:
        return []

    def missing(name: str) -> pl.Expr:
        if name not in columns:
            return pl.lit(True)
        empty = pl.col(name).is_null()
        return empty | (pl.col(name) == "") if schema[name] == pl.String else empty

    checks = [(kind_of(n, "required value is empty"), missing(n)) for n in required]
    neither = missing("concurrency") & missing("request_rate")
    checks.append((kind_of(None, "neither concurrency nor request_rate is set"), neither))
    tpot = [missing(n) for n in TPOT_COLUMN_NAMES if n in columns]
    no_tpot = pl.all_horizontal(*tpot) if tpot else pl.lit(True)
    checks.append((kind_of("tpot_p50_ms", "no TPOT statistic is set"), no_tpot))
    return checks


def _numeric(names: tuple[str, ...], columns: set[str], schema: Any) -> list[str]:
    return [n for n in names if n in columns and schema[n].is_numeric()]


def _non_negative_checks(names: tuple[str, ...], columns: set[str], schema: Any) -> Checks:
    checks: Checks = []
    for name in _numeric(names, columns, schema):
        value = pl.col(name)
        odd = ~value.is_finite() if schema[name].is_float() else pl.lit(False)
        checks.append((kind_of(name, "nan is not a finite number"), odd))
        checks.append((kind_of(name, "-1 is negative"), ~odd & (value < 0)))
    return checks


def _positive_checks(names: tuple[str, ...], columns: set[str], schema: Any) -> Checks:
    """A rate may be infinite (requests sent at once); any other positive column not."""
    checks: Checks = []
    for name in _numeric(names, columns, schema):
        value = pl.col(name)
        nan = value.is_nan() if schema[name].is_float() else pl.lit(False)
        checks.append((kind_of(name, "NaN is not a number"), nan))
        checks.append((kind_of(name, "0 must be greater than 0"), ~nan & (value <= 0)))
        if name != "request_rate" and schema[name].is_float():
            infinite = value.is_infinite() & (value > 0)
            checks.append((kind_of(name, "inf is not a finite number"), infinite))
    return checks


def _pair_checks(columns: set[str], schema: Any) -> Checks:
    """A TTFT above the E2EL of the same statistic."""
    checks: Checks = []
    for stat in STATS:
        ttft, e2el = f"ttft_{stat}_ms", f"e2el_{stat}_ms"
        if ttft in columns and e2el in columns:
            message = f"TTFT {stat} 1 ms is above E2EL {stat} 0 ms"
            checks.append((kind_of(ttft, message), _numeric_pair(ttft, e2el, schema)))
    return checks


def _choice_checks(columns: set[str]) -> Checks:
    """A value not among its column's choices (a source kind not known)."""
    checks: Checks = []
    for name, allowed in CHOICES.items():
        if name in columns:
            kind = pl.col(name)
            bad = kind.is_not_null() & ~kind.cast(pl.String).is_in(allowed)
            checks.append((kind_of(name, f"'x' is not one of {allowed}"), bad))
    return checks


def check_values(file: str, rows: list[dict[str, Any]], errors: list[RowError]) -> None:
    given = set().union(*(row.keys() for row in rows[:1]))  # a frame's rows share their keys
    non_negative = [n for n in NON_NEGATIVE if n in given] if given else NON_NEGATIVE
    positive = [n for n in POSITIVE if n in given] if given else POSITIVE
    stats = [s for s in STATS if not given or {f"ttft_{s}_ms", f"e2el_{s}_ms"} <= given]
    for i, row in enumerate(rows):
        line = row.get(ROW, i + 2)
        for name in non_negative:
            problem = _non_negative_problem(row.get(name))
            if problem:
                errors.append(RowError(file, problem, line, name))
        for name in positive:
            problem = _positive_problem(name, row.get(name))
            if problem:
                errors.append(RowError(file, problem, line, name))
        errors += _order_and_kind_problems(file, row, line, stats)


def _order_and_kind_problems(
    file: str, row: dict[str, Any], line: int, stats: list[str]
) -> list[RowError]:
    """A TTFT above the E2EL of the same statistic; a source kind not known."""
    found = []
    for stat in stats:
        ttft, e2el = row.get(f"ttft_{stat}_ms"), row.get(f"e2el_{stat}_ms")
        if ttft is not None and e2el is not None and ttft > e2el:
            found.append(
                RowError(
                    file,
                    f"TTFT {stat} {ttft} ms is above E2EL {stat} {e2el} ms",
                    line,
                    f"ttft_{stat}_ms",
                )
            )
    for name, allowed in CHOICES.items():
        kind = row.get(name)
        if kind is not None and kind not in allowed:
            found.append(RowError(file, f"{kind!r} is not one of {allowed}", line, name))
    return found


def _non_negative_problem(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number"
    return f"{value} is negative" if value < 0 else None


def _positive_problem(name: str, value: Any) -> str | None:
    """A rate may be infinite (requests sent at once); any other positive column not."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return "NaN is not a number"
    if value <= 0:
        return f"{value} must be greater than 0"
    if name != "request_rate" and isinstance(value, float) and math.isinf(value):
        return f"{value} is not a finite number"
    return None
