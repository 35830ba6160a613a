"""The TypedDicts of app.schemas.answers.pricing: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict

if TYPE_CHECKING:
    pass


class HourlyCostDict(TypedDict):
    """app.schemas.answers.pricing.HourlyCost"""

    capital_usd_per_hour: NotRequired[float | None]
    power_usd_per_hour: NotRequired[float | None]
    colo_usd_per_hour: NotRequired[float | None]
    opex_usd_per_hour: NotRequired[float | None]
    tco_usd_per_hour: NotRequired[float | None]
    rental_usd_per_hour: NotRequired[float | None]
    total_usd_per_gpu_hour: float
    utilization: float
    usd_per_useful_gpu_hour: float | None


class PricingProfileOutDict(TypedDict):
    """app.schemas.answers.pricing.PricingProfileOut"""

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
    usd_per_mtok_input: float | None
    usd_per_mtok_cached_input: float | None
    usd_per_mtok_output: float | None
    tier: str | None
    as_of: str | None
    source: str | None
    hourly_cost: HourlyCostDict


class PricingProfilesDict(TypedDict):
    """app.schemas.answers.pricing.PricingProfiles"""

    profiles: list[PricingProfileOutDict]


class BreakEvenDict(TypedDict):
    """app.schemas.answers.pricing.BreakEven"""

    profile_id: int
    usd_per_useful_gpu_hour: float
    output_to_input_ratio: float
    usd_per_mtok_input: float | None
    usd_per_mtok_output: float | None
