"""What the Explore page and its JSON twin (/api/explore) both show: the analysed selection,
its Pareto figure with physics limits and claims, sensitivity, and each sweep's price cells."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.charts import compare as charts_compare
from app.charts import pareto as charts
from app.charts import production as charts_production
from app.charts.bands import frontier_band_traces
from app.charts.roofline import explore_traces
from app.domain.accounting import short_unit
from app.domain.token_classes import SPLIT_RULE
from app.schemas.explore import ExploreQuery
from app.services import bands
from app.services.analysis import Params, SweepAnalysis
from app.services.ceilings.physics import shown_physics
from app.services.compare import sensitivity as slo_sensitivity
from app.services.readoff import answer, price_columns, token_classes
from app.services.readoff.intervals import cost_interval
from app.services.readoff.price_columns import PriceCell, PriceColumn
from app.services.telemetry import report as production_report
from app.store import sweeps as sweep_queries
from app.store.catalog_cache import Catalog
from app.store.versions import Versions
from app.views import selection as views
from app.views.explore_state import ExploreState


def explore_context(
    session: Session, query: ExploreQuery, versions: Versions | None = None
) -> dict[str, Any]:
    view = views.build(session, query, versions=versions)
    state, params, results = view.state, view.params, view.results
    found = None
    if state.query.bands:
        found = bands.bands(results, params, bands.samples_for(session, results))
    figure = charts.pareto_figure(
        results,
        params,
        log_x=state.query.logx,
        log_y=state.query.logy,
        frontier_only=state.query.frontier_only,
        extra_traces=physics_traces(state.query, results, params.basis, state.catalog),
        overlay_traces=production_overlay(session, state.query, params),
        band_traces=None
        if found is None
        else frontier_band_traces(found, state.selected, short_unit(params.accounting)),
    )
    if state.query.accounting != "gpu" and (
        state.query.roofline_model or state.query.claims != "none"
    ):
        figure["notes"] = [
            *(figure.get("notes") or []),
            "Physics limits and vendor claims are per GPU: they are drawn while y counts per "
            "total GPU.",
        ]
    series = view.sensitivity()
    sens = None
    if series:
        sens = charts_compare.sensitivity_figure(
            series,
            state.query.sensitivity,
            slo_sensitivity.sensitivity_percentile(params, state.query.sensitivity),
            costs=False,
            empty=slo_sensitivity.sensitivity_empty_reason(series, params, state.query.sensitivity),
        )
    cells = {r.meta.id: price_cells(r, state.price_columns) for r in results}
    prices = state.query.class_prices()
    classes = {
        r.meta.id: token_classes.result_json(session, r, prices, cells[r.meta.id], False)
        for r in results
    }
    return {
        "token_classes": classes,
        "classes_shown": token_classes.worth_showing(classes.values()),
        "split_rule": SPLIT_RULE,
        "state": state,
        "params": params,
        "results": results,
        "answer": answer.answer_order(results),
        "shown_first": answer.SHOWN_FIRST,
        "strip_column": answer.strip_column(state.price_columns),
        "figure": figure,
        "bands": found,
        "sensitivity_figure": sens,
        "sensitivity_percentile": slo_sensitivity.sensitivity_percentile(
            params, state.query.sensitivity
        ),
        "sensitivity_empty": slo_sensitivity.sensitivity_empty_reason(
            series, params, state.query.sensitivity
        )
        if state.query.sensitivity != "off"
        else None,
        "cells": cells,
        "cost_notes": price_columns.cost_notes(cells.values()),
        "cost_ci": cost_interval,
        "colours": colours(state),
        "facets": sweep_queries.facet_values(session, versions),
        "model_specs": physics_model_specs(state.catalog),
    }


def production_overlay(
    session: Session, query: ExploreQuery, params: Params
) -> list[dict[str, Any]]:
    """The deployment's windows on the chart's axes (same TPOT statistic and token basis)."""
    if query.deployment is None:
        return []
    if params.stat == "mean" or params.basis == "input":
        return []  # windows have percentiles from buckets, and output or total tokens
    name, points = production_report.overlay_points(
        session, query.deployment, params.stat, params.basis
    )
    return [charts_production.overlay_trace(name, points)]


def price_cells(result: SweepAnalysis, columns: list[PriceColumn]) -> list[PriceCell]:
    """Per price column, the cost under this sweep's own GPU's price, or why there is none."""
    return price_columns.price_cells(result, columns)


def physics_traces(
    query: ExploreQuery,
    results: list[SweepAnalysis],
    basis: str,
    kept: Catalog,
) -> list[dict[str, Any]]:
    """Dashed physics limits (when a model spec is chosen) and vendor-claim markers: per GPU,
    so drawn only while the axis counts per total GPU (never mixed with per-unit figures)."""
    if query.accounting != "gpu":
        return []
    shown = shown_physics(
        kept,
        results,
        model=query.roofline_model,
        precision=query.roofline_precision,
        ctx=query.roofline_ctx,
        claims_mode=query.claims,
    )
    return explore_traces(
        shown,
        results,
        basis=basis,
        log_x=query.logx,
        log_y=query.logy,
    )


def physics_model_specs(kept: Catalog) -> list[Any]:
    """Model specs the physics-limit picker offers."""
    return list(kept.model_specs)


def colours(state: ExploreState) -> dict[int, str]:
    return {sid: charts.colour(i) for i, sid in enumerate(state.selected)}
