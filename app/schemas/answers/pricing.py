"""Pricing profiles as the API answers them, with the hourly cost breakdown."""

from __future__ import annotations

from pydantic import Field

from app.schemas.answers.common import Answer


class HourlyCost(Answer):
    """USD per GPU-hour by component: the four ownership parts, one all-in TCO, or a rental
    price (only the keys of the profile's kind are present), then the totals."""

    capital_usd_per_hour: float | None = None
    power_usd_per_hour: float | None = None
    colo_usd_per_hour: float | None = None
    opex_usd_per_hour: float | None = None
    tco_usd_per_hour: float | None = None
    rental_usd_per_hour: float | None = None
    total_usd_per_gpu_hour: float
    utilization: float
    usd_per_useful_gpu_hour: float | None = Field(description="null when utilization is 0")


class PricingProfileOut(Answer):
    id: int
    name: str
    kind: str
    hardware: str | None
    key: str | None
    usd_per_gpu_hour: float | None
    capex_usd: float | None
    life_years: float | None
    cost_of_capital: float | None
    power_kw: float | None
    pue: float | None
    usd_per_kwh: float | None
    colo_usd_per_kw_month: float | None
    other_opex_pct_per_year: float | None
    utilization: float
    # API prices by token class, $/Mtok (issue 50); null where the profile gives none.
    usd_per_mtok_input: float | None
    usd_per_mtok_cached_input: float | None
    usd_per_mtok_output: float | None
    tier: str | None
    as_of: str | None
    source: str | None
    hourly_cost: HourlyCost


class PricingProfiles(Answer):
    profiles: list[PricingProfileOut]


class BreakEven(Answer):
    profile_id: int
    usd_per_useful_gpu_hour: float
    output_to_input_ratio: float
    usd_per_mtok_input: float | None
    usd_per_mtok_output: float | None
