"""A request's phase (issue 49): warm-up or profiling, as the tool that ran it says.

Pure: polars and the standard library only. A request whose phase is not stated (null) is a
profiled one, as every request was before phases were kept: only a request the file calls
warm-up is left out of a read-off. The counts follow InferenceX's `request_accounting`
(utils/agentic/aggregation): records_total, records_profiled (profiling records without an
error), records_warmup_dropped, records_error_dropped, records_dropped_total.
"""

from __future__ import annotations

from typing import Any

import polars as pl

PHASE = "phase"
WARMUP = "warmup"
PROFILING = "profiling"
PHASES: tuple[str, ...] = (WARMUP, PROFILING)


def profiled_expr() -> pl.Expr:
    """True for a request of the measurement: its phase is profiling or not stated."""
    return pl.col(PHASE).is_null() | (pl.col(PHASE).cast(pl.String) != WARMUP)


def has_warmup(frame: pl.DataFrame) -> bool:
    """Whether any request of the frame is a warm-up one (cheap when the column is all null)."""
    if PHASE not in frame.columns or frame[PHASE].null_count() == frame.height:
        return False
    return bool(frame.select((pl.col(PHASE).cast(pl.String) == WARMUP).any()).item())


def profiled(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame's profiled requests (the frame itself when none is a warm-up one)."""
    return frame.filter(profiled_expr()) if has_warmup(frame) else frame


def accounting(frame: pl.DataFrame) -> dict[str, Any]:
    """InferenceX's request accounting of one point's samples: warm-up records apart, errored
    profiling records counted as error-dropped (they stay, as failed requests)."""
    warmup = int(frame.select((~profiled_expr()).sum()).item()) if has_warmup(frame) else 0
    measured = frame.height - warmup
    failed = ~pl.col("ok").fill_null(False)
    if PHASE in frame.columns:
        failed = failed & profiled_expr()
    errored = int(frame.select(failed.sum()).item())
    return {
        "records_total": frame.height,
        "records_profiled": measured - errored,
        "records_dropped_total": warmup + errored,
        "records_warmup_dropped": warmup,
        "records_error_dropped": errored,
    }
