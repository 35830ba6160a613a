"""A deployment's windows beside a benchmark frontier: efficiency, SLO attainment and $/Mtok
per window, with flags; the deployment page and /api/production/{id} read the same document."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.orm import Session

from app.domain.checks import percentile_percent
from app.domain.cost import usd_per_mtok
from app.domain.numbers import fmt_number
from app.domain.pareto import Interpolation
from app.domain.point import Stat
from app.domain.production import (
    Efficiency,
    efficiency,
    interactivity,
    slo_result,
    tpot_read,
)
from app.domain.prom_cache import cache_json
from app.domain.prom_histogram import QUANTILE_RULE, Quantile
from app.domain.prom_names import HISTOGRAMS, Measure
from app.domain.prom_window import WindowPoint
from app.domain.slo import Slo
from app.services import analysis, prices
from app.services.errors import Invalid
from app.store import production as store
from app.store.models import SloPreset
from app.store.sweeps import NotFound

PERCENTILES = ("p50", "p90", "p99")
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


@dataclass(frozen=True)
class ReportOptions:
    sweep_id: int | None = None
    stat: Stat = "p50"
    basis: Literal["output", "total"] = "output"
    interpolation: Interpolation = "staircase"
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    e2el_ms: float | None = None
    attainment: float = 0.9
    min_efficiency: float | None = None
    usd_per_gpu_hour: float | None = None
    pricing: int | None = None  # a stored pricing profile, used before the inline price
    percentiles: tuple[str, ...] = PERCENTILES  # p50 … p99.9, as the read-off names them
    # An SLO preset's key, "custom" (the limits as given) or "none" (no limits); None: the
    # default preset, as every page has on a first visit.
    preset: str | None = "custom"

    def limits(self) -> dict[Measure, float]:
        given: dict[Measure, float | None] = {
            "ttft": self.ttft_ms,
            "tpot": self.tpot_ms,
            "e2el": self.e2el_ms,
        }
        return {k: v for k, v in given.items() if v is not None}


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


@dataclass(frozen=True)
class Frontier:
    sweep_id: int
    sweep: str
    xs: list[float]
    ys: list[float]


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


def frontier_json(frontier: Frontier) -> dict[str, Any]:
    return {
        "sweep_id": frontier.sweep_id,
        "sweep": frontier.sweep,
        "xs": frontier.xs,
        "ys": frontier.ys,
    }


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat().replace("+00:00", "Z")


def _quantile_json(found: Quantile) -> dict[str, Any]:
    if found.value_ms is None or found.bucket_ms is None:
        return {"value_ms": None, "reason": found.reason}
    lower, upper = found.bucket_ms
    return {
        "value_ms": found.value_ms,
        "bucket_ms": [lower, None if upper == float("inf") else upper],
    }


@dataclass(frozen=True)
class Priced:
    """The page's price: a profile or the inline price; unknown with the reason."""

    name: str | None
    usd_per_gpu_hour: float | None
    utilization: float = 1.0
    reason: str | None = None


def price_of(session: Session | None, hardware: str | None, options: ReportOptions) -> Priced:
    """The profile's price when it prices the deployment's own GPU (never another's), else
    the inline price; no price when neither is given."""
    if options.pricing is not None and session is not None:
        try:
            (price,) = prices.prices_for(session, [options.pricing], None)
        except NotFound:
            raise Invalid("pricing", f"pricing profile {options.pricing} not found") from None
        if hardware is None:
            return Priced(price.name, None, reason="the deployment's hardware is not given")
        if not price.applies_to(hardware):
            return Priced(
                price.name, None, reason=f"{price.name} prices {price.hardware}, not {hardware}"
            )
        return Priced(price.name, price.usd_per_gpu_hour, price.utilization)
    if options.usd_per_gpu_hour is not None:
        return Priced(f"${fmt_number(options.usd_per_gpu_hour)}/GPU-hour", options.usd_per_gpu_hour)
    return Priced(None, None, reason="no price given")


def window_json(
    point: WindowPoint,
    options: ReportOptions,
    frontier: Frontier | None,
    price: Priced | None = None,
) -> dict[str, Any]:
    tok_s_per_gpu = (
        point.output_tok_s_per_gpu if options.basis == "output" else point.total_tok_s_per_gpu
    )
    tpot = tpot_read(point, options.stat)
    x, _ = interactivity(tpot)
    if frontier is None:
        eff = Efficiency(None, None, x, "no frontier: give a sweep to compare with")
    else:
        eff = efficiency(tok_s_per_gpu, tpot, frontier.xs, frontier.ys, options.interpolation)
    limits = options.limits()
    slo = slo_result(point, limits, options.attainment) if limits else None
    flags = []
    floor = options.min_efficiency
    if floor is not None and eff.upper is not None and eff.upper < floor:
        flags.append(f"efficiency below {fmt_number(floor * 100)} %")
    elif floor is not None and eff.lower is not None and eff.lower < floor:
        flags.append(f"efficiency may be below {fmt_number(floor * 100)} % (the buckets allow it)")
    if slo is not None and slo.verdict == "fail":
        flags.append("fails the SLO")
    price = price or price_of(None, None, options)
    cost = None
    if price.usd_per_gpu_hour is not None:
        cost = usd_per_mtok(price.usd_per_gpu_hour, tok_s_per_gpu, price.utilization)
    return {
        "start": _iso(point.start_s),
        "end": _iso(point.end_s),
        "start_s": point.start_s,
        "end_s": point.end_s,
        "duration_s": point.duration_s,
        "requests": point.requests,
        "request_rate": point.request_rate,
        "output_tok_s": point.output_tok_s,
        "total_tok_s": point.total_tok_s,
        "tok_s_per_gpu": tok_s_per_gpu,
        "num_gpus": point.num_gpus,
        "concurrency": point.concurrency,
        "concurrency_reason": point.concurrency_reason,
        **cache_json(point.cache, point.extrapolated),  # measured by the server (issue 50)
        "interactivity_tok_s_user": x,
        "percentiles": {
            measure: {
                p: _quantile_json(point.percentile(measure, percentile_percent(p) / 100))
                for p in options.percentiles
            }
            for measure in HISTOGRAMS
        },
        "series": dict(point.names),
        "per_token_tpot": point.per_token("tpot"),
        "tpot": {
            "stat": options.stat,
            "value_ms": tpot.value_ms,
            "exact": tpot.value_ms is not None and tpot.bucket_ms is None,
            "bucket_ms": None
            if tpot.bucket_ms is None
            else [tpot.bucket_ms[0], None if math.isinf(tpot.bucket_ms[1]) else tpot.bucket_ms[1]],
            "reason": tpot.reason,
        },
        "efficiency": {
            # One value only where the data fix it; else null with the interval and reason.
            "value": eff.value,
            "frontier_tok_s_per_gpu": eff.frontier_tok_s_per_gpu,
            "reason": eff.reason,
            # Wherever in its bucket the TPOT lies (null: outside the frontier's range).
            "bounds": [eff.lower, eff.upper],
            "interactivity_range": None
            if eff.interactivity_range is None
            else list(eff.interactivity_range),
        },
        "slo": None
        if slo is None
        else {
            "verdict": slo.verdict,
            "attainment_lower": slo.lower,
            "attainment_upper": slo.upper,
            "reason": slo.reason,
            "limits": {
                m: {
                    "limit_ms": a.limit_ms,
                    "lower": a.lower,
                    "upper": a.upper,
                    "exact": a.exact and not point.extrapolated,
                    "share": _share_basis(a.exact, point.extrapolated),
                }
                for m, a in slo.parts.items()
            },
        },
        "usd_per_mtok": cost,
        "usd_per_mtok_reason": price.reason
        if price.usd_per_gpu_hour is None
        else (None if cost is not None else "tok/s per GPU unknown"),
        "flags": flags,
        "notes": list(point.notes),
    }


def _share_basis(exact: bool, extrapolated: bool) -> str:
    """How a share was read: SHARE_BASIS's key (a live pull's is never exact)."""
    if extrapolated:
        return "extrapolated"
    return "exact" if exact else "bounds"


def report(session: Session, deployment_id: int, options: ReportOptions) -> dict[str, Any]:
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
    windows = []
    for w in stored:
        one = window_json(w.point, options, frontier, price)
        one |= {"id": w.id, "source": w.source, "selector": w.selector}
        windows.append(one)
    return {
        "deployment": {
            "id": deployment.id,
            "name": deployment.name,
            "model": deployment.model,
            "hardware": deployment.hardware,
            "num_gpus": deployment.num_gpus,
            "engine": deployment.engine,
            "engine_version": deployment.engine_version,
        },
        "frontier": None if frontier is None else frontier_json(frontier) | {"matched": matched},
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
        "frontier": None
        if frontier is None
        else {
            "sweep_id": frontier.sweep_id,
            "sweep": frontier.sweep,
            "xs": frontier.xs,
            "ys": frontier.ys,
        },
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
            points.append({"x": x, "y": y, "end": _iso(point.end_s), "end_s": point.end_s})
    return deployment.name, points
