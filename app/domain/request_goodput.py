"""Per-request goodput counting (vLLM/DistServe semantics), vectorised over request samples.

Pure math: imports only the standard library and polars (no web, database or settings modules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import polars as pl

from app.domain.intervals import DEFAULT_LEVEL, wilson_bounds_expr
from app.domain.metrics import Basis
from app.domain.point import Metric

SAMPLE_SCHEMA: dict[str, pl.DataType] = {
    "point_id": pl.Int64(),
    "ttft_ms": pl.Float64(),
    "e2el_ms": pl.Float64(),
    "output_len": pl.Int64(),
    "input_len": pl.Int64(),
    "ok": pl.Boolean(),
}
# A stored request's session and turn (issue 49), null for a single-turn run: the store's
# frames carry them after SAMPLE_SCHEMA's columns; what does not read them needs neither.
SESSION_SCHEMA: dict[str, pl.DataType] = {"session_id": pl.String(), "turn_index": pl.Int32()}
# Its phase (app.domain.phases): warm-up or profiling, null where the file states none.
PHASE_SCHEMA: dict[str, pl.DataType] = {"phase": pl.String()}
STORED_SAMPLE_SCHEMA: dict[str, pl.DataType] = {**SAMPLE_SCHEMA, **SESSION_SCHEMA, **PHASE_SCHEMA}


@dataclass(frozen=True)
class RequestStats:
    """Per-request counts of one point: issued includes failures; goodputs over the wall time."""

    issued: int
    good: int
    attainment: float
    goodput_tok_s_per_gpu: float
    goodput_requests_per_s: float


def request_tpot_expr() -> pl.Expr:
    """Request TPOT as a per-request TPOT limit judges it, in ms: (E2EL − TTFT)/(n − 1).

    A one-token request has no TPOT (undefined, see `defined_tpot_expr`), so it cannot fail a
    TPOT limit: it is judged on its other limits. It is 0 here only so that it meets any TPOT
    limit; null if n is null. Never a TPOT to draw or take a percentile of."""
    n = pl.col("output_len")
    return (
        pl.when(n > 1)
        .then((pl.col("e2el_ms") - pl.col("ttft_ms")) / (n - 1))
        .when(n.is_not_null())
        .then(pl.lit(0.0))
    )


def defined_tpot_expr() -> pl.Expr:
    """Request TPOT in ms, (E2EL − TTFT)/(n − 1), for requests with n > 1 output tokens; null
    for a one-token request (no token after the first: TPOT is undefined) and for a missing n.
    CDFs, percentiles and limits read from samples use this, and say how many they leave out."""
    n = pl.col("output_len")
    return pl.when(n > 1).then((pl.col("e2el_ms") - pl.col("ttft_ms")) / (n - 1))


def one_token_expr() -> pl.Expr:
    """True for a successful request with at most one output token (it has no TPOT)."""
    return pl.col("ok").fill_null(False) & (pl.col("output_len") <= 1).fill_null(False)


def good_request_expr(limits: Sequence[tuple[Metric, float]]) -> pl.Expr:
    """True iff the request succeeded and met every (metric, limit ms), equality passing."""
    good = pl.col("ok").fill_null(False)
    for metric, limit in limits:
        value = request_tpot_expr() if metric == "tpot" else pl.col(f"{metric}_ms")
        good = good & (value <= limit).fill_null(False)
    return good


def request_goodput_frame(
    samples: pl.DataFrame, limits: Sequence[tuple[Metric, float]]
) -> pl.DataFrame:
    """Per point_id: issued, good, output and input tokens of good requests, in one group_by.

    A request is good iff ok and every (metric, limit ms) holds with equality passing; nulls
    (failed requests, missing values) never count as good. Columns: see SAMPLE_SCHEMA.
    """
    return (
        samples.lazy()
        .with_columns(good=good_request_expr(limits))
        .group_by("point_id")
        .agg(
            issued=pl.len(),
            good=pl.col("good").sum(),
            good_output_tokens=pl.col("output_len").filter(pl.col("good")).sum(),
            good_input_tokens=pl.col("input_len").filter(pl.col("good")).sum(),
            # Good requests without an input token count: no total or input goodput from them.
            good_missing_input=pl.col("input_len").filter(pl.col("good")).is_null().sum(),
        )
        .collect()
    )


class Counted(NamedTuple):
    """One point's requests at an SLO (request_counts): the counts, the good requests' tokens
    on the basis, the attainment and the ends of its Wilson interval."""

    issued: int
    good: int
    good_tokens: float
    attainment: float
    ci_low: float
    ci_high: float
    missing_input: int = 0  # good requests without an input token count

    def stats(self, duration_s: float, num_gpus: float) -> RequestStats:
        """As tests/oracles.py's `request_stats` (duration_s and num_gpus > 0, checked by the
        caller), made without the frozen dataclass's __init__: a read-off makes one per point."""
        made = object.__new__(RequestStats)
        made.__dict__.update(
            issued=self.issued,
            good=self.good,
            attainment=self.attainment,
            goodput_tok_s_per_gpu=self.good_tokens / duration_s / num_gpus,
            goodput_requests_per_s=self.good / duration_s,
        )
        return made


def request_counts(
    samples: pl.DataFrame,
    limits: Sequence[tuple[Metric, float]],
    basis: Basis,
    level: float = DEFAULT_LEVEL,
) -> dict[int, Counted]:
    """`Counted` per point id: request_goodput_frame, then the attainment and its Wilson
    interval at `level` as columns (one polars pass for every point of every sweep asked,
    each figure the float `request_stats` of tests/oracles.py and `wilson_bounds` give)."""
    counts = request_goodput_frame(samples, limits)
    out = pl.col("good_output_tokens").cast(pl.Float64).fill_null(0.0)
    inp = pl.col("good_input_tokens").cast(pl.Float64).fill_null(0.0)
    tokens = {"output": out, "total": out + inp, "input": inp}[basis]
    issued, good = pl.col("issued"), pl.col("good")
    low, high = wilson_bounds_expr(good, issued, level)
    table = counts.filter(issued > 0).select(
        pl.col("point_id"),
        issued.cast(pl.Int64),
        good.cast(pl.Int64),
        tokens.alias("tokens"),
        (good.cast(pl.Float64) / issued.cast(pl.Float64)).alias("attainment"),
        low.alias("low"),
        high.alias("high"),
        pl.col("good_missing_input").cast(pl.Int64).alias("missing_input"),
    )
    ids = table.get_column("point_id").to_list()
    return dict(zip(ids, map(Counted._make, table.drop("point_id").iter_rows()), strict=True))
