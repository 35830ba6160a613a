"""What physics allows each planned system (issue 50): the decode ceiling at its operating point
with the decode phase's active parameters, the prefill bound with the prefill phase's (a model
may activate other parameters per token in each phase), and whether the KV cache at the point's
context bounds the batch (bytes per token of KV × context × batch ≤ memory left after weights).

The figures are ceilings, never estimates of what the system delivers: a measured goodput above
one says the inputs (model spec, precision, GPU count) are wrong, not that the system is fast.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.domain.claims import DEFAULT_CONTEXT, weight_precision
from app.domain.numbers import fmt_number
from app.domain.roofline import (
    Deployment,
    ModelArch,
    bytes_per_param,
    decode_step,
    kv_bytes_per_token,
    max_batch,
)
from app.schemas.answers.typed.plan import PlanPhysicsOutDict
from app.services.analysis import SweepAnalysis
from app.store import catalog

RULE = (
    "decode ceiling: one decode step at the operating point's concurrency (capped at the KV "
    "bound), weights and KV read at full bandwidth, with the decode phase's active parameters; "
    "prefill bound: prompt tokens per second per GPU at full dense FLOPS, 2 × the prefill "
    "phase's active parameters per token (attention left out); KV bound: sequences whose KV at "
    "the context fits in 90 % of HBM after all weights"
)


def _unknown(sweep_id: int, reason: str | None) -> PlanPhysicsOutDict:
    return {
        "sweep_id": sweep_id,
        "model_spec": None,
        "phases": None,
        "prefill_active_params_b": None,
        "decode_active_params_b": None,
        "ctx_tokens": None,
        "kv_bytes_per_token": None,
        "kv_max_batch": None,
        "batch": None,
        "kv_binds": None,
        "decode_ceiling_tok_s_per_gpu": None,
        "prefill_bound_tok_s_per_gpu": None,
        "words": None,
        "rule": RULE,
        "reason": reason,
    }


def _context(a: SweepAnalysis) -> tuple[int, float | None]:
    """The context a sequence holds at the operating point (its input + half its output tokens,
    measured, else the sweep's ISL/OSL) and the operating point's concurrency."""
    op = a.readoff.operating_point
    point = next((p for p in a.points if op is not None and p.point_id == op.point_id), None)
    inp = point.input_len if point is not None else None
    out = point.output_len if point is not None else None
    if inp is None or out is None:
        inp, out = a.meta.isl, a.meta.osl
    ctx = round(inp + out / 2) if inp is not None and out is not None else DEFAULT_CONTEXT
    load = None if op is None else op.concurrency
    return max(1, ctx), load


def _words(arch: ModelArch, ctx: int, b_max: int, batch: int | None) -> str:
    decode, prefill = arch.decode_active_params / 1e9, arch.prefill_active_params / 1e9
    phases = (
        f"decode ceiling with {decode:g}B active per token, prefill bound with {prefill:g}B"
        if decode != prefill
        else f"both phases with {decode:g}B active per token"
    )
    kv = f"the KV cache at {fmt_number(ctx)} tokens holds at most {fmt_number(b_max)} sequences"
    if batch is not None and batch > b_max:
        kv += f": it binds at concurrency {fmt_number(batch)}"
    return f"{phases}; {kv}"


def system_physics(session: Session, a: SweepAnalysis, model: str | None) -> PlanPhysicsOutDict:
    """One system's ceilings (null with the reason where the catalog lacks an input)."""
    sweep_id = int(a.meta.id)
    row = catalog.hardware_by_key(session, a.meta.hardware)
    hw = None if row is None else catalog.hardware_spec(row)
    if hw is None:
        return _unknown(sweep_id, f"no memory and bandwidth for {a.meta.hardware} in the catalog")
    spec = catalog.match_model_spec(session, model or a.meta.model)
    if spec is None:
        return _unknown(sweep_id, f"no model spec matches {model or a.meta.model!r}")
    arch = catalog.model_arch(spec)
    precision = weight_precision(a.meta.precision) or "bf16"
    gpus = max(1, a.meta.num_gpus or 1)
    # KV in BF16, as /api/roofline and Explore's ceilings assume unless told otherwise.
    deployment = Deployment(weight_precision=precision, kv_precision="bf16", num_gpus=gpus)
    ctx, load = _context(a)
    b_max = max_batch(arch, hw, ctx, deployment)
    batch = None if load is None else max(1, round(load))
    body = _unknown(sweep_id, None)
    tflops = hw.tflops(precision)
    body["model_spec"] = spec.key
    body["phases"] = arch.phase_words()
    body["prefill_active_params_b"] = arch.prefill_active_params / 1e9
    body["decode_active_params_b"] = arch.decode_active_params / 1e9
    body["ctx_tokens"] = ctx
    body["kv_bytes_per_token"] = kv_bytes_per_token(arch, bytes_per_param(deployment.kv_precision))
    body["kv_max_batch"] = b_max
    body["batch"] = batch
    body["kv_binds"] = None if batch is None else batch > b_max
    body["prefill_bound_tok_s_per_gpu"] = (
        None if tflops is None else tflops * 1e12 / (2.0 * arch.prefill_active_params)
    )
    body["words"] = _words(arch, ctx, b_max, batch)
    body["reason"] = None if b_max > 0 else "the weights leave no memory for the KV cache"
    if batch is not None and b_max > 0:
        step = decode_step(arch, hw, min(batch, b_max), ctx, deployment)
        body["decode_ceiling_tok_s_per_gpu"] = step.tok_s_per_gpu
    return body


def plan_physics(
    session: Session, analyses: list[SweepAnalysis], model: str | None
) -> list[PlanPhysicsOutDict]:
    """Each planned system's ceilings, in the plan's order."""
    return [system_physics(session, a, model) for a in analyses]
