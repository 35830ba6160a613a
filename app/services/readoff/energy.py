"""Tokens per joule of a read-off (issue 37): measured, where a file carried the GPUs' power,
beside the estimate from the catalog's all-in power, each named, on the read-off's token basis.

The measured figure divides by the GPU boards' own power (telemetry such as DCGM); the estimate
by the catalog's provisioned all-in kW (GPU, host, network, facility). They answer different
questions, so neither stands in for the other."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.cost import tokens_per_joule
from app.domain.covariates import GPU_POWER_INVALID, GPU_POWER_W
from app.domain.metrics import Basis
from app.schemas.answers.typed.readoff import TokensPerJouleDict
from app.services.analysis import SweepAnalysis

MEASURED = "measured: the GPUs' own power from the file's telemetry (no host, network, cooling)"
ESTIMATE = "estimate: the catalog's all-in kW per GPU (GPU, host, network, facility), provisioned"


NO_POWER = "the file carries no measured GPU power"
INVALID = "the file marks its GPU power measurement invalid (InferenceX power_valid = 0)"
NO_POINT = "no operating point at this SLO"
NO_GOODPUT = "the operating point's goodput per total GPU is unknown"


@dataclass(frozen=True)
class Joules:
    measured: float | None  # tok/J at the operating point, from measured GPU power
    estimate: float | None  # tok/J from the catalog's all-in power
    token_basis: Basis  # output, total (input + output) or input tokens
    measured_reason: str | None = None  # why `measured` is unknown


def of(result: SweepAnalysis) -> Joules:
    """Tokens per joule at the read-off's operating point on its token basis."""
    per_gpu = result.goodput_tok_s_per_total_gpu
    estimate = None
    if result.allin_kw is not None:
        estimate = tokens_per_joule(per_gpu, result.allin_kw * 1000.0)
    op = result.readoff.operating_point
    measured, reason = None, NO_POINT if op is None else NO_GOODPUT
    if op is not None and per_gpu is not None:
        at = next((k for k, p in enumerate(result.points) if p.point_id == op.point_id), None)
        found = result.point_covariates[at] if at is not None and result.point_covariates else {}
        measured = tokens_per_joule(per_gpu * result.meta.num_gpus, found.get(GPU_POWER_W))
        reason = INVALID if found.get(GPU_POWER_INVALID) else NO_POWER
    why = None if measured is not None else reason
    return Joules(measured, estimate, result.readoff.basis, why)


def as_json(joules: Joules) -> TokensPerJouleDict:
    return {
        "measured": joules.measured,
        "estimate": joules.estimate,
        "token_basis": joules.token_basis,
        "measured_reason": joules.measured_reason,
        "measured_power": MEASURED,
        "estimate_power": ESTIMATE,
    }
