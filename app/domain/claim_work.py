"""The record of a claim check: each line of arithmetic, the verdict, the numbers behind it.

Pure math: imports only the standard library and app.domain (no web, database or settings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from app.domain.claims import Context
from app.domain.roofline import DecodeStep, Deployment, HardwareSpec, ModelArch, decode_step

Verdict = Literal[
    "physically possible",
    "impossible",
    "possible only with speculative decoding",
    "cannot check",
]


@dataclass(frozen=True)
class Step:
    """One line of the arithmetic: what, how (numbers in), the result and its unit."""

    label: str
    formula: str
    value: float | None
    unit: str


@dataclass(frozen=True)
class Physics:
    """The verdict and every number behind it; ceilings are output tok/s."""

    verdict: Verdict
    summary: str
    missing: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
    context: Context | None = None
    weight_precision: str | None = None
    kv_precision: str = "bf16"
    num_gpus: int = 1
    compared_tok_s: float | None = None
    compared_as: str = ""
    ceiling_tok_s_user: float | None = None
    ceiling_tok_s: float | None = None
    ceiling_batch: int | None = None
    compute_bound_tok_s: float | None = None
    b_max: int | None = None
    required_bandwidth_tb_s: float | None = None
    required_accepted_length: float | None = None


@dataclass
class Work:
    """The setup of one check and the lines of arithmetic written so far."""

    ctx: Context
    precision: str
    kv_precision: str
    gpus: int = 1
    bw_efficiency: float = 1.0
    mem_frac: float = 0.9
    steps: list[Step] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)

    def add(self, label: str, formula: str, value: float | None, unit: str) -> None:
        self.steps.append(Step(label, formula, value, unit))

    def done(self, verdict: Verdict, summary: str, **numbers: float | int | str | None) -> Physics:
        return Physics(
            verdict,
            summary,
            assumptions=tuple(self.assumptions),
            steps=tuple(self.steps),
            context=self.ctx,
            weight_precision=self.precision,
            kv_precision=self.kv_precision,
            num_gpus=self.gpus,
            **numbers,  # type: ignore[arg-type]
        )

    def step(self, arch: ModelArch, hw: HardwareSpec, batch: int) -> DecodeStep:
        deployment = Deployment(
            self.precision, self.kv_precision, self.gpus, bw_efficiency=self.bw_efficiency
        )
        return decode_step(arch, hw, batch, self.ctx.step_tokens, deployment)
