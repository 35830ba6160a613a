"""The price columns of a view: a dated price set (one profile per GPU), profiles, an inline price.

Pages, the read-off JSON and CSV exports and the offline report share them, so an export carries
the same $/Mtok as the page it was linked from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.services.analysis import Cost, SweepAnalysis
from app.store import pricing as pricing_queries
from app.store.models import PricingProfile
from app.store.sweeps import NotFound

PRICE_SET_TIERS = {
    "costh": "owning (hyperscaler)",
    "costn": "owning (neocloud)",
    "costr": "3-year rental",
}


@dataclass
class PriceColumn:
    label: str
    profile_ids: list[int]  # a price set has one profile per GPU; a cell uses the one that applies
    inline: bool = False


def price_sets(profiles: list[PricingProfile]) -> list[tuple[str, str]]:
    """Tiers with a date that cover several GPUs, e.g. InferenceX 3-year rental, Sep 2026."""
    seen: dict[str, str] = {}
    for p in profiles:
        if p.tier in PRICE_SET_TIERS and p.as_of is not None:
            key = f"{p.tier}@{p.as_of.isoformat()}"
            seen[key] = f"InferenceX {PRICE_SET_TIERS[p.tier]} · {p.as_of:%b %Y}"
    return sorted(seen.items(), key=lambda kv: kv[0], reverse=True)


def price_columns(
    profiles: list[PricingProfile],
    price_set: str | None,
    pricing: list[int],
    usd_per_gpu_hour: float | None,
    sets: Sequence[tuple[str, str]] | None = None,
) -> list[PriceColumn]:
    """The price set's column, one per chosen profile, and the inline price's, in that order.
    `sets` are `price_sets(profiles)` when the caller has them already."""
    columns: list[PriceColumn] = []
    labels = dict(price_sets(profiles) if sets is None else sets)
    if price_set in labels:
        tier, as_of = (price_set or "").split("@")
        ids = [
            p.id
            for p in profiles
            if p.tier == tier and p.as_of is not None and p.as_of.isoformat() == as_of
        ]
        columns.append(PriceColumn(labels[price_set or ""], ids))
    names = {p.id: p.name for p in profiles}
    for profile_id in pricing:
        if profile_id in names:
            columns.append(PriceColumn(names[profile_id], [profile_id]))
    if usd_per_gpu_hour is not None:
        columns.append(PriceColumn(f"${usd_per_gpu_hour:g}/GPU-hour", [], inline=True))
    return columns


def columns_for(
    session: Session, price_set: str | None, pricing: list[int], usd_per_gpu_hour: float | None
) -> list[PriceColumn]:
    """`price_columns` over the stored profiles; an unknown profile id or price set raises."""
    profiles = pricing_queries.get_profiles(session, pricing)  # raises naming a missing id
    if price_set is None:
        return price_columns(profiles, None, pricing, usd_per_gpu_hour)
    profiles = pricing_queries.list_profiles(session)
    if price_set not in dict(price_sets(profiles)):
        known = ", ".join(key for key, _ in price_sets(profiles)) or "none"
        raise NotFound(f"price set {price_set} does not exist (known: {known})")
    return price_columns(profiles, price_set, pricing, usd_per_gpu_hour)


def profile_ids(columns: list[PriceColumn]) -> list[int]:
    return [i for c in columns for i in c.profile_ids]


def price_cells(result: SweepAnalysis, columns: list[PriceColumn]) -> list[Cost | None]:
    """Per price column, the cost of the price that applies to this sweep's hardware."""
    cells: list[Cost | None] = []
    for column in columns:
        match = [
            c
            for c in result.costs
            if (column.inline and c.price.profile_id is None)
            or (c.price.profile_id in column.profile_ids)
        ]
        applicable = [c for c in match if c.price.applies_to(str(result.meta["hardware"]))]
        chosen = applicable or match
        cells.append(chosen[0] if chosen else None)
    return cells
