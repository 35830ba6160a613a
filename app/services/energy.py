"""Tokens per joule of a read-off (issue 37): measured, where a file carried the GPUs' power,
beside the estimate from the catalog's all-in power, each named, on the read-off's token basis.

The measured figure divides by the GPU boards' own power (telemetry such as DCGM); the estimate
by the catalog's provisioned all-in kW (GPU, host, network, facility). They answer different
questions, so neither stands in for the other."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.cost import tokens_per_joule
from app.domain.covariates import GPU_POWER_W
from app.services.analysis import SweepAnalysis

MEASURED = "measured: the GPUs' own power from the file's telemetry (no host, network, cooling)"
ESTIMATE = "estimate: the catalog's all-in kW per GPU (GPU, host, network, facility), provisioned"


@dataclass(frozen=True)
class Joules:
    measured: float | None  # tok/J at the operating point, from measured GPU power
    estimate: float | None  # tok/J from the catalog's all-in power
    token_basis: str  # output, total (input + output) or input tokens


def of(result: SweepAnalysis) -> Joules:
    """Tokens per joule at the read-off's operating point on its token basis."""
    per_gpu = result.goodput_tok_s_per_total_gpu
    estimate = None
    if result.allin_kw is not None:
        estimate = tokens_per_joule(per_gpu, result.allin_kw * 1000.0)
    measured = None
    op = result.readoff.operating_point
    if op is not None and per_gpu is not None and result.point_covariates:
        at = next((k for k, p in enumerate(result.points) if p.point_id == op.point_id), None)
        watts = None if at is None else result.point_covariates[at].get(GPU_POWER_W)
        measured = tokens_per_joule(per_gpu * result.meta.num_gpus, watts)
    return Joules(measured, estimate, result.readoff.basis)


def as_json(joules: Joules) -> dict[str, object]:
    return {
        "measured": joules.measured,
        "estimate": joules.estimate,
        "token_basis": joules.token_basis,
        "measured_power": MEASURED,
        "estimate_power": ESTIMATE,
    }
