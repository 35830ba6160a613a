"""Canonical CSV: one row per point (sweeps) or one row per request (request samples).

Parsed with Polars against the explicit schema of `app.domain.columns`; every problem is reported
with the file, the row (the header is row 1) and the column.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import polars as pl

from app.domain.accounting import POINT_SPLIT_KEYS, SPLIT_COLUMNS
from app.domain.columns import (
    COLUMNS_BY_NAME,
    POINT_COLUMN_NAMES,
    REQUEST_COLUMNS,
    SWEEP_COLUMN_NAMES,
    TPOT_COLUMN_NAMES,
)
from app.domain.sweep_fields import REQUIRED_META
from app.ingest import canonical_rows
from app.ingest.blank_lines import without_blank_lines, without_blank_rows
from app.ingest.canonical_rows import NON_NEGATIVE, POSITIVE, check_values
from app.ingest.common import refuse_duplicate_columns
from app.ingest.errors import FIELD_MARK, IngestError, Problems, RowError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.point_table import ROW
from app.ingest.source import head_of

FORMAT_SWEEPS = "canonical CSV (points)"
NULL_VALUES = ["", "NA", "N/A", "null", "None"]
POLARS_TYPES: dict[str, pl.DataType] = {
    "str": pl.String(),
    "int": pl.Int64(),
    "float": pl.Float64(),
    "date": pl.Date(),
    "bool": pl.Boolean(),
}
REQUEST_TYPES = {c.name: c.kind for c in REQUEST_COLUMNS}
TRUE_WORDS = ["true", "1", "yes", "ok"]  # a bool cell, trimmed and lowered
FALSE_WORDS = ["false", "0", "no", "failed", "error"]
ROWS_PER_SLICE = 1_000
# Below this many rows a file is checked and grouped row by row: polars's fixed cost per query
# (a dozen of them) is more than the rows cost in Python (5 rows: 3 ms against 9 ms).
COLUMNS_MIN_ROWS = 200


def looks_like_canonical(header: list[str]) -> bool:
    known = set(SWEEP_COLUMN_NAMES) | set(POINT_COLUMN_NAMES) | set(REQUEST_TYPES)
    return bool(known & set(header))


def is_request_header(header: list[str]) -> bool:
    return {"ttft_ms", "e2el_ms", "ok"} <= set(header)


def read_frame(file: str, text: str | bytes) -> pl.DataFrame:
    """Every cell as a string; types are applied column by column so errors can name the cell.

    Bytes are read as they are (the caller has checked they are UTF-8: `check_text`), without
    a decoded copy of the file."""
    data = text.encode() if isinstance(text, str) else head_of(text, lstrip=False)
    # Polars renames a repeated column ("x_duplicated_0"): look at the header as written first.
    try:
        written = next(csv.reader(io.StringIO(_header_text(data))), [])
    except csv.Error as exc:
        raise IngestError.one(file, f"not a readable CSV ({exc})", row=1) from exc
    refuse_duplicate_columns(file, written)
    data, lines = without_blank_lines(data)
    try:
        frame = pl.read_csv(
            data,  # polars reads bytes at twice the speed of a StringIO
            infer_schema=False,
            null_values=NULL_VALUES,
            raise_if_empty=True,
        )
    except pl.exceptions.NoDataError as exc:
        raise IngestError.one(file, "the file is empty") from exc
    except pl.exceptions.PolarsError as exc:
        raise IngestError.one(file, f"not a readable CSV ({_first_line(exc)})") from exc
    if not frame.columns or not looks_like_canonical(frame.columns):
        raise IngestError.one(
            file,
            "not a canonical CSV: the header names none of the known columns "
            "(see /api/templates/sweep.csv)",
            row=1,
        )
    # Exports neutralise formula-like text with a leading quote; reading undoes exactly that,
    # so an exported sweep imports back unchanged.
    trimmed = pl.col(pl.String).str.strip_chars()
    if b"'" in data:  # the regex costs more than the read: only when a cell may need it
        trimmed = trimmed.str.replace(r"^'([=+\-@])", "$1")
    if lines is not None:
        frame = frame.with_columns(pl.Series(ROW, lines, dtype=pl.Int64))
    return without_blank_rows(frame.with_columns(trimmed))


def _header_text(data: bytes) -> str:
    """The header record: the first line, or more while a quoted name spans a line break."""
    end = data.find(b"\n")
    head = data if end < 0 else data[: end + 1]
    return (data if head.count(b'"') % 2 else head).decode()


def typed_frame(
    file: str, frame: pl.DataFrame, kinds: dict[str, str], errors: list[RowError]
) -> pl.DataFrame:
    """Cast known columns to their explicit types, recording each cell that does not parse."""
    casts = []
    for name in frame.columns:
        kind = kinds.get(name)
        if kind is None or kind == "str":
            continue
        raw = pl.col(name)
        if kind == "float":
            typed = raw.str.strip_prefix("+").cast(pl.Float64, strict=False)
        elif kind == "int":
            as_float = raw.cast(pl.Float64, strict=False)
            typed = (
                pl.when(as_float == as_float.round(0)).then(as_float).cast(pl.Int64, strict=False)
            )
        elif kind == "bool":
            lowered = raw.str.to_lowercase()
            typed = (
                pl.when(lowered.is_in(TRUE_WORDS))
                .then(True)
                .when(lowered.is_in(FALSE_WORDS))
                .then(False)
                .otherwise(None)
            )
        else:
            typed = raw.str.to_date("%Y-%m-%d", strict=False)
        casts.append(typed.alias(name))
    typed_df = frame.with_columns(casts) if casts else frame
    expected = {"float": "a number", "int": "a whole number", "bool": "true or false"}
    checked = [n for n in frame.columns if kinds.get(n) not in (None, "str")]
    # A cast turns no null into a value, so a column with more nulls typed than read has cells
    # that did not parse (null counts are kept with the columns: no pass over the cells); only
    # such a column is looked into.
    for name in checked:
        kind = kinds.get(name)
        if typed_df[name].null_count() == frame[name].null_count():
            continue
        bad = frame.select(_rows(frame), pl.col(name).alias("raw")).filter(
            pl.col("raw").is_not_null() & typed_df[name].is_null()
        )
        for line, raw in bad.head(5).iter_rows():
            want = expected.get(kind or "", "a date (YYYY-MM-DD)")
            shown = repr(raw if len(raw) <= 40 else raw[:40] + "…")  # never echo a huge cell
            errors.append(RowError(file, f"{shown} is not {want}", row=line, column=name))
    return typed_df


def _rows(frame: pl.DataFrame) -> pl.Expr:
    """Each row's line in the file: ROW when read by read_frame, else counted from row 2."""
    if ROW in frame.columns:
        return pl.col(ROW)
    return pl.int_range(2, pl.len() + 2, dtype=pl.Int64).alias(ROW)


def parse_sweeps_csv(
    file: str, text: str | bytes, defaults: dict[str, Any], require_meta: bool = True
) -> list[ParsedSweep]:
    """Canonical points CSV → sweeps; `defaults` fill sweep-level values the file leaves empty.

    With `require_meta=False` (the upload preview) missing sweep name, hardware and GPU count
    are left for the user to fill instead of being errors.
    """
    frame = read_frame(file, text)
    if frame.height == 0:
        raise IngestError.one(file, "the file has a header but no rows", row=1)
    errors: list[RowError] = Problems()
    kinds = {name: c.kind for name, c in COLUMNS_BY_NAME.items()}
    typed = typed_frame(file, frame, kinds, errors)
    required = REQUIRED_META + ("output_tok_s",) if require_meta else ("output_tok_s",)
    if not errors and frame.height >= COLUMNS_MIN_ROWS:
        # A file with nothing to report is checked and grouped as columns (canonical_rows).
        filled = canonical_rows.with_defaults(typed, defaults)
        if not _header_errors(file, frame.columns, defaults, required) and canonical_rows.clean(
            filled, required, NON_NEGATIVE
        ):
            sweeps = canonical_rows.group(file, filled, FORMAT_SWEEPS)
            if sweeps is not None:
                return sweeps
    filled = canonical_rows.with_defaults(typed, defaults)
    errors += _header_errors(file, frame.columns, defaults, required)
    skip_required = bool(errors)  # a file whose header or cells are wrong: those first
    rows: list[dict[str, Any]] = []
    # Row by row, a slice at a time, until MAX_LISTED problems are listed; the rest of the file
    # is then counted as columns (a million bad rows cost a count, not a million messages).
    for start in range(0, filled.height, ROWS_PER_SLICE):
        part = filled.slice(start, ROWS_PER_SLICE).to_dicts()
        if not skip_required:
            _check_required(file, frame.columns, part, required, errors)
        check_values(file, part, errors)
        rows += part
        if isinstance(errors, Problems) and errors.unlisted:
            rest = filled.slice(start + ROWS_PER_SLICE)
            for kind, found in canonical_rows.problem_counts(
                rest, () if skip_required else required, NON_NEGATIVE, POSITIVE
            ):
                errors.count_more(kind, found)
            break
    if errors:
        raise IngestError(errors)
    return _group_sweeps(file, rows, errors)


def _check_required(
    file: str,
    columns: list[str],
    rows: list[dict[str, Any]],
    required: tuple[str, ...],
    errors: list[RowError],
) -> None:
    tpot = [c for c in TPOT_COLUMN_NAMES if c in columns]
    for i, row in enumerate(rows):
        line = row.get(ROW, i + 2)
        for name in required:
            if row.get(name) in (None, ""):
                errors.append(RowError(file, "required value is empty", line, name))
        if row.get("concurrency") is None and row.get("request_rate") is None:
            errors.append(RowError(file, "neither concurrency nor request_rate is set", line))
        if all(row.get(c) is None for c in tpot):
            errors.append(RowError(file, "no TPOT statistic is set", line, "tpot_p50_ms"))


def _header_errors(
    file: str, columns: list[str], defaults: dict[str, Any], required: tuple[str, ...]
) -> list[RowError]:
    errors = []
    for name in required:
        if name not in columns and defaults.get(name) in (None, ""):
            if name == "output_tok_s":
                errors.append(RowError(file, f"required column {name!r} is missing", row=1))
                continue
            message = f"required column {name!r} is missing and {FIELD_MARK} was not given"
            errors.append(RowError(file, message, row=1, field=name))
    for name in POINT_SPLIT_KEYS:
        if name in columns:
            # Where a point keeps its own split: a column of that name would bypass the hash.
            message = (
                f"column {name!r} is reserved: give each row's split as num_prefill_gpus and "
                "num_decode_gpus"
            )
            errors.append(RowError(file, message, row=1, field=name))
    if "concurrency" not in columns and "request_rate" not in columns:
        errors.append(RowError(file, "needs a 'concurrency' or a 'request_rate' column", row=1))
    if not set(TPOT_COLUMN_NAMES) & set(columns):
        errors.append(
            RowError(file, f"needs at least one TPOT statistic ({', '.join(TPOT_COLUMN_NAMES)})", 1)
        )
    return errors


def _group_sweeps(
    file: str, rows: list[dict[str, Any]], errors: list[RowError]
) -> list[ParsedSweep]:
    sweeps: dict[str, ParsedSweep] = {}
    splits: dict[str, list[tuple[Any, Any]]] = {}  # each point's own split, by sweep
    for i, row in enumerate(rows):
        line = row.get(ROW, i + 2)
        name = str(row.get("sweep") or "")
        meta = {k: row.get(k) for k in SWEEP_COLUMN_NAMES if row.get(k) not in (None, "")}
        point = _point_of(row, line)
        splits.setdefault(name, []).append(
            (meta.get("num_prefill_gpus"), meta.get("num_decode_gpus"))
        )
        sweep = sweeps.get(name)
        if sweep is None:
            sweeps[name] = ParsedSweep(meta, [point], file, FORMAT_SWEEPS, first_row=line)
            continue
        _merge_meta(sweep, meta, (file, line, name), errors)
        sweep.points.append(point)
    if errors:
        raise IngestError(errors)
    for name, sweep in sweeps.items():
        canonical_rows.keep_point_splits(sweep, splits[name])
    return list(sweeps.values())


def _point_of(row: dict[str, Any], line: int) -> ParsedPoint:
    """A row's point: its point columns, and the columns no canonical field names as extras."""
    return ParsedPoint(
        values={k: row[k] for k in POINT_COLUMN_NAMES if row.get(k) is not None},
        row=line,
        extra={
            k: v
            for k, v in row.items()
            if k not in COLUMNS_BY_NAME and v is not None and not k.startswith("__")
        },
    )


def _merge_meta(
    sweep: ParsedSweep, meta: dict[str, Any], where: tuple[str, int, str], errors: list[RowError]
) -> None:
    """A later row's sweep fields into its sweep's: a field given twice must agree (the split
    excepted: it may change along a sweep, and is kept per point)."""
    file, line, name = where
    for key in SWEEP_COLUMN_NAMES:
        have, new = sweep.meta.get(key), meta.get(key)
        if key in SPLIT_COLUMNS:  # may change along a sweep: kept per point below
            if have is None and new is not None:
                sweep.meta[key] = new
        elif new is not None and have is not None and new != have:
            errors.append(
                RowError(
                    file,
                    f"sweep {name!r} has {key} {have!r} on row {sweep.first_row} but {new!r} here",
                    line,
                    key,
                )
            )
        elif new is not None:
            sweep.meta[key] = new


def parse_requests_csv(file: str, text: str) -> pl.DataFrame:
    """Canonical per-request CSV → typed frame (sweep, concurrency, request_rate, samples)."""
    frame = read_frame(file, text)
    errors: list[RowError] = Problems()
    for name in ("sweep", "ttft_ms", "e2el_ms", "output_len", "ok"):
        if name not in frame.columns:
            errors.append(RowError(file, f"required column {name!r} is missing", row=1))
    if "concurrency" not in frame.columns and "request_rate" not in frame.columns:
        errors.append(RowError(file, "needs a 'concurrency' or a 'request_rate' column", row=1))
    if errors:
        raise IngestError(errors)
    typed = typed_frame(file, frame, REQUEST_TYPES, errors)
    for name in ("concurrency", "request_rate", "input_len"):
        if name not in typed.columns:
            typed = typed.with_columns(pl.lit(None, POLARS_TYPES[REQUEST_TYPES[name]]).alias(name))
    checks = {
        "sweep": (pl.col("sweep").is_null(), "required value is empty"),
        "ok": (pl.col("ok").is_null(), "required value is empty"),
        "ttft_ms": (
            pl.col("ok") & (pl.col("ttft_ms").is_null() | ~pl.col("ttft_ms").is_finite()),
            "a successful request needs a finite TTFT",
        ),
        "e2el_ms": (
            pl.col("ok") & (pl.col("e2el_ms").is_null() | ~pl.col("e2el_ms").is_finite()),
            "a successful request needs a finite E2EL",
        ),
        "output_len": (
            pl.col("ok") & (pl.col("output_len").is_null() | (pl.col("output_len") < 1)),
            "a successful request needs an output length of at least 1",
        ),
    }
    negative = {
        name: (pl.col(name) < 0, "is negative")
        for name in ("ttft_ms", "e2el_ms", "output_len", "input_len")
    }
    above = {"ttft_ms ": (pl.col("ttft_ms") > pl.col("e2el_ms"), "TTFT is above E2EL")}
    for column, (condition, message) in {**checks, **negative, **above}.items():
        bad = typed.filter(condition.fill_null(False)).head(5)
        for line in bad[ROW].to_list():
            errors.append(RowError(file, message, row=line, column=column.strip()))
    if errors:
        raise IngestError(errors)
    return typed.select(
        "sweep",
        "concurrency",
        "request_rate",
        "ttft_ms",
        "e2el_ms",
        "output_len",
        "input_len",
        "ok",
        ROW,
    )


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
