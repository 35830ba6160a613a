"""Query parameters of a read-off (SLO, axes, pricing), shared by /api/readoff, the pages, the
claim audit, check and plan."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from app.domain.checks import PERCENTILE_PATTERN, PERCENTILE_WORDS, percentile_percent
from app.domain.intervals import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL
from app.domain.slo import Slo
from app.domain.token_classes import ClassPrices
from app.schemas.bounds import MAX_SWEEPS_ASKED, DbId


def _percentile(value: str) -> str:
    """A percentile in p50 … p99.9, or the error in words (the pattern stays in the schema)."""
    try:
        percentile_percent(value)
    except ValueError:
        raise PydanticCustomError("percentile", PERCENTILE_WORDS) from None
    return value


# The schema still documents the pattern; a value that misses it is told so in words.
Percentile = Annotated[
    str, AfterValidator(_percentile), Field(json_schema_extra={"pattern": PERCENTILE_PATTERN})
]


class ReadoffQuery(BaseModel):
    """SLO limits in ms (a limit not given is not checked), axis choices and prices."""

    model_config = ConfigDict(extra="ignore")

    ttft_ms: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    tpot_ms: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    min_tok_s_user: float | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="instead of tpot_ms: 1000/value"
    )
    e2el_ms: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    percentile: Percentile = Field(
        default="p90",
        description="default percentile of every limit: p50 … p99.9 (e.g. p75, p99.9)",
    )
    ttft_percentile: Percentile | None = Field(default=None, description="TTFT's own percentile")
    tpot_percentile: Percentile | None = Field(default=None, description="TPOT's own percentile")
    e2el_percentile: Percentile | None = Field(default=None, description="E2EL's own percentile")
    mode: Literal["percentile", "requests"] = "percentile"
    attainment: float = Field(default=0.9, gt=0, le=1, allow_inf_nan=False)
    basis: Literal["output", "total", "input"] = "output"
    accounting: Literal["gpu", "decode_gpu", "prefill_gpu", "node", "kw"] = Field(
        default="gpu",
        description="throughput per total GPU (default), per decode GPU, per prefill GPU, per "
        "node (catalog GPUs per node) or per kW (catalog all-in kW); costs stay per GPU-hour",
    )
    stat: Literal["mean", "p50", "p90", "p95", "p99"] = Field(
        default="p50", description="TPOT statistic of the x axis"
    )
    pricing: list[DbId] = Field(default_factory=list, description="pricing profile ids")
    price_set: str | None = Field(
        default=None,
        description="a dated price set, tier@date (e.g. costr@2026-09-08): one profile per GPU",
    )
    usd_per_gpu_hour: float | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="an inline rental price"
    )
    usd_per_mtok_input: float | None = Field(
        default=None, ge=0, allow_inf_nan=False, description="API price of uncached input, $/Mtok"
    )
    usd_per_mtok_cached_input: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="API price of cached (prefix-hit) input, $/Mtok; cached tokens billed once",
    )
    usd_per_mtok_output: float | None = Field(
        default=None, ge=0, allow_inf_nan=False, description="API price of output, $/Mtok"
    )
    interpolation: Literal["staircase", "linear", "loglinear", "steffen"] = "staircase"
    allow_different: bool = Field(
        default=False,
        description="Compare and Plan: set systems measured in different scenarios (an agentic "
        "replay against a fixed-length run) against each other; refused unless given",
    )
    interactivity: Literal["tpot", "e2e"] = Field(
        default="tpot",
        description="x axis: tpot = 1000 / TPOT (per-token speed); e2e = E2E-normalized, "
        "1000 / the e2e_percentile of E2EL ÷ OSL over successful requests (needs samples)",
    )
    e2e_percentile: float = Field(
        default=90.0,
        ge=50,
        le=99.9,
        allow_inf_nan=False,
        description="percentile of E2EL ÷ OSL read for interactivity=e2e (p90 as InferenceX)",
    )
    points: bool = Field(default=False, description="add every point's verdict and reason")
    ci_level: float = Field(
        default=DEFAULT_LEVEL,
        ge=MIN_LEVEL,
        le=MAX_LEVEL,
        allow_inf_nan=False,
        description="level of every interval (0.5 … 0.999; 0.95 = 95 %)",
    )

    @model_validator(mode="after")
    def _one_tpot_limit(self) -> ReadoffQuery:
        if self.tpot_ms is not None and self.min_tok_s_user is not None:
            raise ValueError("give tpot_ms or min_tok_s_user, not both")
        # Each is 1000 / the other: a subnormal value would make its counterpart infinite.
        for name in ("tpot_ms", "min_tok_s_user"):
            value = getattr(self, name)
            if value and not math.isfinite(1000.0 / value):
                raise ValueError(f"{name}: {value!r} is too small (1000 / it is not finite)")
        return self

    def class_prices(self) -> ClassPrices:
        """The API prices by token class the query gives (issue 50)."""
        return ClassPrices(
            self.usd_per_mtok_input, self.usd_per_mtok_cached_input, self.usd_per_mtok_output
        )

    def slo(self) -> Slo:
        tpot = self.tpot_ms
        if self.min_tok_s_user is not None:
            tpot = 1000.0 / self.min_tok_s_user
        return Slo(
            self.ttft_ms,
            tpot,
            self.e2el_ms,
            self.percentile,
            self.attainment,
            self.ttft_percentile,
            self.tpot_percentile,
            self.e2el_percentile,
        )


class SweepsAsked(BaseModel):
    """The sweeps an analysis reads: ids, in order (repeated `sweep` in a query string)."""

    sweep: list[DbId] = Field(
        description="sweep id; repeat for several", max_length=MAX_SWEEPS_ASKED
    )


class MissesQuery(ReadoffQuery):
    """One point's requests that missed the SLO: its sweep and its point id (issue 50)."""

    sweep: DbId = Field(description="the sweep's id")
    point_id: int = Field(ge=0, le=2**53, description="the point's id (as the read-off gives it)")
    input_tokens_low: int | None = Field(
        default=None, ge=0, le=2**31, description="only requests of at least this prompt length"
    )
    input_tokens_high: int | None = Field(
        default=None, gt=0, le=2**31, description="only requests of prompt length below this"
    )
    turn_index: int | None = Field(
        default=None, ge=0, le=2**31, description="only requests of this turn of a session"
    )


class ReadoffRequest(ReadoffQuery, SweepsAsked):
    """/api/readoff's query and the MCP `readoff` tool's arguments: one model, so they agree."""
