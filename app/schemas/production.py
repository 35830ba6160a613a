"""Query parameters of a deployment's production report (/production/{id} and its JSON twin)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.schemas.bounds import DbId
from app.schemas.readoff import Percentile


class ProductionQuery(BaseModel):
    """The frontier to compare with, its axes, an SLO, a flag threshold and a price."""

    model_config = ConfigDict(extra="ignore")

    sweep: DbId | None = Field(
        default=None,
        description="the benchmark sweep whose frontier the windows are compared with "
        "(default: the newest sweep of the deployment's model, hardware and GPU count)",
    )
    stat: Literal["mean", "p50", "p90", "p95", "p99"] = Field(
        default="p50",
        description="TPOT statistic of the interactivity axis: mean is exact (the histogram's "
        "_sum ÷ _count); a percentile lies in its bucket, so efficiency is an interval",
    )
    preset: str | None = Field(
        default=None,
        max_length=100,
        description="SLO preset key, custom (the limits given) or none (no limits); default: "
        "chat-interactive when no limit is given, as on every page",
    )
    basis: Literal["output", "total"] = "output"
    interpolation: Literal["staircase", "linear", "loglinear", "steffen"] = "staircase"
    ttft_ms: float | None = Field(default=None, ge=0, le=1e9, allow_inf_nan=False)
    tpot_ms: float | None = Field(default=None, ge=0, le=1e9, allow_inf_nan=False)
    e2el_ms: float | None = Field(default=None, ge=0, le=1e9, allow_inf_nan=False)
    attainment: float = Field(default=0.9, gt=0, le=1, allow_inf_nan=False)
    min_efficiency: float | None = Field(
        default=None, gt=0, le=10, allow_inf_nan=False, description="flag windows below this"
    )
    usd_per_gpu_hour: float | None = Field(
        default=None, gt=0, le=1e6, allow_inf_nan=False, description="price for $/Mtok"
    )
    pricing: DbId | None = Field(
        default=None,
        description="a pricing profile for $/Mtok (before usd_per_gpu_hour); only for its GPU",
    )
    percentile: list[Percentile] = Field(
        default_factory=list,
        max_length=10,
        description="more percentiles to read off the buckets (p50 … p99.9; repeat)",
    )


class ProductionPull(BaseModel):
    """A live pull: the deployment, the series (a label selector) and the time range."""

    model_config = ConfigDict(extra="forbid")

    deployment: str = Field(min_length=1, max_length=300)
    model: str | None = Field(default=None, max_length=200)
    hardware: str | None = Field(default=None, max_length=100)
    num_gpus: int | None = Field(default=None, ge=1, le=1_000_000)
    engine: str | None = Field(default=None, max_length=100)
    engine_version: str | None = Field(default=None, max_length=100)
    selector: str | None = Field(
        default=None, max_length=500, description='label="value" pairs, comma-separated'
    )
    start: str = Field(max_length=40, description="Unix seconds or ISO 8601")
    end: str = Field(max_length=40, description="Unix seconds or ISO 8601")
    window_s: float = Field(default=300, ge=1, le=86_400, allow_inf_nan=False)
