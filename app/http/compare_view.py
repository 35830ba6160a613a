"""What the Compare page and its JSON twin (/api/compare) both show: every pair's ratios, their
intervals, and the ratio, cost and sensitivity figures."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.charts import compare as charts_compare
from app.charts import pareto as charts
from app.charts.bands import add_stretches
from app.http import views
from app.schemas.explore import ExploreQuery
from app.services import bands, comparison
from app.services.compare_bands import pair_bands
from app.services.compare_intervals import pair_intervals


def compare_context(session: Session, query: ExploreQuery) -> dict[str, Any]:
    # Two systems make a comparison by default; more are each compared against the first.
    view = views.build(session, query, default_series=2)
    pairs = comparison.pairs(view.results, view.groups, view.params)
    intervals = [pair_intervals(p, view.params) for p in pairs]
    split = None
    if view.state.query.bands and pairs:
        samples = bands.samples_for(session, view.results)
        split = [pair_bands(p, view.params, samples) for p in pairs]
    ratio_figure = charts_compare.throughput_ratio_figure(pairs, view.params.slo, intervals)
    if split is not None:
        add_stretches(ratio_figure, split)
    cost_figure = charts_compare.cost_ratio_figure(pairs, view.groups, view.params.slo)
    series = view.sensitivity()
    sens = (
        charts_compare.sensitivity_figure(
            series,
            view.state.query.sensitivity,
            comparison.sensitivity_percentile(view.params, view.state.query.sensitivity),
            costs=False,
        )
        if series
        else None
    )
    cost_sens = (
        charts_compare.sensitivity_figure(
            series,
            view.state.query.sensitivity,
            comparison.sensitivity_percentile(view.params, view.state.query.sensitivity),
            costs=True,
        )
        if series and view.groups
        else None
    )
    return {
        "state": view.state,
        "params": view.params,
        "results": view.results,
        "groups": view.groups,
        "pairs": pairs,
        "pair_intervals": intervals,
        "pair_bands": split,
        "ratio_figure": ratio_figure,
        "cost_figure": cost_figure,
        "sensitivity_figure": sens,
        "cost_sensitivity_figure": cost_sens,
        "sensitivity_percentile": comparison.sensitivity_percentile(
            view.params, view.state.query.sensitivity
        ),
        "sensitivity_empty": comparison.sensitivity_empty_reason(
            series, view.params, view.state.query.sensitivity
        )
        if view.state.query.sensitivity != "off"
        else None,
        "colours": {sid: charts.colour(i) for i, sid in enumerate(view.state.selected)},
    }
