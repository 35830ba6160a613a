"""/api/explore and /api/explore/picker: the Explore page and its series picker as JSON, from
the same analysis the page draws (`explore_context`)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.domain.accounting import UNIT_WORDS
from app.schemas.answers.typed.common import NamedDict
from app.schemas.answers.typed.explore import (
    ExploreAnswerDict,
    LeadersDict,
    PickerAnswerDict,
    PickerOutDict,
    WorkGroupOutDict,
)
from app.schemas.explore import ExploreQuery
from app.services import bands
from app.services import picker as series_picker
from app.services.readoff import answer
from app.services.readoff.document import price_cells_json, result_json, slo_json
from app.views import explore_state
from app.views.explore import explore_context
from app.views.explore_state import ExploreState


def picker_answer(session: Session, query: ExploreQuery) -> PickerAnswerDict:
    """The selection (capped, with what was dropped) and the picker's matches."""
    state = explore_state.resolve(session, query)
    return {
        "query": state.canonical_query(),
        "selected": state.selected,
        "max_series": state.max_series,
        "dropped": dropped_json(state),
        "leaders": leaders_json(state.leaders),
        "picker": picker_json(state),
    }


def explore_answer(session: Session, query: ExploreQuery) -> ExploreAnswerDict:
    """The Explore page as JSON: resolved state, the read-off rows and the Plotly figure."""
    context = explore_context(session, query)
    state: ExploreState = context["state"]
    return {
        "query": state.canonical_query(),
        "candidates": [{"id": s.id, "name": s.name} for s in state.candidates],
        # The selection as the picker reports it: never a sweep dropped without its name.
        "selected": state.selected,
        "max_series": state.max_series,
        "dropped": dropped_json(state),
        "leaders": leaders_json(state.leaders),
        "picker": picker_json(state),
        "slo": slo_json(state.query, context["params"]),
        "price_columns": [
            {"label": c.label, "profile_ids": c.profile_ids} for c in state.price_columns
        ],
        # Explore's rows leave out the read-off's optional TTFT-by-prompt-length and histogram
        # figures (mypy asks every optional key of a spread target to be in some ** item).
        "results": [
            {
                **result_json(r),  # type: ignore[typeddict-item]
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


def dropped_json(state: ExploreState) -> list[NamedDict]:
    return [{"id": s.id, "name": s.name} for s in state.dropped]


def picker_json(state: ExploreState) -> PickerOutDict | None:
    return series_picker.picker_json(state.picker) if state.picker else None


def leaders_json(leaders: series_picker.LeaderResult | None) -> LeadersDict | None:
    if leaders is None:
        return None
    return {
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
    }


def group_json(group: series_picker.WorkGroup) -> WorkGroupOutDict:
    return {"key": group.key, "label": group.label, "sweeps": group.sweeps}
