"""POST /api/check's body and `paretoscope check`'s options."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from app.schemas.readoff import ReadoffQuery
from app.schemas.text import StorableText


class CheckQuery(ReadoffQuery, StorableText):
    """The read-off's SLO and price options, the two sweeps, and the tolerance."""

    model_config = ConfigDict(extra="forbid")

    candidate: str = Field(min_length=1, max_length=300, description="sweep id, tag or name")
    baseline: str = Field(min_length=1, max_length=300, description="sweep id, tag or name")
    tolerance: float = Field(
        default=0.05, ge=0, le=1, allow_inf_nan=False, description="fraction, 0.05 = 5 %"
    )
    base_url: str | None = Field(
        default=None, max_length=500, description="where the Compare link points"
    )
    scope: Literal["slo", "frontier"] = Field(
        default="slo",
        description="slo: the read-off at the SLO (goodput, $/Mtok); frontier: the candidate's "
        "frontier below the baseline's band beyond the tolerance over `share` of the shared "
        "interactivity range",
    )
    share: float = Field(
        default=0.30,
        gt=0,
        le=1,
        allow_inf_nan=False,
        description="--scope frontier: the share of the shared range that makes a regression",
    )
    allow_different: bool = Field(
        default=False,
        description="compare sweeps of different models, workloads or ISL/OSL, or a demo or "
        "mock-server sweep against a measured one (a comparison, never a regression)",
    )

    @field_validator("candidate", "baseline", mode="before")
    @classmethod
    def _id_as_text(cls, value: object) -> object:
        # JSON clients send an id as a number; it names the sweep like its digits do.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value
