"""A deployment's windows beside a benchmark frontier: efficiency, SLO attainment and $/Mtok
per window, with flags; the deployment page and /api/production/{id} read the same document."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from app.domain.point import Stat
from app.domain.production import interactivity, tpot_read
from app.domain.prom_histogram import QUANTILE_RULE
from app.domain.prom_window import WindowPoint
from app.domain.slo import Slo
from app.schemas.answers.typed.production import (
    DeploymentOutDict,
    FrontierReadDict,
    FrontierUsedDict,
    ProductionReportDict,
    WindowOutDict,
)
from app.services import analysis
from app.services.errors import Invalid
from app.services.telemetry.options import Frontier, ReportOptions
from app.services.telemetry.window_document import iso, price_of, window_json
from app.store import production as store
from app.store.models import Deployment, SloPreset
from app.store.sweeps import NotFound

EFFICIENCY_RULE = (
    "window tok/s per GPU ÷ the frontier's at the window's interactivity (1000 / its TPOT at "
    "the frontier's statistic), read with the read-off's interpolation; never extrapolated. "
    "A percentile lies somewhere in its histogram bucket, so efficiency is the interval over "
    "the interactivity that bucket allows (one value only where the frontier is flat across "
    "it); the mean is exact (the histogram's _sum ÷ _count), so it gives one value"
)
SHARE_BASIS = {
    "exact": "exact: the limit is a bucket boundary",
    "bounds": "between the neighbouring bucket boundaries",
    "extrapolated": "estimated: a live pull's increase() extrapolates counts to the window's edges",
}
COUNTER_RULE = (
    "counters and buckets are increases between scrapes; a counter reset is counted from zero "
    "after the reset, as Prometheus's rate() counts it"
)

CONCURRENCY_RULE = (
    "the running-requests gauge's time-average over every reading in the window (the first and "
    "last included, each span between readings weighted by its length); a live pull uses "
    "avg_over_time()"
)
RULES = {
    "percentiles": QUANTILE_RULE,
    "efficiency": EFFICIENCY_RULE,
    "counters": COUNTER_RULE,
    "concurrency": CONCURRENCY_RULE,
}


DEFAULT_PRESET = "chat-interactive"  # as Explore's first visit


def with_preset(session: Session, options: ReportOptions) -> tuple[ReportOptions, str | None]:
    """The preset's limits and attainment (judged per request: the share of requests meeting
    every limit); "custom" keeps the given ones, "none" clears them. Returns the options and
    the preset applied."""
    key = options.preset
    if key == "custom":
        return options, None
    if key == "none":
        return dataclasses.replace(options, ttft_ms=None, tpot_ms=None, e2el_ms=None), None
    preset = session.get(SloPreset, key or DEFAULT_PRESET)
    if preset is None:
        if key is None:  # a catalog without the default preset: no SLO, as before
            return options, None
        raise Invalid("preset", f"no SLO preset {key!r}")
    chosen = dataclasses.replace(
        options,
        ttft_ms=preset.ttft_ms,
        tpot_ms=preset.tpot_ms,
        e2el_ms=preset.e2el_ms,
        attainment=preset.attainment,
    )
    return chosen, preset.key


def frontier_of(session: Session, sweep_id: int, options: ReportOptions) -> Frontier:
    params = analysis.Params(
        slo=Slo(), basis=options.basis, stat=options.stat, interpolation=options.interpolation
    )
    try:
        (result,), _ = analysis.run(session, [sweep_id], params, [], None)
    except NotFound:
        raise Invalid("sweep", f"sweep {sweep_id} not found") from None
    xs = [float(result.xs[i] or 0.0) for i in result.frontier]
    ys = [float(result.ys[i] or 0.0) for i in result.frontier]
    return Frontier(sweep_id, str(result.meta.name), xs, ys)


def frontier_json(frontier: Frontier) -> FrontierReadDict:
    return {
        "sweep_id": frontier.sweep_id,
        "sweep": frontier.sweep,
        "xs": frontier.xs,
        "ys": frontier.ys,
    }


def deployment_json(deployment: Deployment) -> DeploymentOutDict:
    return {
        "id": deployment.id,
        "name": deployment.name,
        "model": deployment.model,
        "hardware": deployment.hardware,
        "num_gpus": deployment.num_gpus,
        "engine": deployment.engine,
        "engine_version": deployment.engine_version,
    }


def _frontier_used(frontier: Frontier, matched: bool) -> FrontierUsedDict:
    """The frontier the report reads, and whether it was matched to the deployment (its
    model and hardware) rather than named."""
    return {**frontier_json(frontier), "matched": matched}


def report(session: Session, deployment_id: int, options: ReportOptions) -> ProductionReportDict:
    deployment = store.get_deployment(session, deployment_id)
    options, preset = with_preset(session, options)
    sweep_id = options.sweep_id
    matched = False
    if sweep_id is None:
        sweep_id = store.matching_sweep(session, deployment)
        matched = sweep_id is not None
    frontier = None if sweep_id is None else frontier_of(session, sweep_id, options)
    stored = store.windows_of(session, deployment_id)
    price = price_of(session, deployment.hardware, options)
    windows: list[WindowOutDict] = [
        {
            **window_json(w.point, options, frontier, price),
            "id": w.id,
            "source": w.source,
            "selector": w.selector,
        }
        for w in stored
    ]
    return {
        "deployment": deployment_json(deployment),
        "frontier": None if frontier is None else _frontier_used(frontier, matched),
        "options": {
            "stat": options.stat,
            "basis": options.basis,
            "interpolation": options.interpolation,
            "slo": options.limits(),
            "preset": preset,
            "attainment": options.attainment,
            "min_efficiency": options.min_efficiency,
            "usd_per_gpu_hour": options.usd_per_gpu_hour,
            "pricing": options.pricing,
        },
        "price": {
            "name": price.name,
            "usd_per_gpu_hour": price.usd_per_gpu_hour,
            "utilization": price.utilization,
            "reason": price.reason,
        },
        "rules": RULES,
        "share_basis": SHARE_BASIS,
        "windows": windows,
        "flagged": sum(1 for w in windows if w["flags"]),
    }


def evaluate(
    session: Session | None,
    points: Sequence[WindowPoint],
    options: ReportOptions,
) -> dict[str, Any]:
    """Windows not stored (the CLI's scrape pair, a live pull's preview) beside the frontier of
    `options.sweep_id`, in the report's window layout."""
    frontier = None
    if options.sweep_id is not None and session is not None:
        frontier = frontier_of(session, options.sweep_id, options)
    windows = [window_json(p, options, frontier) for p in points]
    below = [
        w
        for w in windows
        if options.min_efficiency is not None
        and w["efficiency"]["bounds"][1] is not None
        and w["efficiency"]["bounds"][1] < options.min_efficiency
    ]
    return {
        "frontier": None if frontier is None else frontier_json(frontier),
        "rules": RULES,
        "windows": windows,
        "below_min_efficiency": len(below),
    }


def overlay_points(
    session: Session, deployment_id: int, stat: Stat, basis: str
) -> tuple[str, list[dict[str, Any]]]:
    """The deployment's name and its windows as (interactivity, tok/s per GPU, end) on
    Explore's axes; windows without either are left out."""
    deployment = store.get_deployment(session, deployment_id)
    options = ReportOptions(stat=stat, basis="total" if basis == "total" else "output")
    points = []
    for w in store.windows_of(session, deployment_id):
        x, _ = interactivity(tpot_read(w.point, options.stat))
        point = w.point
        y = point.total_tok_s_per_gpu if options.basis == "total" else point.output_tok_s_per_gpu
        if x is not None and y is not None:
            points.append({"x": x, "y": y, "end": iso(point.end_s), "end_s": point.end_s})
    return deployment.name, points
