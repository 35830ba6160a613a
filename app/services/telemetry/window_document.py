"""One production window's document: its rates, percentiles, efficiency against the frontier,
SLO attainment and $/Mtok, with flags (the report's `windows` entries and the CLI's)."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.domain.checks import percentile_percent
from app.domain.cost import usd_per_mtok
from app.domain.numbers import fmt_number
from app.domain.production import (
    Efficiency,
    SloResult,
    TpotRead,
    efficiency,
    interactivity,
    slo_result,
    tpot_read,
)
from app.domain.prom_cache import cached_input
from app.domain.prom_histogram import Quantile
from app.domain.prom_names import HISTOGRAMS
from app.domain.prom_window import WindowPoint
from app.schemas.answers.typed.production import EfficiencyOutDict, TpotOutDict, WindowReadDict
from app.services import prices
from app.services.errors import Invalid
from app.services.telemetry.options import Frontier, ReportOptions
from app.store.sweeps import NotFound


def iso(seconds: float) -> str:
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


def _flags(eff: Efficiency, slo: SloResult | None, floor: float | None) -> list[str]:
    flags = []
    if floor is not None and eff.upper is not None and eff.upper < floor:
        flags.append(f"efficiency below {fmt_number(floor * 100)} %")
    elif floor is not None and eff.lower is not None and eff.lower < floor:
        flags.append(f"efficiency may be below {fmt_number(floor * 100)} % (the buckets allow it)")
    if slo is not None and slo.verdict == "fail":
        flags.append("fails the SLO")
    return flags


def _tpot_json(tpot: TpotRead, stat: str) -> TpotOutDict:
    return {
        "stat": stat,
        "value_ms": tpot.value_ms,
        "exact": tpot.value_ms is not None and tpot.bucket_ms is None,
        "bucket_ms": None
        if tpot.bucket_ms is None
        else [tpot.bucket_ms[0], None if math.isinf(tpot.bucket_ms[1]) else tpot.bucket_ms[1]],
        "reason": tpot.reason,
    }


def _efficiency_json(eff: Efficiency) -> EfficiencyOutDict:
    return {
        # One value only where the data fix it; else null with the interval and reason.
        "value": eff.value,
        "frontier_tok_s_per_gpu": eff.frontier_tok_s_per_gpu,
        "reason": eff.reason,
        # Wherever in its bucket the TPOT lies (null: outside the frontier's range).
        "bounds": [eff.lower, eff.upper],
        "interactivity_range": None
        if eff.interactivity_range is None
        else list(eff.interactivity_range),
    }


def _slo_json(slo: SloResult | None, extrapolated: bool) -> dict[str, Any] | None:
    if slo is None:
        return None
    return {
        "verdict": slo.verdict,
        "attainment_lower": slo.lower,
        "attainment_upper": slo.upper,
        "reason": slo.reason,
        "limits": {
            m: {
                "limit_ms": a.limit_ms,
                "lower": a.lower,
                "upper": a.upper,
                "exact": a.exact and not extrapolated,
                "share": _share_basis(a.exact, extrapolated),
            }
            for m, a in slo.parts.items()
        },
    }


def _share_basis(exact: bool, extrapolated: bool) -> str:
    """How a share was read: SHARE_BASIS's key (a live pull's is never exact)."""
    if extrapolated:
        return "extrapolated"
    return "exact" if exact else "bounds"


def _cost(price: Priced, tok_s_per_gpu: float | None) -> tuple[float | None, str | None]:
    """$/Mtok at the window's tok/s per GPU, or None with why."""
    if price.usd_per_gpu_hour is None:
        return None, price.reason
    cost = usd_per_mtok(price.usd_per_gpu_hour, tok_s_per_gpu, price.utilization)
    return cost, None if cost is not None else "tok/s per GPU unknown"


def window_json(
    point: WindowPoint,
    options: ReportOptions,
    frontier: Frontier | None,
    price: Priced | None = None,
) -> WindowReadDict:
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
    flags = _flags(eff, slo, options.min_efficiency)
    price = price or price_of(None, None, options)
    cache = cached_input(point.cache, point.extrapolated)
    cost, cost_reason = _cost(price, tok_s_per_gpu)
    return {
        "start": iso(point.start_s),
        "end": iso(point.end_s),
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
        # The server's prefix-cache counters over the window (issue 50).
        "cached_input_share": cache.share,
        "cached_input_source": cache.source,
        "cached_tokens": cache.cached_tokens,
        "queried_tokens": cache.queried_tokens,
        "cached_input_reason": cache.reason,
        "interactivity_tok_s_user": x,
        "percentiles": {
            measure: {
                p: _quantile_json(point.percentile(measure, percentile_percent(p) / 100))
                for p in options.percentiles
            }
            for measure in HISTOGRAMS
        },
        "series": {str(measure): name for measure, name in point.names.items()},
        "per_token_tpot": point.per_token("tpot"),
        "tpot": _tpot_json(tpot, options.stat),
        "efficiency": _efficiency_json(eff),
        "slo": _slo_json(slo, point.extrapolated),
        "usd_per_mtok": cost,
        "usd_per_mtok_reason": cost_reason,
        "flags": flags,
        "notes": list(point.notes),
    }
