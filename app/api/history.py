"""GET /api/history: the History page as JSON."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import SessionDep
from app.schemas.answers.history import HistoryAnswer
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.views import explore_state
from app.views.answers import json_answer
from app.views.history import history_context, sessions_fields

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.get(
    "/history",
    name="api_history",
    responses=answered_with(HistoryAnswer),
)
def api_history(request: Request, session: SessionDep) -> Response:
    """The History page as JSON: per configuration, each sweep's date, goodput and costs."""
    context = history_context(session, explore_state.parse(request.query_params))
    body = {
        "query": context["state"].canonical_query(),
        "configurations": [
            {
                "config": h.config,
                "label": h.label,
                "sweeps": [
                    {
                        "sweep_id": r.result.meta.id,
                        "name": r.result.meta.name,
                        "date": r.date.isoformat() if r.date else None,
                        "date_source": r.date_source,
                        "uploaded": r.uploaded.isoformat() if r.uploaded else None,
                        "goodput_tok_s_per_gpu": r.result.readoff.goodput_tok_s_per_gpu,
                        # Repeated passing runs: the goodput is their geometric mean; the best.
                        "goodput_statistic": None
                        if r.result.intervals is None
                        else r.result.intervals.statistic,
                        "best_run_tok_s_per_gpu": None
                        if r.result.intervals is None
                        else r.result.intervals.best_run_tok_s_per_gpu,
                        "reason": r.result.readoff.reason,
                        "costs": [c.usd_per_mtok for c in context["cells"][r.result.meta.id]],
                        # Why a cost is null, e.g. no price for the sweep's GPU in the set.
                        "cost_reasons": [c.reason for c in context["cells"][r.result.meta.id]],
                        "regressions": [
                            m.as_json() for m in context["marks"].get(r.result.meta.id, [])
                        ],
                        "comparisons": [
                            m.as_json() for m in context["comparisons"].get(r.result.meta.id, [])
                        ],
                        "repeated_runs": [
                            {
                                "load": s.load,
                                "runs": s.runs,
                                "tok_s_per_gpu": [s.y_min, s.y_max],
                                "interactivity_tok_s_user": [s.x_min, s.x_max],
                            }
                            for s in context["spreads"][r.result.meta.id]
                        ],
                        **sessions_fields(r),
                    }
                    for r in h.rows
                ],
            }
            for h in context["histories"]
        ],
        "price_columns": [c.label for c in context["state"].price_columns],
        "figure": context["figure"],
        # Multi-turn configurations only (null without one): sessions and E2E speed by date.
        "sessions_figure": context["sessions_figure"],
        "e2e_figure": context["e2e_figure"],
    }
    return json_answer(body)
