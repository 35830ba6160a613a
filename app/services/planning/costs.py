"""A plan's prices: each price applied to a sized fleet ($/month, its ownership breakdown and
$/Mtok at the average demand), and the price columns without a price for a sweep's GPU."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from sqlalchemy.orm import Session

from app.domain import plan as domain
from app.domain.cost import HOURS_PER_MONTH
from app.domain.metrics import Basis
from app.domain.plan import RequestShape, Sizing
from app.services.prices import Price
from app.services.readoff import price_columns
from app.store import pricing as pricing_queries

# Ownership components of a profile's hourly cost, reported per month.
OWNERSHIP_PARTS = (
    "capital_usd_per_hour",
    "power_usd_per_hour",
    "colo_usd_per_hour",
    "opex_usd_per_hour",
)


# A price from a rental or ownership profile, or one given inline ($/GPU-hour in the query).
PriceKind = Literal["rental", "ownership", "inline"]


@dataclass
class PlanCost:
    """One price applied to one sweep's fleet."""

    price: Price
    kind: PriceKind
    usd_per_month: float | None = None
    breakdown_usd_per_month: dict[str, float] | None = None
    usd_per_mtok_average: float | None = None
    reason: str | None = None
    cheapest: bool = False


class Sized(Protocol):
    """What of app.services.planning.sizing.PlanResult a cost reads."""

    @property
    def sizing(self) -> Sizing | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def shape(self) -> RequestShape: ...
    @property
    def demand_requests_per_s_average(self) -> float | None: ...


def price_details(
    session: Session, profile_ids: list[int]
) -> tuple[dict[int, PriceKind], dict[int, dict[str, float | None]]]:
    """Each profile's kind and hourly cost parts, by id."""
    profiles = pricing_queries.get_profiles(session, profile_ids)
    # What is not ownership is costed as a rental (store.pricing.hourly_cost), so named one.
    kinds: dict[int, PriceKind] = {
        p.id: "ownership" if p.kind == "ownership" else "rental" for p in profiles
    }
    hourly = {p.id: pricing_queries.hourly_cost(p) for p in profiles}
    return kinds, hourly


def cost_of(
    result: Sized,
    price: Price,
    kinds: dict[int, PriceKind],
    hourly: dict[int, dict[str, float | None]],
    basis: Basis,
) -> PlanCost:
    kind: PriceKind = "inline" if price.profile_id is None else kinds[price.profile_id]
    cost = PlanCost(price, kind)
    if result.sizing is None:
        cost.reason = "no fleet: " + (result.reason or "not sized")
        return cost
    gpus = result.sizing.gpus
    cost.usd_per_month = domain.usd_per_month(price.usd_per_gpu_hour, gpus)
    parts = hourly[price.profile_id] if price.profile_id is not None else {}
    # An all-in TCO per GPU-hour (InferenceX's ownership tiers) has no parts to break down.
    if kind == "ownership" and all(name in parts for name in OWNERSHIP_PARTS):
        cost.breakdown_usd_per_month = {
            name.replace("_usd_per_hour", "_usd_per_month"): (parts[name] or 0.0)
            * gpus
            * HOURS_PER_MONTH
            for name in OWNERSHIP_PARTS
        }
    tokens = result.shape.tokens(basis)
    average_rps = result.demand_requests_per_s_average
    if tokens is None or average_rps is None:
        cost.reason = f"{basis} tokens per request not measured: no $/Mtok"
    else:
        cost.usd_per_mtok_average = domain.usd_per_mtok_at_average(
            cost.usd_per_month, average_rps * tokens
        )
    return cost


def unpriced(
    columns: list[price_columns.PriceColumn], prices: list[Price], hardware: str
) -> list[tuple[str, str]]:
    """The price columns without a price for this GPU, each with what to do instead."""
    out = []
    own = price_columns.own_label(columns)
    for column in columns:
        mine = [
            p
            for p in prices
            if (column.inline and p.profile_id is None) or p.profile_id in column.profile_ids
        ]
        if not any(p.applies_to(hardware) for p in mine):
            priced = [p.hardware for p in mine]
            reason = price_columns.no_price_reason(hardware, priced, column.price_set, own)
            out.append((column.label, reason))
    return out
