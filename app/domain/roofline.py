"""Decode roofline and prefill bound: what physics allows a model on given GPUs (metrics §5).

Pure math: imports only the standard library (no web, database or settings modules).
Units: bandwidth TB/s (1e12 B/s), memory GB (1e9 B), TFLOPS dense (1e12 FLOP/s), params in billions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

Bound = Literal["memory", "compute"]
BYTES_PER_PARAM: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    # 4-bit formats: 0.5 B per value; block scales (~1/32–1/16 B per param) are ignored,
    # which keeps the ceiling optimistic.
    "fp4": 0.5,
    "int4": 0.5,
}


def bytes_per_param(precision: str) -> float:
    """Bytes per weight or KV value for a precision (bf16, fp16, fp8, int8, fp4, int4, fp32)."""
    try:
        return BYTES_PER_PARAM[precision.strip().lower()]
    except KeyError:
        raise ValueError(
            f"unknown precision {precision!r}; expected one of {sorted(BYTES_PER_PARAM)}"
        ) from None


@dataclass(frozen=True)
class HardwareSpec:
    """One GPU: HBM bandwidth in TB/s, HBM in GB, dense TFLOPS per format (None = not offered)."""

    mem_bw_tb_s: float
    memory_gb: float
    bf16_tflops: float | None = None
    fp8_tflops: float | None = None
    fp4_tflops: float | None = None

    def tflops(self, precision: str) -> float | None:
        """Dense TFLOPS for math at `precision`, falling back to the next wider format offered."""
        p = precision.strip().lower()
        bytes_per_param(p)  # validates the name
        chain = {
            "fp4": (self.fp4_tflops, self.fp8_tflops, self.bf16_tflops),
            "int4": (self.fp4_tflops, self.fp8_tflops, self.bf16_tflops),
            "fp8": (self.fp8_tflops, self.bf16_tflops),
            "int8": (self.fp8_tflops, self.bf16_tflops),
        }.get(p, (self.bf16_tflops,))
        return next((v for v in chain if v is not None and v > 0), None)


@dataclass(frozen=True)
class ModelArch:
    """Model shape; params in billions. MLA when kv_lora_rank is set, MoE when experts is set."""

    total_params_b: float
    active_params_b: float | None = None
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    d_model: int | None = None
    kv_lora_rank: int | None = None
    rope_dim: int | None = None
    experts: int | None = None
    top_k: int | None = None
    # Active parameters per token in each phase where they differ (issue 50: DeepSeek V4.1
    # Flash activates about 8B per token in prefill and 16B in decode); None = active_params_b.
    prefill_active_params_b: float | None = None
    decode_active_params_b: float | None = None

    def __post_init__(self) -> None:
        if not self.total_params_b > 0:
            raise ValueError("total_params_b must be > 0")
        for name in ("active_params_b", "prefill_active_params_b", "decode_active_params_b"):
            value = getattr(self, name)
            if value is not None and not 0 < value <= self.total_params_b:
                raise ValueError(f"{name} must be in (0, total_params_b]")
        if self.is_moe and (self.top_k is None or not 0 < self.top_k <= (self.experts or 0)):
            raise ValueError("an MoE model needs 0 < top_k ≤ experts")

    @property
    def is_mla(self) -> bool:
        """True for multi-head latent attention (compressed KV, DeepSeek-V3 style)."""
        return self.kv_lora_rank is not None

    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model."""
        return self.experts is not None

    @property
    def active_params(self) -> float:
        """Parameters used per token (count, not billions); total when active is not given."""
        return (self.active_params_b or self.total_params_b) * 1e9

    @property
    def decode_active_params(self) -> float:
        """Parameters a decode step uses per token (count): the decode phase's own, else active."""
        return (
            self.decode_active_params_b * 1e9 if self.decode_active_params_b else self.active_params
        )

    @property
    def prefill_active_params(self) -> float:
        """Parameters prefill uses per prompt token (count): the phase's own, else active."""
        if self.prefill_active_params_b:
            return self.prefill_active_params_b * 1e9
        return self.active_params

    def phase_words(self) -> str | None:
        """How the phases differ, e.g. "prefill 8B, decode 16B active per token"; None when
        one active count serves both."""
        prefill, decode = self.prefill_active_params, self.decode_active_params
        if prefill == decode:
            return None
        return f"prefill {prefill / 1e9:g}B, decode {decode / 1e9:g}B active per token"

    @property
    def total_params(self) -> float:
        """All parameters (count, not billions)."""
        return self.total_params_b * 1e9


def kv_bytes_per_token(arch: ModelArch, kv_bytes: float) -> float:
    """KV cache bytes per token: MLA layers·(rank + rope)·b; else 2·layers·kv_heads·head_dim·b."""
    if arch.is_mla:
        if arch.layers is None or arch.kv_lora_rank is None or arch.rope_dim is None:
            raise ValueError("MLA KV size needs layers, kv_lora_rank and rope_dim")
        return arch.layers * (arch.kv_lora_rank + arch.rope_dim) * kv_bytes
    if arch.layers is None or arch.kv_heads is None or arch.head_dim is None:
        raise ValueError("KV size needs layers, kv_heads and head_dim")
    return 2 * arch.layers * arch.kv_heads * arch.head_dim * kv_bytes


def expert_coverage(batch: int, experts: int, top_k: int) -> float:
    """Share of routed experts B requests touch, 1 − (1 − k/E)^B (uniform routing); 0 if B ≤ 0."""
    if experts <= 0 or not 0 < top_k <= experts:
        raise ValueError("need 0 < top_k ≤ experts")
    if batch <= 0:
        return 0.0
    return 1.0 - (1.0 - top_k / experts) ** batch


def moe_split_params(arch: ModelArch) -> tuple[float, float]:
    """(always-read params, all routed-expert params) as counts; dense models are all always-read.

    Assumes active = shared + k·per_expert and total = shared + E·per_expert, so
    per_expert = (total − active)/(E − k); shared covers attention, embeddings, shared experts.
    """
    if not arch.is_moe or arch.experts is None or arch.top_k is None:
        return arch.total_params, 0.0
    if arch.experts == arch.top_k:
        return arch.total_params, 0.0
    # A decode step's weights: the decode phase's active count.
    per_expert = (arch.total_params - arch.decode_active_params) / (arch.experts - arch.top_k)
    routed = arch.experts * per_expert
    shared = arch.total_params - routed
    if shared < 0:
        raise ValueError("active params too small for this expert count and top-k")
    return shared, routed


def weight_bytes_read(arch: ModelArch, batch: int, weight_bytes: float) -> float:
    """Weight bytes read per decode step: dense P·b; MoE (shared + coverage(B)·routed)·b.

    At B = 1 the MoE value equals active params × b, as in the doc's batch-1 ceiling.
    """
    shared, routed = moe_split_params(arch)
    if routed == 0.0 or arch.experts is None or arch.top_k is None:
        return shared * weight_bytes
    return (shared + expert_coverage(batch, arch.experts, arch.top_k) * routed) * weight_bytes


def decode_flops(arch: ModelArch, batch: int, ctx_tokens: int, attention: bool = True) -> float:
    """FLOPs of one decode step, 2·P_active·B (+ 4·layers·d_model·B·ctx if attention and known),
    with the decode phase's active parameters."""
    flops = 2.0 * arch.decode_active_params * batch
    if attention and arch.layers is not None and arch.d_model is not None:
        flops += 4.0 * arch.layers * arch.d_model * batch * ctx_tokens
    return flops


@dataclass(frozen=True, slots=True)
class Deployment:
    """How a model is served, as the roofline reads it: weight and KV precision, GPUs, the share
    of HBM bandwidth reached (η) and of dense FLOPS (MFU), tokens accepted per step (speculative
    decoding) and the share of HBM kept for weights and KV."""

    weight_precision: str = "bf16"
    kv_precision: str = "bf16"
    num_gpus: int = 1
    bw_efficiency: float = 1.0
    mfu: float = 1.0
    accepted_length: float = 1.0
    mem_frac: float = 0.9


PHYSICS_LIMIT = Deployment()  # bf16 on one GPU at full bandwidth and FLOPS, 90 % of HBM


@dataclass(frozen=True)
class DecodeStep:
    """One decode step at batch B: bytes, FLOPs, times in s, and the token-rate ceilings."""

    batch: int
    bytes_per_step: float
    flops_per_step: float
    memory_s: float
    compute_s: float
    step_s: float
    bound: Bound
    interactivity_tok_s_user: float
    aggregate_tok_s: float
    tok_s_per_gpu: float


def decode_step(
    arch: ModelArch,
    hw: HardwareSpec,
    batch: int,
    ctx_tokens: int,
    deployment: Deployment = PHYSICS_LIMIT,
    *,
    attention_flops: bool = True,
) -> DecodeStep:
    """Step time max(bytes/BW_eff, FLOPs/FLOPS_eff), BW_eff = G·BW·η; rates × accepted length.

    Per-user ceiling accepted/t_step tok/s, aggregate B·accepted/t_step, per GPU aggregate/G.
    A GPU without TFLOPS for the format (e.g. Apple) is treated as purely bandwidth-bound.
    """
    d = deployment
    weight_precision, kv_precision, num_gpus = d.weight_precision, d.kv_precision, d.num_gpus
    bw_efficiency, mfu, accepted_length = d.bw_efficiency, d.mfu, d.accepted_length
    if batch < 1 or ctx_tokens < 0 or num_gpus < 1:
        raise ValueError("need batch ≥ 1, ctx_tokens ≥ 0 and num_gpus ≥ 1")
    if not 0 < bw_efficiency <= 1 or not 0 < mfu <= 1 or not accepted_length >= 1:
        raise ValueError("need efficiencies in (0, 1] and accepted_length ≥ 1")
    kv = kv_bytes_per_token(arch, bytes_per_param(kv_precision)) if ctx_tokens else 0.0
    step_bytes = weight_bytes_read(arch, batch, bytes_per_param(weight_precision))
    step_bytes += batch * ctx_tokens * kv
    flops = decode_flops(arch, batch, ctx_tokens, attention_flops)
    memory_s = step_bytes / (num_gpus * hw.mem_bw_tb_s * 1e12 * bw_efficiency)
    tflops = hw.tflops(weight_precision)
    compute_s = flops / (num_gpus * tflops * 1e12 * mfu) if tflops else 0.0
    step_s = max(memory_s, compute_s)
    aggregate = batch * accepted_length / step_s
    return DecodeStep(
        batch=batch,
        bytes_per_step=step_bytes,
        flops_per_step=flops,
        memory_s=memory_s,
        compute_s=compute_s,
        step_s=step_s,
        bound="compute" if compute_s > memory_s else "memory",
        interactivity_tok_s_user=accepted_length / step_s,
        aggregate_tok_s=aggregate,
        tok_s_per_gpu=aggregate / num_gpus,
    )


def max_batch(
    arch: ModelArch,
    hw: HardwareSpec,
    ctx_tokens: int,
    deployment: Deployment = PHYSICS_LIMIT,
    *,
    overhead_bytes: float = 0.0,
) -> int:
    """Sequences whose KV fits: floor((G·HBM·mem_frac − W_total − overhead)/(ctx·KV)), ≥ 0.

    All weights (every expert) stay resident. overhead_bytes covers what else the runtime keeps
    (activations, CUDA graphs, or the gap between a model's nominal and true parameter count);
    default 0 gives the physics ceiling.
    """
    weight_precision, kv_precision = deployment.weight_precision, deployment.kv_precision
    num_gpus, mem_frac = deployment.num_gpus, deployment.mem_frac
    if ctx_tokens <= 0 or num_gpus < 1 or not 0 < mem_frac <= 1 or overhead_bytes < 0:
        raise ValueError("need ctx_tokens > 0, num_gpus ≥ 1, mem_frac in (0, 1], overhead ≥ 0")
    usable = num_gpus * hw.memory_gb * 1e9 * mem_frac
    weights = arch.total_params * bytes_per_param(weight_precision)
    per_sequence = ctx_tokens * kv_bytes_per_token(arch, bytes_per_param(kv_precision))
    return max(0, math.floor((usable - weights - overhead_bytes) / per_sequence))


def prefill_flops(arch: ModelArch, prompt_tokens: int, attention: bool = True) -> float:
    """Prefill FLOPs 2·P_active·s (+ 2·layers·s²·d_model for causal QKᵀ and AV if known), with
    the prefill phase's active parameters."""
    flops = 2.0 * arch.prefill_active_params * prompt_tokens
    if attention and arch.layers is not None and arch.d_model is not None:
        flops += 2.0 * arch.layers * prompt_tokens**2 * arch.d_model
    return flops


def prefill_ttft_lower_bound_s(
    arch: ModelArch,
    hw: HardwareSpec,
    prompt_tokens: int,
    *,
    precision: str = "bf16",
    num_gpus: int = 1,
    mfu: float = 1.0,
    attention: bool = True,
) -> float | None:
    """TTFT lower bound in s (no queueing): prefill FLOPs / (G·TFLOPS·MFU); None without TFLOPS."""
    if not 0 < mfu <= 1 or num_gpus < 1:
        raise ValueError("need mfu in (0, 1] and num_gpus ≥ 1")
    tflops = hw.tflops(precision)
    if tflops is None:
        return None
    return prefill_flops(arch, prompt_tokens, attention) / (num_gpus * tflops * 1e12 * mfu)


def compute_bound_tok_s(
    arch: ModelArch, hw: HardwareSpec, precision: str, num_gpus: int = 1, mfu: float = 1.0
) -> float | None:
    """Aggregate decode ceiling from compute, G·FLOPS·MFU/(2·P_active decode) tok/s; None
    without TFLOPS."""
    tflops = hw.tflops(precision)
    if tflops is None:
        return None
    return num_gpus * tflops * 1e12 * mfu / (2.0 * arch.decode_active_params)


def required_bandwidth_tb_s(
    bytes_per_step: float, tok_s_per_user: float, accepted_length: float = 1.0
) -> float:
    """HBM bandwidth in TB/s needed for a per-user rate: bytes per step × steps per second."""
    return bytes_per_step * tok_s_per_user / accepted_length / 1e12


@dataclass(frozen=True)
class RooflinePoint:
    """One point of the roofline curve: batch, per-user and per-GPU ceilings, limiting resource."""

    batch: int
    interactivity_tok_s_user: float
    tok_s_per_gpu: float
    bound: Bound


def curve_batches(b_max: int) -> list[int]:
    """Batches 1, 2, 3, 4, 6, 8, 12, … (two per doubling) up to and including b_max."""
    batches: list[int] = []
    power = 1
    while power <= b_max:
        batches.extend(b for b in (power, 3 * power // 2) if b <= b_max and b not in batches)
        power *= 2
    if b_max >= 1 and batches[-1] != b_max:
        batches.append(b_max)
    return batches


def roofline_curve(
    arch: ModelArch,
    hw: HardwareSpec,
    ctx_tokens: int,
    deployment: Deployment = PHYSICS_LIMIT,
    *,
    overhead_bytes: float = 0.0,
) -> list[RooflinePoint]:
    """Ceiling curve for B = 1 … B_max at a fixed context; empty when no sequence fits in memory."""
    b_max = max_batch(arch, hw, ctx_tokens, deployment, overhead_bytes=overhead_bytes)
    points: list[RooflinePoint] = []
    for batch in curve_batches(b_max):
        step = decode_step(arch, hw, batch, ctx_tokens, deployment)
        points.append(
            RooflinePoint(batch, step.interactivity_tok_s_user, step.tok_s_per_gpu, step.bound)
        )
    return points
