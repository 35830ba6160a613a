"""The hourly prices a read-off's costs are worked out at: stored profiles (their total hourly
cost per GPU) and an inline price, and the cost of one sweep at one price."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.domain.cost import usd_per_mtok
from app.store import pricing as pricing_queries
from app.store.catalog_cache import Catalog


@dataclass(frozen=True)
class Price:
    """An hourly price per GPU: a stored profile (profile_id) or an inline price (None)."""

    profile_id: int | None
    name: str
    hardware: str | None
    usd_per_gpu_hour: float
    utilization: float = 1.0

    def applies_to(self, hardware: str) -> bool:
        return self.hardware is None or self.hardware.lower() == hardware.lower()


@dataclass(frozen=True)
class Cost:
    price: Price
    usd_per_mtok: float | None
    reason: str | None = None


def prices_for(
    session: Session,
    profile_ids: list[int],
    usd_per_gpu_hour: float | None,
    kept: Catalog | None = None,
) -> list[Price]:
    """Stored profiles (their total hourly cost) plus an optional inline rental price; the
    profiles from the `kept` catalog when it has them all."""
    by_id = {p.id: p for p in kept.profiles} if kept else {}
    if all(i in by_id for i in profile_ids):
        profiles = [by_id[i] for i in profile_ids]
    else:  # the query names a missing id
        profiles = pricing_queries.get_profiles(session, profile_ids)
    prices = []
    for profile in profiles:
        total = pricing_queries.hourly_cost(profile)["total_usd_per_gpu_hour"] or 0.0
        prices.append(Price(profile.id, profile.name, profile.hardware, total, profile.utilization))
    if usd_per_gpu_hour is not None:
        prices.append(Price(None, f"${usd_per_gpu_hour:g}/GPU-hour", None, usd_per_gpu_hour))
    return prices


def cost_at(
    price: Price, hardware: str, goodput_tok_s_per_gpu: float | None, unknown_why: str | None
) -> Cost:
    """$/Mtok of a sweep's goodput per total GPU at `price`, or why there is none;
    `unknown_why` is the read-off's reason when its verdict is unknown."""
    if not price.applies_to(hardware):
        return Cost(price, None, f"price is for {price.hardware}, not {hardware}")
    if goodput_tok_s_per_gpu is None:
        # An unknown read-off is not a fail: the $/Mtok is unknown for the read-off's reason.
        if unknown_why:
            return Cost(price, None, f"goodput unknown: {unknown_why}")
        return Cost(price, None, "no goodput at this SLO")
    return Cost(
        price, usd_per_mtok(price.usd_per_gpu_hour, goodput_tok_s_per_gpu, price.utilization)
    )
