"""TTFT against prompt length at a read-off's operating point (and each point when asked): TTFT
by input-length bucket, the fitted prefill rate with its interval, and the prompt length at
which the fitted TTFT reaches the SLO's TTFT limit, from the sweep's request samples (issue 50)."""

from __future__ import annotations

import polars as pl
from sqlalchemy.orm import Session

from app.domain.prefill_fit import PrefillFit, buckets, fit_prefill
from app.schemas.answers.typed.ttft_context import TtftContextOutDict, TtftContextPointDict
from app.services.analysis import Params, SweepAnalysis
from app.store import points as point_queries

FIT_WORDS = (
    "least squares of TTFT on input tokens over the point's successful requests: TTFT = "
    "intercept + input tokens ÷ prefill_tok_s; the interval is Student's t on the slope"
)


def samples_of(session: Session | None, result: SweepAnalysis) -> pl.DataFrame | None:
    """The sweep's request samples: those the analysis read, else the store's (cached)."""
    if result.samples is not None:
        return result.samples
    if session is None:
        return None
    return point_queries.samples_frame(session, [p.point_id for p in result.points])


def point_json(
    samples: pl.DataFrame | None, point_id: int | None, limit_ms: float | None, level: float
) -> TtftContextPointDict:
    """One point's TTFT against input length (null figures with the reason when unknown)."""
    body: TtftContextPointDict = {
        "point_id": point_id,
        "n": 0,
        "prefill_tok_s": None,
        "ci_low": None,
        "ci_high": None,
        "ci_level": level,
        "intercept_ms": None,
        "ms_per_token": None,
        "ttft_limit_ms": limit_ms,
        "crossing_input_tokens": None,
        "buckets": [],
        "fit": FIT_WORDS,
        "reason": "no request samples",
    }
    if samples is None or samples.is_empty():
        return body
    mine = samples.filter(
        (pl.col("point_id") == point_id)
        & pl.col("ok").fill_null(False)
        & pl.col("ttft_ms").is_not_null()
        & pl.col("input_len").is_not_null()
    )
    xs = mine["input_len"].cast(pl.Float64).to_list()
    ys = mine["ttft_ms"].to_list()
    body["n"] = len(xs)
    body["buckets"] = [
        {
            "input_tokens_low": b.low,
            "input_tokens_high": b.high,
            "n": b.n,
            "median_ttft_ms": b.median_ttft_ms,
            "max_ttft_ms": b.max_ttft_ms,
        }
        for b in buckets(xs, ys)
    ]
    fit = fit_prefill(xs, ys, level)
    if not isinstance(fit, PrefillFit):
        body["reason"] = fit
        return body
    low, high = fit.prefill_interval
    body["prefill_tok_s"] = fit.prefill_tok_s
    body["ci_low"], body["ci_high"] = low, high
    body["intercept_ms"] = fit.intercept_ms
    body["ms_per_token"] = fit.ms_per_token
    body["crossing_input_tokens"] = None if limit_ms is None else fit.crossing_tokens(limit_ms)
    body["reason"] = None if fit.prefill_tok_s else "TTFT does not grow with the prompt here"
    return body


def result_json(
    session: Session | None, result: SweepAnalysis, params: Params, with_points: bool
) -> TtftContextOutDict | None:
    """At the operating point, with every point's under `points` when asked; None without an
    operating point and without points asked."""
    samples = samples_of(session, result)
    limit, level = params.slo.ttft_ms, params.ci_level
    op = result.readoff.operating_point
    at = None if op is None else point_json(samples, op.point_id, limit, level)
    if not with_points:
        return None if at is None else {**at, "points": None}
    rows = [point_json(samples, p.point_id, limit, level) for p in result.points]
    return {**(at or _none(limit, level)), "points": rows}


def _none(limit: float | None, level: float) -> TtftContextPointDict:
    return {**point_json(None, None, limit, level), "reason": "no operating point"}
