"""What the History page and its JSON twin (/api/history) both show: per configuration, its
sweeps by measured date with goodput, costs, check marks and repeated-run spreads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.orm import Session

from app.charts import history as charts_history
from app.charts import history_sessions
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.schemas.answers.typed.history import (
    HistoryAnswerDict,
    HistoryConfigDict,
    HistorySweepDict,
)
from app.schemas.explore import ExploreQuery
from app.services import analysis, history
from app.services.analysis import Params, SweepAnalysis
from app.services.readoff.price_columns import PriceCell
from app.services.readoff.query import params_of
from app.services.sweeps.sessions import sessions_json, turns_json
from app.store import points as point_queries
from app.store import sweeps as sweep_queries
from app.views import explore_state
from app.views.explore import price_cells
from app.views.explore_state import ExploreState

MAX_SWEEPS = 200


@dataclass
class HistoryView:
    """What the History page draws and /api/history answers, from one analysis."""

    state: ExploreState
    params: Params
    results: list[SweepAnalysis]
    histories: list[history.ConfigHistory]
    cells: dict[int, list[PriceCell]]
    # A red cross only for a regression within one configuration; checks between two
    # configurations are listed as comparisons, with what differs.
    marks: dict[int, list[history.RegressionMark]]
    comparisons: dict[int, list[history.RegressionMark]]
    figure: PlotlyFigureDict
    cost_figure: PlotlyFigureDict | None
    # Multi-turn configurations only (None without one): sessions and E2E speed by date.
    sessions_figure: PlotlyFigureDict | None
    e2e_figure: PlotlyFigureDict | None

    def context(self, session: Session) -> dict[str, Any]:
        """The page's template context."""
        return {
            "sessions_figure": self.sessions_figure,
            "e2e_figure": self.e2e_figure,
            "state": self.state,
            "params": self.params,
            "histories": self.histories,
            "cells": self.cells,
            "marks": self.marks,
            "comparisons": self.comparisons,
            "spreads": {r.meta.id: history.repeated_runs(r) for r in self.results},
            "figure": self.figure,
            "cost_figure": self.cost_figure,
            "facets": sweep_queries.facet_values(session),
        }


def history_context(session: Session, query: ExploreQuery) -> dict[str, Any]:
    return histories_of(session, query).context(session)


def histories_of(session: Session, query: ExploreQuery) -> HistoryView:
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
    marks = history.regression_marks(checked)
    agentic = any(h.multi_turn for h in groups)
    return HistoryView(
        state=state,
        params=params,
        results=results,
        histories=groups,
        cells=cells,
        marks=marks,
        comparisons=history.regression_marks(checked, regression=False),
        figure=charts_history.history_figure(groups, cells, cost=False, marks=marks),
        cost_figure=charts_history.history_figure(groups, cells, cost=True, marks=marks)
        if state.price_columns
        else None,
        sessions_figure=history_sessions.sessions_figure(groups, e2e=False) if agentic else None,
        e2e_figure=history_sessions.sessions_figure(groups, e2e=True) if agentic else None,
    )


def history_answer(session: Session, query: ExploreQuery) -> HistoryAnswerDict:
    """/api/history: per configuration, each sweep's date, goodput and costs."""
    view = histories_of(session, query)
    return {
        "query": view.state.canonical_query(),
        "configurations": [
            {
                # The configuration's keys (app.services.history.CONFIG_KEYS), as the model's.
                "config": cast(HistoryConfigDict, h.config),
                "label": h.label,
                "sweeps": [_sweep_json(view, r) for r in h.rows],
            }
            for h in view.histories
        ],
        "price_columns": [c.label for c in view.state.price_columns],
        "figure": view.figure,
        "sessions_figure": view.sessions_figure,
        "e2e_figure": view.e2e_figure,
    }


def _sweep_json(view: HistoryView, r: history.HistoryRow) -> HistorySweepDict:
    result = r.result
    sweep_id = result.meta.id
    intervals = result.intervals
    cells = view.cells[sweep_id]
    return {
        "sweep_id": sweep_id,
        "name": result.meta.name,
        "date": r.date.isoformat() if r.date else None,
        "date_source": r.date_source,
        "uploaded": r.uploaded.isoformat() if r.uploaded else None,
        "goodput_tok_s_per_gpu": result.readoff.goodput_tok_s_per_gpu,
        # Repeated passing runs: the goodput is their geometric mean; the best.
        "goodput_statistic": None if intervals is None else intervals.statistic,
        "best_run_tok_s_per_gpu": None if intervals is None else intervals.best_run_tok_s_per_gpu,
        "reason": result.readoff.reason,
        "costs": [c.usd_per_mtok for c in cells],
        # Why a cost is null, e.g. no price for the sweep's GPU in the set.
        "cost_reasons": [c.reason for c in cells],
        "regressions": [m.as_json() for m in view.marks.get(sweep_id, [])],
        "comparisons": [m.as_json() for m in view.comparisons.get(sweep_id, [])],
        "repeated_runs": [
            {
                "load": s.load,
                "runs": s.runs,
                "tok_s_per_gpu": (s.y_min, s.y_max),
                "interactivity_tok_s_user": (s.x_min, s.x_max),
            }
            for s in history.repeated_runs(result)
        ],
        # A multi-turn run's figures (issue 49): its scenario, sessions and TTFT by turn at the
        # operating point, and its E2E-normalized interactivity there.
        "scenario": result.meta.scenario,
        "sessions": sessions_json(result.sessions),
        "turns": turns_json(result.sessions),
        "e2e_interactivity_tok_s_user": history_sessions.e2e_of(r),
    }
