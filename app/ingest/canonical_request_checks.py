"""The row checks of a canonical per-request CSV, as polars expressions run on each chunk, and
the rows each flags (at most five per check over the whole file), named by file, row and
column."""

from __future__ import annotations

import polars as pl

from app.domain.phases import PHASE, PHASES
from app.ingest.errors import RowError
from app.ingest.parsed import CACHED_INPUT
from app.ingest.point_table import ROW

MAX_REPORTED_PER_CHECK = 5
MAX_SESSION_ID = 200  # characters: a conversation id (a UUID is 36)


def row_checks(columns: list[str]) -> list[tuple[str, pl.Expr, str]]:
    """The row checks, in the order they are reported.

    The same checks as before chunked reading: the earlier code kept these in a dict keyed by
    column, so the "negative" checks replaced the "successful request needs a finite TTFT /
    E2EL / output length" ones; kept that way so files accepted before are accepted now.
    """
    return [
        ("sweep", pl.col("sweep").is_null(), "required value is empty"),
        ("ok", pl.col("ok").is_null(), "required value is empty"),
        *(
            (name, pl.col(name) < 0, "is negative")
            for name in ("ttft_ms", "e2el_ms", "output_len", "input_len", CACHED_INPUT)
            if name in columns  # a missing input_len is empty: never negative
        ),
        ("ttft_ms", pl.col("ttft_ms") > pl.col("e2el_ms"), "TTFT is above E2EL"),
        *(
            # Cached tokens are part of the input: more cached than input is impossible.
            [(CACHED_INPUT, _cached_above_input("input_len" in columns), "is above input_len")]
            if CACHED_INPUT in columns
            else []
        ),
        *(
            [("turn_index", pl.col("turn_index") < 0, "is negative")]
            if "turn_index" in columns
            else []
        ),
        *(
            [
                (
                    "session_id",
                    pl.col("session_id").cast(pl.String).str.len_chars() > MAX_SESSION_ID,
                    f"is longer than {MAX_SESSION_ID} characters",
                )
            ]
            if "session_id" in columns
            else []
        ),
        *(
            [
                (
                    PHASE,
                    ~pl.col(PHASE).cast(pl.String).is_in(PHASES),
                    f"is not one of {', '.join(PHASES)}",
                )
            ]
            if PHASE in columns
            else []
        ),
    ]


def _cached_above_input(with_input: bool) -> pl.Expr:
    """Cached input tokens above the request's input length, or given without one (the split
    into uncached and cached input needs both)."""
    cached = pl.col(CACHED_INPUT)
    if not with_input:
        return cached.is_not_null()
    return cached.is_not_null() & (pl.col("input_len").is_null() | (cached > pl.col("input_len")))


def name_rows(
    file: str,
    chunk: pl.DataFrame,
    checks: list[tuple[str, pl.Expr, str]],
    found: list[list[RowError]],
) -> None:
    """The rows of this chunk each check flags, up to five per check over the whole file."""
    for i, (column, condition, message) in enumerate(checks):
        if len(found[i]) >= MAX_REPORTED_PER_CHECK:
            continue
        rows = chunk.filter(condition.fill_null(False))[ROW].head(MAX_REPORTED_PER_CHECK)
        found[i] += [RowError(file, message, row=r, column=column) for r in rows.to_list()]
        del found[i][MAX_REPORTED_PER_CHECK:]
