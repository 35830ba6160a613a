"""GET /api/compare: the Compare page as JSON."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.domain.compare import Distinction
from app.http import explore_state
from app.http.answers import json_answer
from app.http.compare_view import compare_context
from app.http.deps import SessionDep
from app.schemas.answers.compare import CompareAnswer
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services import comparison
from app.services.compare_intervals import PairIntervals
from app.services.readoff_json import ci_fields

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.get(
    "/compare",
    name="api_compare",
    responses=answered_with(CompareAnswer),
)
def api_compare(request: Request, session: SessionDep) -> Response:
    """The Compare page as JSON: every pair's ratio curve, headlines and read-off ratio."""
    context = compare_context(session, explore_state.parse(request.query_params))
    groups: list[comparison.PriceGroup] = context["groups"]
    body = {
        "query": context["state"].canonical_query(),
        "baseline": context["results"][0].meta.id if context["results"] else None,
        "dropped": [{"id": s.id, "name": s.name} for s in context["state"].dropped],
        "price_columns": [g.label for g in groups],
        "pairs": [
            pair_json(p, groups, iv)
            for p, iv in zip(context["pairs"], context["pair_intervals"], strict=True)
        ],
        "figures": {
            "throughput_ratio": context["ratio_figure"],
            "cost_ratio": context["cost_figure"],
            "sensitivity": context["sensitivity_figure"],
        },
    }
    return json_answer(body)


def distinction_json(d: Distinction) -> dict[str, Any]:
    """A ratio's interval and whether it separates A from B, with the power estimate."""
    sep = d.separation
    return {
        **ci_fields(d.ratio),
        "distinguishable": d.distinguishable,
        "verdict": d.text,
        "more_a": None if sep is None else sep.more_a,
        "more_b": None if sep is None else sep.more_b,
        "unit_a": None if sep is None else sep.unit_a,
        "unit_b": None if sep is None else sep.unit_b,
    }


def pair_json(
    pair: comparison.Pair,
    groups: list[comparison.PriceGroup],
    intervals: PairIntervals | None = None,
) -> dict[str, Any]:
    labels = [g.label for g in groups]
    return {
        "a": {"sweep_id": pair.a.meta.id, "name": pair.a.meta.name},
        "b": {"sweep_id": pair.b.meta.id, "name": pair.b.meta.name},
        "same_configuration": pair.likeness.same_configuration,
        "differences": pair.likeness.as_json(),
        "caveats": [{"kind": c.kind, "text": c.text} for c in pair.caveats],
        "shared_range_tok_s_user": pair.curve.shared_range,
        "reason": pair.curve.reason,
        "curve": [
            {
                "x_tok_s_user": p.x_tok_s_user,
                "a_tok_s_per_gpu": p.a_tok_s_per_gpu,
                "b_tok_s_per_gpu": p.b_tok_s_per_gpu,
                "throughput_ratio": p.throughput_ratio,
                "cost_ratios": [curve[i] for curve in pair.cost_curves],
                "at_range_end": list(pair.curve_ends[i]) if pair.curve_ends else [],
            }
            for i, p in enumerate(pair.curve.points)
        ],
        "headlines": [
            {
                "x_tok_s_user": h.x_tok_s_user,
                "throughput_ratio": h.throughput_ratio,
                "cost_ratios": dict(zip([g.label for g in groups], h.cost_ratios, strict=True)),
                "at_range_end": list(h.at_range_end),
                "interval": None if intervals is None else distinction_json(intervals.headlines[k]),
            }
            for k, h in enumerate(pair.headlines)
        ],
        "at_slo": {
            "a_goodput_tok_s_per_gpu": pair.a.readoff.goodput_tok_s_per_gpu,
            "b_goodput_tok_s_per_gpu": pair.b.readoff.goodput_tok_s_per_gpu,
            "throughput_ratio": pair.slo_ratio,
            "at_range_end": list(pair.slo_at_range_end),
            "cost_ratios": dict(zip([g.label for g in groups], pair.slo_cost_ratios, strict=True)),
            # Why a cost ratio is unknown: a system without its own GPU's price in the column.
            "cost_reasons": dict(zip(labels, pair.cost_reasons, strict=True)),
            "interval": None if intervals is None else distinction_json(intervals.slo),
            "cost_ratio_intervals": None
            if intervals is None
            else {
                label: ci_fields(iv) for label, iv in zip(labels, intervals.slo_costs, strict=True)
            },
        },
    }
