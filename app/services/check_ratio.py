"""`check --scope slo`: the goodput's candidate ÷ baseline with its own interval
(app.domain.gate_ratio), read from what each side's operating point rests on: its requests
(per-request mode, paired where both replayed the same prompts in the same order) or the
repeated runs at its load that meet the SLO (percentile mode)."""

from __future__ import annotations

import polars as pl

from app.domain.gate_ratio import GateRatio, request_ratio, runs_ratio, same_prompts
from app.domain.intervals import Interval, none, ratio_interval
from app.domain.request_goodput import good_request_expr
from app.domain.slo import Readoff
from app.services.analysis import Params, SweepAnalysis
from app.services.intervals import goodput_interval

MIXED = "the two sides are read from different data (requests and runs)"


def goodput_ratio(
    baseline: SweepAnalysis,
    candidate: SweepAnalysis,
    params: Params,
    shown: tuple[float | None, float | None],
    readoffs: tuple[Readoff, Readoff] | None = None,
) -> GateRatio | None:
    """candidate ÷ baseline goodput, `shown` the two goodputs as the check reports them, at the
    read-offs' operating points (default each sweep's own; `check_matched` passes both pinned
    at one load). None when either goodput is missing."""
    b_value, c_value = shown
    if b_value is None or c_value is None or not b_value > 0:
        return None
    value = c_value / b_value
    b_ro, c_ro = readoffs or (baseline.readoff, candidate.readoff)
    b_tokens = _good_tokens(baseline, b_ro, params)
    c_tokens = _good_tokens(candidate, c_ro, params)
    if b_tokens is not None and c_tokens is not None:
        paired = same_prompts(b_tokens, c_tokens)
        return request_ratio(
            b_tokens["tokens"], c_tokens["tokens"], value, params.ci_level, paired
        )
    b_runs, c_runs = _passing_runs(baseline, b_ro, params), _passing_runs(candidate, c_ro, params)
    if b_runs is not None and c_runs is not None:
        return runs_ratio(b_runs, c_runs, value, params.ci_level)
    # One side per request, the other per run: Compare's ratio of the two intervals.
    level = params.ci_level
    found = ratio_interval(
        goodput_interval(candidate) or _no_interval(level), goodput_interval(baseline) or _no_interval(level)
    )
    if found.low is None or found.high is None or found.value is None or readoffs is not None:
        return GateRatio(value, None, None, params.ci_level, None, False, MIXED)
    k = value / found.value
    method = found.method or "ratio-log-normal"
    return GateRatio(value, found.low * k, found.high * k, params.ci_level, method, False)


def _no_interval(level: float) -> Interval:
    return none(None, level, "no interval")


def _good_tokens(result: SweepAnalysis, readoff: Readoff, params: Params) -> pl.DataFrame | None:
    """The operating point's requests in stored order: good tokens (0 for a miss or a failure)
    and input and output lengths; None in percentile mode or without samples there."""
    op, verdict = readoff.operating_point, readoff.operating_verdict
    samples = result.samples
    if op is None or verdict is None or verdict.requests is None or samples is None:
        return None
    rows = samples.filter(pl.col("point_id") == op.point_id)
    if rows.is_empty():
        return None
    good = good_request_expr(params.slo.limits())
    out_len = pl.col("output_len").fill_null(0).cast(pl.Float64)
    in_len = pl.col("input_len").fill_null(0).cast(pl.Float64)
    tokens = {"output": out_len, "total": out_len + in_len, "input": in_len}[params.basis]
    return rows.select(
        "input_len", "output_len", tokens=pl.when(good).then(tokens).otherwise(0.0)
    )


def _passing_runs(result: SweepAnalysis, readoff: Readoff, params: Params) -> list[float] | None:
    """Percentile mode: tok/s per GPU of each run at the operating load that meets the SLO (as
    the read-off's runs interval takes them); None per request or without an operating point."""
    op = readoff.operating_point
    if op is None or readoff.mode != "percentile":
        return None
    point = next((p for p in result.points if p.point_id == op.point_id), None)
    if point is None or point.load() is None:
        return None
    passing = {v.point_id for v in readoff.verdicts if v.status == "pass"}
    return [
        y
        for p in result.points
        if p.load() == point.load() and p.point_id in passing
        if (y := p.tok_s_per_gpu(params.basis)) is not None
    ]
