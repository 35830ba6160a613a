"""ClaimIn: a vendor claim as it crosses the API or the form, checked field by field."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.domain.bounds import DB_INT_MAX
from app.domain.claims import SCOPE_GPUS
from app.schemas.bounds import DbId, Positive
from app.schemas.readoff import ReadoffQuery
from app.schemas.text import StorableText

CLAIM_FIELDS: tuple[str, ...] = (
    "vendor",
    "hardware",
    "gpu_scope",
    "scope_gpus",
    "model",
    "precision",
    "value_tok_s",
    "measures",
    "token_basis",
    "interactivity_tok_s_user",
    "batch",
    "isl",
    "osl",
    "spec_decode",
    "source_url",
    "claimed_at",
    "notes",
    "example",
    "harness",
    "provenance",
)


class ClaimIn(StorableText):
    """A number a vendor published, what it measures and on what; the hardware must be known."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    vendor: str = Field(min_length=1, max_length=200, description="who made the claim")
    hardware: str = Field(min_length=1, max_length=50, description="GPU key from the catalog")
    gpu_scope: Literal["gpu", "node", "rack"] = Field(
        default="gpu", description="what the number is for: one GPU, a node or a rack"
    )
    scope_gpus: int | None = Field(
        default=None, ge=1, le=100_000, description="GPUs in that scope (node 8, rack 72 default)"
    )
    model: str | None = Field(default=None, max_length=200)
    precision: str | None = Field(default=None, max_length=50, description="weights: fp8, fp4, …")
    value_tok_s: Positive = Field(description="the claimed tok/s")
    measures: Literal["per_user", "per_gpu", "system"] = Field(
        description="per_user (interactivity), per_gpu, or system (the whole scope)"
    )
    token_basis: Literal["output", "total"] | None = Field(
        default=None,
        validate_default=True,
        description="output tokens, or total = input + output tokens",
    )
    interactivity_tok_s_user: Positive | None = None
    batch: int | None = Field(
        default=None, ge=1, le=DB_INT_MAX, description="concurrency the claim was made at"
    )
    isl: int | None = Field(
        default=None, ge=0, le=DB_INT_MAX, description="input tokens per request"
    )
    osl: int | None = Field(
        default=None, ge=1, le=DB_INT_MAX, description="output tokens per request"
    )
    spec_decode: str | None = Field(
        default=None, max_length=100, description="none, mtp, eagle, …; empty = not stated"
    )
    source_url: str | None = Field(default=None, max_length=2000)
    claimed_at: dt.date | None = None
    notes: str | None = Field(default=None, max_length=5000)
    harness: str | None = Field(
        default=None,
        max_length=100,
        description="who measured the number: MLPerf Inference v5.1, InferenceX, the vendor's lab",
    )
    provenance: Literal["independent", "vendor"] | None = Field(
        default=None,
        description=(
            "independent (MLPerf, InferenceX, your own run) or vendor (the vendor's own setup); "
            "empty = not stated"
        ),
    )
    example: bool = Field(
        default=False,
        description="a worked example, not anyone's claim: hidden on Explore unless asked for",
    )

    @field_validator("token_basis")
    @classmethod
    def _basis_given(cls, value: str | None) -> str | None:
        if value is None:
            raise ValueError(
                "say whether the number counts output tokens or input + output tokens"
                " (output | total)"
            )
        return value

    @field_validator(
        "model",
        "precision",
        "spec_decode",
        "source_url",
        "notes",
        "harness",
        "provenance",
        mode="before",
    )
    @classmethod
    def _blank_is_missing(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _scope_gpus(self) -> ClaimIn:
        if self.scope_gpus is None:
            self.scope_gpus = SCOPE_GPUS[self.gpu_scope]
        elif self.gpu_scope == "gpu" and self.scope_gpus != 1:
            raise ValueError("scope_gpus: a per-GPU scope has 1 GPU; choose node or rack")
        return self


# The weight and KV-cache precisions the physics knows.
Precision = Literal["bf16", "fp16", "fp8", "int8", "fp4", "int4", "fp32"]
AUDIT_DEFAULT_PRESET = "chat-interactive"  # as Explore's first visit


class AuditQuery(ReadoffQuery):
    """Read-off parameters (as /api/readoff) plus the physics knobs of the audit."""

    sweep: list[DbId] = Field(
        default_factory=list, description="sweeps to compare; default: matching"
    )
    accepted_length: float | None = Field(
        default=None,
        ge=1,
        le=64,
        description="most tokens per step granted to speculative decoding",
    )
    params_b: float | None = Field(
        default=None, gt=0, le=100_000, description="parameter count override in billions (O6: 70)"
    )
    kv_precision: Precision = "bf16"
    logx: bool = Field(
        default=False, description="log x axis; default: on when the claim is far out"
    )
    preset: str | None = Field(
        default=None,
        description=f"SLO preset key, custom (the limits given) or none (no limits); default:"
        f" {AUDIT_DEFAULT_PRESET} when no limit is given",
    )


class RooflineQuery(BaseModel):
    """What to compute the ceiling for; a sweep fills hardware, GPUs, model, precision, context."""

    model_config = ConfigDict(extra="ignore")

    sweep: DbId | None = Field(default=None, description="sweep id: defaults + each point's share")
    hardware: str | None = Field(default=None, description="GPU key from the catalog")
    gpus: int | None = Field(default=None, ge=1, le=100_000)
    model: str | None = Field(default=None, description="model spec key or name")
    precision: str | None = Field(default=None, description="weight precision: bf16, fp8, fp4 …")
    kv_precision: Precision = "bf16"
    # Bounded as Explore's roofline_ctx: past them the step's bytes overflow a double.
    ctx: int | None = Field(
        default=None, ge=0, le=10_000_000, description="context tokens (default ISL + OSL/2)"
    )
    accepted_length: float = Field(default=1.0, ge=1, le=64, allow_inf_nan=False)
    efficiency: float = Field(default=1.0, gt=0, le=1, description="share of HBM bandwidth (η)")
    mem_frac: float = Field(default=0.9, gt=0, le=1, description="share of HBM for weights + KV")
    params_b: float | None = Field(
        default=None, gt=0, le=1_000_000, allow_inf_nan=False, description="parameter count, B"
    )
    batch: int = Field(
        default=1, ge=1, le=1_000_000, description="the batch of the single step reported"
    )
    isl: int | None = Field(
        default=None, ge=0, le=10_000_000, description="prompt tokens of the TTFT bound"
    )
    mfu: float = Field(default=1.0, gt=0, le=1, description="model FLOPs utilisation for prefill")
    attention: bool = Field(default=True, description="count attention FLOPs")
    stat: Literal["mean", "p50", "p90", "p95", "p99"] = "p50"
