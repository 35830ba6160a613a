"""GET /api/explore and /api/explore/picker: the Explore page and its series picker as JSON."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.domain.accounting import UNIT_WORDS
from app.http.deps import SessionDep
from app.schemas.answers.explore import ExploreAnswer, PickerAnswer
from app.schemas.answers.typed.explore import WorkGroupOutDict
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services import bands
from app.services import picker as series_picker
from app.services.readoff import answer
from app.services.readoff.document import price_cells_json, result_json, slo_json
from app.views import explore_state
from app.views.answers import json_answer
from app.views.explore import explore_context
from app.views.explore_state import ExploreState

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.get(
    "/explore/picker",
    name="api_explore_picker",
    responses=answered_with(PickerAnswer),
)
def api_explore_picker(request: Request, session: SessionDep) -> Response:
    """The series picker as JSON: the selection (capped, with what was dropped) and the newest
    matches of the filters and the search text `q`, grouped by model and hardware."""
    state = explore_state.resolve(session, explore_state.parse(request.query_params))
    return json_answer({"query": state.canonical_query(), **selection_json(state)})


def selection_json(state: ExploreState) -> dict[str, Any]:
    """The selection as the JSON twins report it: never a sweep dropped without its name."""
    leaders = state.leaders
    return {
        "selected": state.selected,
        "max_series": state.max_series,
        "dropped": [{"id": s.id, "name": s.name} for s in state.dropped],
        "leaders": None
        if leaders is None
        else {
            "chosen": leaders.chosen,
            "dropped": leaders.dropped,
            "frontier_points": {str(k): v for k, v in leaders.frontier_points.items()},
            "truncated": leaders.truncated,
            "group": None if leaders.group is None else group_json(leaders.group),
            "groups": [group_json(g) for g in leaders.groups],
            "needs_group": leaders.needs_group,
            "include_demo": leaders.include_demo,
            # The frontier was read per this unit, as the chart (issue 37's accounting modes).
            "ranked_per": UNIT_WORDS[leaders.accounting],
            "excluded": [{"id": i, "name": name} for i, name in leaders.excluded],
        },
        "picker": series_picker.picker_json(state.picker) if state.picker else None,
    }


def group_json(group: series_picker.WorkGroup) -> WorkGroupOutDict:
    return {"key": group.key, "label": group.label, "sweeps": group.sweeps}


@router.get(
    "/explore",
    name="api_explore",
    responses=answered_with(ExploreAnswer),
)
def api_explore(request: Request, session: SessionDep) -> Response:
    """The Explore page as JSON: resolved state, the read-off rows and the Plotly figure."""
    context = explore_context(session, explore_state.parse(request.query_params))
    state: ExploreState = context["state"]
    return json_answer(
        {
            "query": state.canonical_query(),
            "candidates": [{"id": s.id, "name": s.name} for s in state.candidates],
            **selection_json(state),
            "slo": slo_json(state.query, context["params"]),
            "price_columns": [
                {"label": c.label, "profile_ids": c.profile_ids} for c in state.price_columns
            ],
            "results": [
                {
                    **result_json(r),
                    "price_cells": price_cells_json(context["cells"][r.meta.id], r),
                    "token_classes": context["token_classes"][r.meta.id],
                }
                for r in context["results"]
            ],
            # The answer strip above the chart: these sweeps in this order, the first few shown
            # and the rest behind "more" (its figures are the results' own).
            "answer": {
                "order": [r.meta.id for r in context["answer"]],
                "shown_first": answer.SHOWN_FIRST,
            },
            "figure": context["figure"],
            # With bands=1: each sweep's frontier band as arrays (null without it).
            "bands": None
            if context["bands"] is None
            else [bands.band_json(b) for b in context["bands"]],
            "sensitivity": context["sensitivity_figure"],
        }
    )
