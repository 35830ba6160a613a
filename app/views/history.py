"""What the History page and its JSON twin (/api/history) both show: per configuration, its
sweeps by measured date with goodput, costs, check marks and repeated-run spreads."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.charts import history as charts_history
from app.charts import history_sessions
from app.schemas.explore import ExploreQuery
from app.services import analysis, history
from app.services.readoff.query import params_of
from app.services.sweeps.sessions import sessions_json, turns_json
from app.store import points as point_queries
from app.store import sweeps as sweep_queries
from app.views import explore_state
from app.views.explore import price_cells

MAX_SWEEPS = 200


def history_context(session: Session, query: ExploreQuery) -> dict[str, Any]:
    state = explore_state.resolve(session, query)
    filters = {f: getattr(state.query, f) for f in explore_state.FILTERS}
    ids = point_queries.sweep_ids_matching(session, filters, limit=MAX_SWEEPS)
    params = params_of(state.query)
    results, _ = analysis.run(session, ids, params, state.profile_ids, state.query.usd_per_gpu_hour)
    created = sweep_queries.created_at(session, ids)
    # Multi-turn and fixed-length runs are lines apart unless the query allows different ones.
    groups = history.histories(results, created, mix_scenarios=state.query.allow_different)
    cells = {r.meta.id: price_cells(r, state.price_columns) for r in results}
    checked = history.check_marks(session, ids)
    # A red cross only for a regression within one configuration; checks between two
    # configurations are listed as comparisons, with what differs.
    marks = history.regression_marks(checked)
    comparisons = history.regression_marks(checked, regression=False)
    figure = charts_history.history_figure(groups, cells, cost=False, marks=marks)
    cost_figure = (
        charts_history.history_figure(groups, cells, cost=True, marks=marks)
        if state.price_columns
        else None
    )
    agentic = any(h.multi_turn for h in groups)
    return {
        "sessions_figure": history_sessions.sessions_figure(groups, e2e=False) if agentic else None,
        "e2e_figure": history_sessions.sessions_figure(groups, e2e=True) if agentic else None,
        "state": state,
        "params": params,
        "histories": groups,
        "cells": cells,
        "marks": marks,
        "comparisons": comparisons,
        "spreads": {r.meta.id: history.repeated_runs(r) for r in results},
        "figure": figure,
        "cost_figure": cost_figure,
        "facets": sweep_queries.facet_values(session),
    }


def sessions_fields(row: history.HistoryRow) -> dict[str, Any]:
    """A History sweep's multi-turn figures (issue 49): its scenario, sessions and TTFT by turn
    at the operating point, and its E2E-normalized interactivity there."""
    result = row.result
    return {
        "scenario": result.meta.scenario,
        "sessions": sessions_json(result.sessions),
        "turns": turns_json(result.sessions),
        "e2e_interactivity_tok_s_user": history_sessions.e2e_of(row),
    }
