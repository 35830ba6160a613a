"""A read-off as JSON: the shape /api/readoff, the pages' JSON twins and the claim audit share."""

from __future__ import annotations

import math
from typing import Literal, TypedDict

from sqlalchemy.orm import Session

from app.domain.accounting import UNIT_WORDS, Split, split_label
from app.domain.checks import Check
from app.domain.failures import Failed
from app.domain.intervals import DEFAULT_LEVEL, Interval
from app.domain.readoff_intervals import ReadoffIntervals
from app.domain.sessions import axis_words
from app.domain.slo import Readoff
from app.domain.verdict import Verdict
from app.schemas.answers.typed.common import CiFieldsDict, FigureIntervalDict
from app.schemas.answers.typed.readoff import (
    EstimateOutDict,
    ExcludedPointDict,
    FailedRequestsDict,
    FrontierPointDict,
    LimitCheckDict,
    OperatingPointDict,
    PointVerdictDict,
    PriceCellOutDict,
    PriceColumnOutDict,
    ReadoffIntervalsDict,
    ReadoffOutDict,
    ReadoffResultDict,
    ReadoffRowDict,
    SloOutDict,
    SweepCostDict,
    SweepFrontierDict,
)
from app.schemas.readoff import ReadoffQuery
from app.services import analysis
from app.services.analysis import Params, SweepAnalysis
from app.services.readoff import (
    energy,
    histograms,
    price_columns,
    token_classes,
    ttft_context,
    units_shown,
)
from app.services.readoff.intervals import cost_interval
from app.services.readoff.price_columns import PriceCell, PriceColumn
from app.services.readoff.query import params_of
from app.services.sweeps.sessions import agents_json, sessions_json, turns_json


def slo_json(query: ReadoffQuery, params: Params) -> SloOutDict:
    slo = params.slo
    return {
        "ttft_ms": slo.ttft_ms,
        "tpot_ms": slo.tpot_ms,
        "e2el_ms": slo.e2el_ms,
        "min_tok_s_user": slo.min_tok_s_user,
        "percentile": slo.percentile,
        "ttft_percentile": slo.stat("ttft"),
        "tpot_percentile": slo.stat("tpot"),
        "e2el_percentile": slo.stat("e2el"),
        "mode": query.mode,
        "attainment": slo.attainment,
        "basis": params.basis,
        "stat": params.stat,
        "interpolation": params.interpolation,
        "description": slo.describe(per_request=query.mode == "requests"),
        "ci_level": params.ci_level,
        "accounting": params.accounting,
        "throughput_per": UNIT_WORDS[params.accounting],
        "interactivity": params.interactivity,
        "interactivity_axis": axis_words(params.interactivity, params.stat, params.e2e_percentile),
    }


def operating_split(result: SweepAnalysis) -> str | None:
    """The operating point's own prefill:decode split (the sweep's when it has one split)."""
    if not result.point_splits:
        return result.split
    own = operating_split_counts(result)
    return None if own is None else split_label(*own)


def operating_split_counts(result: SweepAnalysis) -> Split | None:
    """(prefill, decode GPUs) of the operating point: its own, else the sweep's."""
    op = result.readoff.operating_point
    if not result.point_splits:
        return (result.meta.num_prefill_gpus, result.meta.num_decode_gpus)
    if op is None:
        return None
    ids = (p.point_id for p in result.points)
    return next(
        (s for i, s in zip(ids, result.point_splits, strict=True) if i == op.point_id), None
    )


def operating_point_json(result: SweepAnalysis) -> OperatingPointDict | None:
    """The read-off's operating point: the same in every accounting mode (issue 45)."""
    op = result.readoff.operating_point
    if op is None:
        return None
    return {
        "point_id": op.point_id,
        "concurrency": op.concurrency,
        "request_rate": _finite(op.request_rate),
        "interactivity_tok_s_user": op.interactivity_tok_s_user,
        **e2e_field(result, op.point_id),
        "split": operating_split(result),
    }


def e2e_at(result: SweepAnalysis, point_id: int) -> float | None:
    """The point's E2E-normalized interactivity, when its samples were read."""
    found = None if result.sessions is None else result.sessions.e2e.get(point_id)
    return None if found is None else found.tok_s_user


class E2eField(TypedDict, total=False):
    """`e2e_interactivity_tok_s_user`, there only where it is known."""

    e2e_interactivity_tok_s_user: float


def e2e_field(result: SweepAnalysis, point_id: int) -> E2eField:
    """`e2e_interactivity_tok_s_user` where it is known, else nothing: answers stay small
    (an assistant's compare of ten sweeps fits in 8,000 characters)."""
    value = e2e_at(result, point_id)
    return {} if value is None else {"e2e_interactivity_tok_s_user": value}


def result_json(result: SweepAnalysis, with_points: bool = False) -> ReadoffResultDict:
    readoff: Readoff = result.readoff
    ivs = result.intervals
    level = ivs.level if ivs is not None else DEFAULT_LEVEL
    data: ReadoffResultDict = {
        "sweep_id": result.meta.id,
        "name": result.meta.name,
        "hardware": result.meta.hardware,
        "num_gpus": result.meta.num_gpus,
        "num_prefill_gpus": result.meta.num_prefill_gpus,
        "num_decode_gpus": result.meta.num_decode_gpus,
        # "8P + 8D", or "varies: 4P + 12D … 8P + 8D (3 splits)" when it changes along the sweep.
        "split": result.split,
        # What every tok_s_per_gpu figure here is counted per (issue 37's accounting modes).
        "throughput_per": units_shown.unit_words(result),
        "status": readoff.shown_status,
        "borderline_reason": None if ivs is None else ivs.borderline_reason,
        "failed_requests": failed_json(result.failed_requests),
        "meets_slo": readoff.meets_slo,
        "reason": readoff.reason,
        "goodput_tok_s_per_gpu": readoff.goodput_tok_s_per_gpu,
        "goodput_requests_per_s": readoff.goodput_requests_per_s,
        "goodput_statistic": None if ivs is None else ivs.statistic,
        "best_run_tok_s_per_gpu": None if ivs is None else ivs.best_run_tok_s_per_gpu,
        "operating_point": operating_point_json(result),
        "estimate": _estimate_json(result),
        "tok_s_per_mw": result.tok_s_per_mw,
        # Multi-turn runs (issue 49): sessions and turns at the operating point, agents at the
        # SLO over the load levels; every figure null with `reason` where unknown.
        "sessions": sessions_json(result.sessions),
        "turns": turns_json(result.sessions),
        "agents": agents_json(result.sessions),
        "scenario": result.meta.scenario,
        "tokens_per_joule": energy.as_json(energy.of(result)),
        "joint_attainment_bounds": readoff.joint_attainment_bounds,
        "note": readoff.note,
        "ci_level": level,
        "intervals": None if ivs is None else _intervals_json(ivs),
        "costs": _costs_json(result),
    }
    if with_points:
        data["points"] = [_point_verdict_json(v) for v in readoff.verdicts]
    return data


def _estimate_json(result: SweepAnalysis) -> EstimateOutDict | None:
    """The goodput estimated between two measured loads, where the read-off made one."""
    estimate = result.readoff.estimate
    if estimate is None or result.estimate_tok_s_per_gpu is None:
        return None
    return {
        "tok_s_per_gpu": result.estimate_tok_s_per_gpu,
        "load": estimate.load,
        "interactivity_tok_s_user": estimate.interactivity_tok_s_user,
        "between_point_ids": list(estimate.between),
        "label": estimate.label,
    }


def _intervals_json(ivs: ReadoffIntervals) -> ReadoffIntervalsDict:
    return {
        "goodput_tok_s_per_gpu": interval_json(ivs.goodput_tok_s_per_gpu),
        "goodput_requests_per_s": interval_json(ivs.goodput_requests_per_s),
        "attainment": interval_json(ivs.attainment),
        # The attainment interval that makes a borderline read-off borderline (else null).
        "borderline_attainment": None
        if ivs.borderline_attainment is None
        else interval_json(ivs.borderline_attainment),
    }


def _costs_json(result: SweepAnalysis) -> list[SweepCostDict]:
    """$/Mtok under each price of the sweep's own GPU (never another's)."""
    return [
        {
            "profile_id": c.price.profile_id,
            "name": c.price.name,
            "usd_per_gpu_hour": c.price.usd_per_gpu_hour,
            "utilization": c.price.utilization,
            "usd_per_mtok": c.usd_per_mtok,
            "reason": c.reason,
            **ci_fields(cost_interval(result, c)),
        }
        for c in result.costs
        if c.price.applies_to(str(result.meta.hardware or ""))
    ]


def _point_verdict_json(v: Verdict) -> PointVerdictDict:
    """One load's verdict and each limit's check."""
    return {
        "point_id": v.point_id,
        "status": v.shown_status,
        "reason": v.reason,
        "attainment": v.attainment,
        "attainment_ci_low": None if v.attainment_ci is None else v.attainment_ci[0],
        "attainment_ci_high": None if v.attainment_ci is None else v.attainment_ci[1],
        # Repeated runs at this load that disagree on the SLO (else null).
        "runs_meeting_slo": None if v.runs is None else v.runs[0],
        "runs_at_load": None if v.runs is None else v.runs[1],
        "checks": [_check_json(c) for c in v.checks],
    }


def _check_json(c: Check) -> LimitCheckDict:
    return {
        "metric": c.metric,
        "percentile": c.stat,
        "value_ms": c.value_ms,
        "limit_ms": c.limit_ms,
        "status": c.status,
        "source": c.source,
        "n_samples": c.n_samples,
        # TPOT from samples: successful one-token requests left out (no TPOT).
        "n_without_tpot": c.undefined,
        # The samples contradict a stored percentile, which bounds the value.
        "bound": None
        if c.bound is None
        else {
            "stored_percentile": c.bound.stored,
            "stored_ms": c.bound.stored_ms,
            "samples_ms": c.bound.sample_ms,
            "side": "at_least" if c.bound.at_least else "at_most",
        },
    }


def failed_json(failed: Failed | None) -> FailedRequestsDict | None:
    """Failed requests beside a verdict: counts and "3 of 10 failed"; null without failures."""
    if failed is None:
        return None
    return {"failed": failed.failed, "issued": failed.issued, "text": failed.text()}


def frontier_json(result: SweepAnalysis, params: Params) -> SweepFrontierDict:
    def point(i: int) -> FrontierPointDict:
        p = result.points[i]
        x, y = result.xs[i], result.ys[i]
        assert x is not None and y is not None  # frontier and dominated points are drawn
        return {
            "point_id": p.point_id,
            "concurrency": p.concurrency,
            "request_rate": _finite(p.request_rate),
            "x": x,
            "y": y,
            "split": split_label(*result.point_splits[i]) if result.point_splits else result.split,
        }

    excluded: list[ExcludedPointDict] = []
    for i in range(len(result.points)):
        reason = result.excluded_reason(i, params)
        if reason is not None:
            excluded.append({"point_id": result.points[i].point_id, "reason": reason})
    return {
        "sweep_id": result.meta.id,
        "name": result.meta.name,
        "frontier": [point(i) for i in result.frontier],
        "dominated": [point(i) for i in result.dominated],
        "excluded": excluded,
    }


def _finite(value: float | None) -> float | Literal["inf"] | None:
    return "inf" if value is not None and math.isinf(value) else value


def interval_json(interval: Interval) -> FigureIntervalDict:
    """A figure and its interval: value, ci_low, ci_high, ci_level, ci_method, ci_reason."""
    return {"value": interval.value, **ci_fields(interval)}


def ci_fields(interval: Interval | None) -> CiFieldsDict:
    """The interval keys every figure carries (null ends, with the reason, when there is none)."""
    if interval is None:
        return {
            "ci_low": None,
            "ci_high": None,
            "ci_level": None,
            "ci_method": None,
            "ci_reason": "no interval",
        }
    return {
        "ci_low": interval.low,
        "ci_high": interval.high,
        "ci_level": interval.level,
        "ci_method": interval.method if interval.known else None,
        "ci_reason": interval.reason,
    }


def price_cells_json(
    cells: list[PriceCell], result: SweepAnalysis | None = None
) -> list[PriceCellOutDict]:
    """One entry per price column: the price of the sweep's own GPU (or the user's) and its
    $/Mtok, or nulls with the reason (never another GPU's price)."""
    out: list[PriceCellOutDict] = []
    for cell in cells:
        cost = cell.cost
        out.append(
            {
                "label": cell.label,
                "price": None if cost is None else cost.price.name,
                "profile_id": None if cost is None else cost.price.profile_id,
                "usd_per_gpu_hour": cell.usd_per_gpu_hour,
                "usd_per_mtok": cell.usd_per_mtok,
                "reason": cell.reason,
                **ci_fields(
                    None if cost is None or result is None else cost_interval(result, cost)
                ),
            }
        )
    return out


def run_query(
    session: Session, sweep_ids: list[int], query: ReadoffQuery
) -> tuple[Params, list[SweepAnalysis], list[PriceColumn]]:
    """Analyse the sweeps at the query's SLO, priced by its price columns (as on the pages)."""
    params = params_of(query)
    columns = price_columns.columns_for(
        session, query.price_set, query.pricing, query.usd_per_gpu_hour
    )
    results, _ = analysis.run(
        session, sweep_ids, params, price_columns.profile_ids(columns), query.usd_per_gpu_hour
    )
    return params, results, columns


def readoff_document(session: Session, sweep_ids: list[int], query: ReadoffQuery) -> ReadoffOutDict:
    """/api/readoff's body: the SLO, the price columns and per sweep its read-off and prices."""
    params, results, columns = run_query(session, sweep_ids, query)
    return readoff_body(query, params, results, columns, session)


def readoff_body(
    query: ReadoffQuery,
    params: Params,
    results: list[SweepAnalysis],
    columns: list[PriceColumn],
    session: Session | None = None,
) -> ReadoffOutDict:
    """The read-off document of analysed sweeps (shared by /api/readoff and the claim audit);
    with a session, token classes read the sweeps' request samples too."""
    prices = query.class_prices()
    body: list[ReadoffRowDict] = []
    for r in results:
        cells = price_columns.price_cells(r, columns)
        body.append(
            {
                **result_json(r, with_points=query.points),
                "price_cells": price_cells_json(cells, r),
                "token_classes": token_classes.result_json(session, r, prices, cells, query.points),
                "ttft_vs_context": ttft_context.result_json(session, r, params, query.points),
                # Attainment bounds off the latency histograms a file kept (issue 51).
                **histograms.result_json(r, params.slo),
            }
        )
    return {
        "slo": slo_json(query, params),
        "price_columns": _columns_json(columns),
        "results": body,
    }


def _columns_json(columns: list[PriceColumn]) -> list[PriceColumnOutDict]:
    return [{"label": c.label, "profile_ids": c.profile_ids} for c in columns]
