"""What the Compare page and its JSON twins (/api/compare, the MCP `compare` tool) show: every
pair's ratios, their intervals, and the ratio, cost and sensitivity figures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.charts import compare as charts_compare
from app.charts import pareto as charts
from app.charts.bands import add_stretches
from app.charts.compare_frontier import compare_frontier_figure
from app.charts.public_band import public_band_figure
from app.domain.compare import Distinction
from app.domain.provenance import provenance_text
from app.domain.sessions import axis_words
from app.domain.token_classes import SPLIT_RULE
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.schemas.answers.typed.compare import (
    CompareAnswerDict,
    PairBandsOutDict,
    PairOutDict,
    PairSideDict,
    RatioIntervalDict,
)
from app.schemas.answers.typed.token_classes import TokenClassesOutDict
from app.schemas.explore import ExploreQuery
from app.services import bands
from app.services.analysis import SweepAnalysis
from app.services.bands import SweepBand, band_json
from app.services.compare import ratios as comparison
from app.services.compare import sensitivity as slo_sensitivity
from app.services.compare.bands import PairBands, pair_bands, pair_bands_json
from app.services.compare.intervals import PairIntervals, pair_intervals
from app.services.compare.public_record import (
    AgainstPublic,
    against_public,
    against_public_json,
)
from app.services.compare.sensitivity import SensitivitySeries
from app.services.readoff import token_classes
from app.services.readoff.document import ci_fields, operating_point_json
from app.services.readoff.price_columns import PriceColumn
from app.services.sweeps import sessions as session_figures
from app.services.sweeps.likeness import differences_json
from app.views import selection as views


@dataclass
class CompareView:
    """Everything the Compare page draws and /api/compare answers, from one analysis."""

    view: views.View
    pairs: list[comparison.Pair]
    # A refused pair (different scenarios) has no ratio, so no interval of one either.
    pair_intervals: list[PairIntervals | None]
    pair_bands: list[PairBands] | None  # bands=1: where A is really better, per pair
    bands: list[SweepBand] | None  # bands=1: each system's band over its own frontier
    token_classes: dict[int, TokenClassesOutDict]
    frontier_figure: PlotlyFigureDict
    ratio_figure: PlotlyFigureDict
    cost_figure: PlotlyFigureDict
    sensitivity_figure: PlotlyFigureDict | None
    cost_sensitivity_figure: PlotlyFigureDict | None
    sensitivity_empty: str | None
    public_record: list[AgainstPublic] | None
    public_figures: list[PlotlyFigureDict]

    def context(self) -> dict[str, Any]:
        """The page's template context."""
        view = self.view
        return {
            "token_classes": self.token_classes,
            "classes_shown": token_classes.worth_showing(self.token_classes.values()),
            "split_rule": SPLIT_RULE,
            "state": view.state,
            "params": view.params,
            "results": view.results,
            "groups": view.groups,
            "pairs": self.pairs,
            "pair_intervals": self.pair_intervals,
            "pair_bands": self.pair_bands,
            "bands": self.bands,
            "frontier_figure": self.frontier_figure,
            "ratio_figure": self.ratio_figure,
            "cost_figure": self.cost_figure,
            "sensitivity_figure": self.sensitivity_figure,
            "cost_sensitivity_figure": self.cost_sensitivity_figure,
            "cost_sensitivity_label": cost_column_label(view.cost_column),
            "sensitivity_percentile": slo_sensitivity.sensitivity_percentile(
                view.params, view.state.query.sensitivity
            ),
            "sensitivity_empty": self.sensitivity_empty,
            "colours": {sid: charts.colour(i) for i, sid in enumerate(view.state.selected)},
            # Your sweeps against the public record's dated runs in the selection (issue 51).
            "public_record": self.public_record,
            "public_figures": self.public_figures,
        }


def compare_context(session: Session, query: ExploreQuery) -> dict[str, Any]:
    return compared(session, query).context()


def compared(session: Session, query: ExploreQuery) -> CompareView:
    # Two systems make a comparison by default; more are each compared against the first.
    view = views.build(session, query, default_series=2)
    allow = view.state.query.allow_different
    pairs = comparison.pairs(view.results, view.groups, view.params, allow)
    intervals = [None if p.refused else pair_intervals(p, view.params) for p in pairs]
    split = None
    found = None
    if view.state.query.bands and view.results:
        samples = bands.samples_for(session, view.results)
        found = bands.bands(view.results, view.params, samples)
        if pairs:
            stated = (view.state.query.area_from, view.state.query.area_to)
            split = [pair_bands(p, view.params, samples, stated) for p in pairs]
    frontier_figure = compare_frontier_figure(
        view.results,
        view.params,
        view.state.selected,
        found,
        split,
        log_x=view.state.query.logx,
        log_y=view.state.query.logy,
    )
    ratio_figure = charts_compare.throughput_ratio_figure(pairs, view.params.slo, intervals)
    public = against_public(view.results)
    if split is not None:
        add_stretches(ratio_figure, split)
    series = view.sensitivity()
    sens, cost_sens = _sensitivity_figures(view, series)
    metric = view.state.query.sensitivity
    return CompareView(
        view=view,
        pairs=pairs,
        pair_intervals=intervals,
        pair_bands=split,
        bands=found,
        # Each system's cost by token class at its operating point, at the user's API prices.
        token_classes=token_classes.for_results(
            session, view.results, view.state.query.class_prices(), view.state.price_columns
        ),
        frontier_figure=frontier_figure,
        ratio_figure=ratio_figure,
        cost_figure=charts_compare.cost_ratio_figure(pairs, view.groups, view.params.slo),
        sensitivity_figure=sens,
        cost_sensitivity_figure=cost_sens,
        sensitivity_empty=slo_sensitivity.sensitivity_empty_reason(series, view.params, metric)
        if metric != "off"
        else None,
        public_record=public,
        public_figures=[public_band_figure(item) for item in public or []],
    )


def _sensitivity_figures(
    view: views.View, series: list[SensitivitySeries]
) -> tuple[PlotlyFigureDict | None, PlotlyFigureDict | None]:
    """The SLO-sensitivity chart of goodput and of $/Mtok (None without series or prices)."""
    metric = view.state.query.sensitivity
    sens_empty = slo_sensitivity.sensitivity_empty_reason(series, view.params, metric)
    percentile = slo_sensitivity.sensitivity_percentile(view.params, metric)
    sens = (
        charts_compare.sensitivity_figure(series, metric, percentile, costs=False, empty=sens_empty)
        if series
        else None
    )
    column = view.cost_column
    cost_sens = (
        charts_compare.sensitivity_figure(
            series,
            metric,
            percentile,
            costs=True,
            empty=charts_compare.cost_sensitivity_empty(series, column, sens_empty),
        )
        if series and column is not None
        else None
    )
    return sens, cost_sens


def cost_column_label(column: PriceColumn | None) -> str | None:
    """The price a single $/Mtok chart reads, as the read-off names it: "your $2/GPU-hour" for
    the user's own price, else the column's label."""
    if column is None:
        return None
    return f"your {column.label}" if column.inline else column.label


def compare_answer(session: Session, query: ExploreQuery) -> CompareAnswerDict:
    """/api/compare's body: every pair against the first system, with its figures."""
    c = compared(session, query)
    groups, params, results = c.view.groups, c.view.params, c.view.results
    split = c.pair_bands
    return {
        "query": c.view.state.canonical_query(),
        # The x axis every ratio is read along (interactivity=e2e: E2E-normalized, issue 49).
        "interactivity": params.interactivity,
        "interactivity_axis": axis_words(params.interactivity, params.stat, params.e2e_percentile),
        "baseline": results[0].meta.id if results else None,
        "dropped": [{"id": s.id, "name": s.name} for s in c.view.state.dropped],
        "price_columns": [g.label for g in groups],
        "pairs": [
            # With bands=1: where A is really better (null without it).
            pair_json(p, groups, iv, None if split is None else pair_bands_json(split[k]))
            for k, (p, iv) in enumerate(zip(c.pairs, c.pair_intervals, strict=True))
        ],
        # With bands=1: each system's frontier band as arrays, as the frontier chart draws it.
        "bands": None if c.bands is None else [band_json(sb) for sb in c.bands],
        "public_record": against_public_json(c.public_record, c.public_figures),
        "figures": {
            "frontier": c.frontier_figure,
            "throughput_ratio": c.ratio_figure,
            "cost_ratio": c.cost_figure,
            "sensitivity": c.sensitivity_figure,
        },
        "token_classes": token_classes.listed(c.token_classes),
    }


def distinction_json(d: Distinction) -> RatioIntervalDict:
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
    groups: list[PriceColumn],
    intervals: PairIntervals | None = None,
    split: PairBandsOutDict | None = None,
) -> PairOutDict:
    """One pair against the first system; `split`: where A is really better (bands=1)."""
    labels = [g.label for g in groups]
    return {
        "a": _side(pair.a),
        "b": _side(pair.b),
        "same_configuration": pair.likeness.same_configuration,
        "refused": pair.refused,
        "differences": differences_json(pair.likeness),
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
            # Where each goodput is read: the same point in every accounting mode.
            "a_operating_point": operating_point_json(pair.a),
            "b_operating_point": operating_point_json(pair.b),
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
        "bands": split,
    }


def _side(result: SweepAnalysis) -> PairSideDict:
    """A side of a pair: its sweep, who made its numbers (harness provenance), and for a
    multi-turn run its sessions and TTFT by turn at the operating point (null otherwise)."""
    meta = result.meta
    return {
        "sweep_id": meta.id,
        "name": meta.name,
        "provenance": provenance_text(meta.harness, meta.harness_version, meta.provenance),
        "sessions": session_figures.compact_sessions(result.sessions),
        "turns": session_figures.compact_turns(result.sessions),
    }
