"""The price columns of a view: a dated price set (one profile per GPU), profiles, an inline price.

Pages, the read-off JSON and CSV exports and the offline report share them, so an export carries
the same $/Mtok as the page it was linked from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.services.analysis import SweepAnalysis
from app.services.prices import Cost, Price
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
    """One price column: a price set (one profile per GPU), a profile, or an inline price; with
    its prices once they are read (Compare's ratios and charts need them, the tables ask
    `price_cells`)."""

    label: str
    profile_ids: list[int]  # a price set has one profile per GPU; a cell uses the one that applies
    inline: bool = False
    price_set: bool = False  # a dated price set (one profile per GPU), not one chosen profile
    prices: tuple[Price, ...] = ()
    own: str | None = None  # the label of the user's own $/GPU-hour column, when there is one

    def for_hardware(self, hardware: str) -> Price | None:
        return next((p for p in self.prices if p.applies_to(hardware)), None)

    def missing(self, hardware: str) -> str | None:
        """Why this GPU has no price here (never another GPU's), or None when it has one."""
        if self.for_hardware(hardware) is not None:
            return None
        return no_price_reason(
            hardware, [p.hardware for p in self.prices], self.price_set, self.own
        )


@dataclass(frozen=True)
class PriceCell:
    """One price column for one sweep: the cost under the price of the sweep's own GPU (or the
    user's own $/GPU-hour), or none, with the reason. A price is never borrowed from a GPU."""

    label: str
    cost: Cost | None
    reason: str | None  # why there is no $/Mtok (None when there is one)

    @property
    def usd_per_mtok(self) -> float | None:
        return None if self.cost is None else self.cost.usd_per_mtok

    @property
    def usd_per_gpu_hour(self) -> float | None:
        return None if self.cost is None else self.cost.price.usd_per_gpu_hour


def no_price_reason(
    hardware: str, priced: Sequence[str | None], price_set: bool, own: str | None = None
) -> str:
    """Why a price column has no price for this GPU, and what to do instead (`priced`: the
    hardware of the column's prices; `price_set`: a dated set rather than chosen profiles;
    `own`: the label of the user's own $/GPU-hour column, which then is what to read instead)."""
    gpu = hardware or "this sweep's hardware"
    # Once the user has entered a price, telling them to enter one reads as if it were ignored.
    instead = f"see your {own}" if own else "enter $/GPU-hour"
    if price_set:
        return f"no {gpu} price in this set: {instead}"
    others = ", ".join(sorted({h for h in priced if h}))
    where = f" (it prices {others})" if others else ""
    return f"no {gpu} price in this profile{where}: {instead}"


def own_label(columns: Iterable[PriceColumn]) -> str | None:
    """The label of the user's own $/GPU-hour column, if there is one."""
    return next((c.label for c in columns if c.inline), None)


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
        columns.append(PriceColumn(labels[price_set or ""], ids, price_set=True))
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


def price_cells(result: SweepAnalysis, columns: list[PriceColumn]) -> list[PriceCell]:
    """Per price column, the cost under the price that applies to this sweep's hardware; a
    column without one gives no cost (never another GPU's price), with the reason."""
    hardware = str(result.meta.hardware or "")
    own = own_label(columns)
    cells: list[PriceCell] = []
    for column in columns:
        match = [
            c
            for c in result.costs
            if (column.inline and c.price.profile_id is None)
            or (c.price.profile_id in column.profile_ids)
        ]
        applicable = next((c for c in match if c.price.applies_to(hardware)), None)
        if applicable is None:
            priced = [c.price.hardware for c in match]
            reason = no_price_reason(hardware, priced, column.price_set, own)
            cells.append(PriceCell(column.label, None, reason))
        else:
            cells.append(PriceCell(column.label, applicable, applicable.reason))
    return cells


def cost_notes(cells: Iterable[Sequence[PriceCell]]) -> list[str]:
    """Each reason a table's $/Mtok cells give for having no figure, once, in table order: the
    table writes it once below and numbers the cells (an unpriced GPU says so once, not in
    every cell of every row)."""
    notes: dict[str, None] = {}
    for row in cells:
        for cell in row:
            if cell.usd_per_mtok is None and cell.reason:
                notes.setdefault(cell.reason, None)
    return list(notes)
