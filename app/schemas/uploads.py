"""The JSON body that previews or saves a staged upload: details for all sweeps and for each."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.domain.columns import SWEEP_COLUMN_NAMES

DetailValue = str | int | None
MAX_STAGED_SWEEPS = 10_000  # an archive holds at most 10,000 files


def _known(details: dict[str, DetailValue]) -> dict[str, DetailValue]:
    unknown = sorted(set(details) - set(SWEEP_COLUMN_NAMES))
    if unknown:
        raise ValueError(
            f"unknown field {unknown[0]!r}; the fields are {', '.join(SWEEP_COLUMN_NAMES)}"
        )
    return details


class StagedDetails(BaseModel):
    """`details` fill every sweep where its files are silent (as the fields of POST /api/sweeps);
    `sweeps[i]` are sweep i's own (in the order the staging answer lists them), stored whatever
    its files say. Field names are the sweep columns: sweep, hardware, num_gpus, model, …"""

    model_config = ConfigDict(extra="forbid")

    details: dict[str, DetailValue] = Field(default_factory=dict)
    sweeps: list[dict[str, DetailValue]] = Field(default_factory=list, max_length=MAX_STAGED_SWEEPS)
    # Sweeps (their indices) marked as disaggregated serving: each needs its prefill and decode
    # GPUs, from its files or `sweeps[i]`, as the upload page asks (issue 37).
    disaggregated: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=list, max_length=MAX_STAGED_SWEEPS
    )

    @field_validator("details")
    @classmethod
    def _details_known(cls, value: dict[str, DetailValue]) -> dict[str, DetailValue]:
        return _known(value)

    @field_validator("sweeps")
    @classmethod
    def _sweeps_known(cls, value: list[dict[str, DetailValue]]) -> list[dict[str, DetailValue]]:
        return [_known(v) for v in value]
