"""Demand parameters of a capacity plan, shared by /api/plan, the Plan page and the CLI."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.domain.plan import DEMAND_UNITS, Demand
from app.schemas.explore import ExploreQuery
from app.schemas.readoff import ReadoffQuery, SweepsAsked


class PlanQuery(BaseModel):
    """Average demand in one unit, its peak-to-average factor, and the headroom kept free."""

    model_config = ConfigDict(extra="ignore")

    requests_per_s: float | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="average demand, requests/s"
    )
    output_tok_s: float | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="average demand, output tokens/s"
    )
    tokens_per_day: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="average demand, input + output tokens per day",
    )
    concurrent_sessions: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="average demand, concurrent sessions (agents) of a multi-turn run",
    )
    peak_to_average: float = Field(
        default=1.0, ge=1, le=1000, allow_inf_nan=False, description="capacity is sized for peak"
    )
    headroom: float = Field(
        default=0.0, ge=0, le=10, allow_inf_nan=False, description="fraction kept free (0.25)"
    )

    @model_validator(mode="after")
    def _one_demand(self) -> PlanQuery:
        given = [u for u in DEMAND_UNITS if getattr(self, u) is not None]
        if len(given) > 1:
            raise ValueError(f"give one demand, not {' and '.join(given)}")
        return self

    def demand(self) -> Demand | None:
        """The demand given, or None when none of the units was given."""
        for unit in DEMAND_UNITS:
            value = getattr(self, unit)
            if value is not None:
                return Demand(unit, float(value), self.peak_to_average, self.headroom)
        return None


class PlanParams(ReadoffQuery, PlanQuery):
    """/api/plan's and the CLI's parameters: the read-off's SLO and prices plus the demand."""


class PlanRequest(PlanParams, SweepsAsked):
    """/api/plan's query and the MCP `plan` tool's arguments: one model, so they agree."""


class PlanPageQuery(ExploreQuery, PlanQuery):
    """Explore's URL state (series, SLO presets, price sets) plus the demand."""
