"""Pydantic shapes that cross the API boundary (inputs validated here, outputs are plain dicts)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from app.schemas.bounds import NonNegative, Positive, not_tiny
from app.schemas.text import StorableText

OWNERSHIP_REQUIRED = (
    "capex_usd",
    "life_years",
    "cost_of_capital",
    "power_kw",
    "pue",
    "usd_per_kwh",
)
OWNERSHIP_OPTIONAL = ("colo_usd_per_kw_month", "other_opex_pct_per_year")
PRICING_NUMBER_FIELDS = (
    "usd_per_gpu_hour",
    *OWNERSHIP_REQUIRED,
    *OWNERSHIP_OPTIONAL,
    "utilization",
    "usd_per_mtok_input",
    "usd_per_mtok_cached_input",
    "usd_per_mtok_output",
)


class PricingIn(StorableText):
    """A rental ($/GPU-hour) or ownership (capex-based) pricing profile."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    kind: Literal["rental", "ownership"]
    hardware: str | None = Field(
        default=None, max_length=50, description="GPU key from the catalog"
    )
    key: str | None = Field(
        default=None, max_length=100, description="stable key for presets; empty = no key"
    )
    usd_per_gpu_hour: Positive | None = None
    capex_usd: NonNegative | None = Field(default=None, description="per GPU")
    life_years: float | None = Field(default=None, gt=0, le=30, allow_inf_nan=False)
    cost_of_capital: float | None = Field(
        default=None, ge=0, lt=1, allow_inf_nan=False, description="fraction per year, 0.10 = 10 %"
    )
    power_kw: NonNegative | None = Field(default=None, description="IT kW per GPU")
    pue: float | None = Field(default=None, ge=1, le=3, allow_inf_nan=False)
    usd_per_kwh: NonNegative | None = None
    colo_usd_per_kw_month: NonNegative | None = None
    other_opex_pct_per_year: float | None = Field(default=None, ge=0, le=100, allow_inf_nan=False)
    utilization: float = Field(default=1.0, gt=0, le=1, allow_inf_nan=False)
    usd_per_mtok_input: NonNegative | None = Field(
        default=None, description="API price of uncached input tokens, $/Mtok"
    )
    usd_per_mtok_cached_input: NonNegative | None = Field(
        default=None, description="API price of cached (prefix-hit) input tokens, $/Mtok"
    )
    usd_per_mtok_output: NonNegative | None = Field(
        default=None, description="API price of output tokens, $/Mtok"
    )
    tier: str | None = Field(default=None, max_length=50)
    as_of: dt.date | None = None
    source: str | None = Field(default=None, max_length=5000)

    _tiny = field_validator("life_years", "utilization")(not_tiny)

    @field_validator("hardware", "key", "tier", "source", mode="before")
    @classmethod
    def _blank_is_missing(cls, value: object) -> object:
        # An empty key is no key: two profiles without one must not clash on "".
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _kind_needs_its_fields(self) -> PricingIn:
        if self.kind == "rental" and self.usd_per_gpu_hour is None:
            raise ValueError("a rental profile needs usd_per_gpu_hour")
        # Ownership: capex-based inputs, or one all-in TCO per GPU-hour as a study quotes it.
        # Capex-based inputs are all or nothing: the breakdown needs every one of them (capex
        # without a life divides by zero), an all-in price beside them or not.
        if self.kind == "ownership" and (
            self.usd_per_gpu_hour is None or self.capex_usd is not None
        ):
            missing = [f for f in OWNERSHIP_REQUIRED if getattr(self, f) is None]
            if missing:
                raise ValueError(
                    f"an ownership profile with capex_usd needs {', '.join(missing)} too"
                    if self.capex_usd is not None
                    else f"an ownership profile needs {', '.join(missing)} "
                    "(or an all-in usd_per_gpu_hour)"
                )
        return self


class PricingQuery(StorableText):
    """/api/pricing's filter and the MCP `list_prices` tool's arguments."""

    hardware: str | None = Field(
        default=None, max_length=50, description="only this GPU's profiles (a catalog key)"
    )
