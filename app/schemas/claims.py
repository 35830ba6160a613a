"""ClaimIn: a vendor claim as it crosses the API or the form, checked field by field."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from app.domain.claims import SCOPE_GPUS
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
    value_tok_s: float = Field(gt=0, allow_inf_nan=False, description="the claimed tok/s")
    measures: Literal["per_user", "per_gpu", "system"] = Field(
        description="per_user (interactivity), per_gpu, or system (the whole scope)"
    )
    token_basis: Literal["output", "total"] | None = Field(
        default=None,
        validate_default=True,
        description="output tokens, or total = input + output tokens",
    )
    interactivity_tok_s_user: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    batch: int | None = Field(default=None, ge=1, description="concurrency the claim was made at")
    isl: int | None = Field(default=None, ge=0, description="input tokens per request")
    osl: int | None = Field(default=None, ge=1, description="output tokens per request")
    spec_decode: str | None = Field(
        default=None, max_length=100, description="none, mtp, eagle, …; empty = not stated"
    )
    source_url: str | None = Field(default=None, max_length=2000)
    claimed_at: dt.date | None = None
    notes: str | None = Field(default=None, max_length=5000)
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

    @field_validator("model", "precision", "spec_decode", "source_url", "notes", mode="before")
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
