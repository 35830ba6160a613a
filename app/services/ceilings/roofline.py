"""The decode roofline of any hardware × model: ceilings B = 1 … B_max, one step's arithmetic,
the compute and prefill bounds and, with a sweep, each measured point's share of the ceiling.

Glue between the query, the catalogs and app.domain.roofline (the arithmetic); /api/roofline
shows exactly what `roofline` returns.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.domain.claims import DEFAULT_CONTEXT, weight_precision
from app.domain.point import PointMetrics
from app.domain.roofline import (
    DecodeStep,
    Deployment,
    HardwareSpec,
    ModelArch,
    bytes_per_param,
    compute_bound_tok_s,
    decode_step,
    expert_coverage,
    kv_bytes_per_token,
    max_batch,
    prefill_flops,
    prefill_ttft_lower_bound_s,
)
from app.domain.sweep_meta import SweepMeta
from app.schemas.answers.typed.claims import (
    DecodeStepOutDict,
    PointShareDict,
    PrefillOutDict,
    RooflineDict,
    RooflineInputsDict,
)
from app.schemas.claims import RooflineQuery
from app.services.ceilings.physics import ceiling_curve
from app.services.errors import Invalid
from app.store import catalog
from app.store import points as point_queries
from app.store.models import Hardware, ModelSpec


def roofline(session: Session, query: RooflineQuery) -> RooflineDict:
    """Decode ceilings (B = 1 … B_max), one step's arithmetic, compute and prefill bounds; with a
    sweep, each measured point's share of the ceiling at its concurrency."""
    meta: SweepMeta | None = None
    rows: list[dict[str, Any]] = []
    if query.sweep is not None:
        [loaded] = point_queries.sweeps_with_points(session, [query.sweep])
        meta, rows = loaded.meta, loaded.rows
    # What the sweep says, where the query does not.
    stated = (meta.hardware, meta.model, meta.precision) if meta else (None, None, None)
    row, hw = _hardware(session, query.hardware, stated[0])
    spec = _model_spec(session, query.model or stated[1])
    precision = weight_precision(query.precision or stated[2]) or "bf16"
    if query.precision and weight_precision(query.precision) is None:
        raise Invalid("precision", f"unknown precision {query.precision!r}")
    gpus = query.gpus or (meta.num_gpus if meta else 1)
    ctx = _context(query, meta)
    arch = catalog.model_arch(spec, query.params_b)
    # The query's MFU is the prefill bound's: decode ceilings are at full FLOPS.
    deployment = Deployment(
        weight_precision=precision,
        kv_precision=query.kv_precision,
        num_gpus=gpus,
        bw_efficiency=query.efficiency,
        accepted_length=query.accepted_length,
        mem_frac=query.mem_frac,
    )
    b_max = max_batch(arch, hw, ctx, deployment) if ctx > 0 else None
    curve = ceiling_curve(arch, hw, deployment, hardware=row.key, model=spec.key, ctx=ctx)
    points = curve.points if ctx > 0 else []  # no context: no KV, so no capacity bound either
    gpus_measured = meta.num_gpus if meta else 1
    prompt = query.isl if query.isl is not None else (meta and meta.isl) or ctx
    return {
        "inputs": _inputs_json(query, row.key, gpus, spec.key, arch, precision, ctx),
        "name": curve.name,
        "weight_bytes": arch.total_params * bytes_per_param(precision),
        "kv_bytes_per_token": kv_bytes_per_token(arch, bytes_per_param(query.kv_precision)),
        "b_max": b_max,
        "compute_bound_tok_s": compute_bound_tok_s(arch, hw, precision, gpus),
        "step": _step_json(arch, hw, query, ctx, deployment),
        "prefill": _prefill_json(arch, hw, query, prompt, precision, gpus),
        "curve": [
            {
                "batch": p.batch,
                "interactivity_tok_s_user": p.interactivity_tok_s_user,
                "tok_s_per_gpu": p.tok_s_per_gpu,
                "bound": p.bound,
            }
            for p in points
        ],
        "points": _shares(arch, hw, query, ctx, deployment, rows, gpus_measured, b_max),
    }


def _hardware(
    session: Session, asked: str | None, stated: str | None
) -> tuple[Hardware, HardwareSpec]:
    """The catalog's row and roofline inputs for the query's hardware, else the sweep's."""
    row = catalog.hardware_by_key(session, asked or stated)
    if row is None:
        raise Invalid("hardware", f"{asked!r} is not in the hardware catalog")
    hw = catalog.hardware_spec(row)
    if hw is None:
        raise Invalid("hardware", f"{row.key} has no memory size or bandwidth in the catalog")
    return row, hw


def _model_spec(session: Session, model: str | None) -> ModelSpec:
    spec = catalog.match_model_spec(session, model)
    if spec is None:
        known = ", ".join(s.key for s in catalog.model_specs(session))
        raise Invalid("model", f"no model spec matches {model!r} (known: {known})")
    return spec


def _context(query: RooflineQuery, meta: SweepMeta | None) -> int:
    """The query's context, else the sweep's ISL + OSL / 2, else the default."""
    if query.ctx is not None:
        return query.ctx
    isl, osl = (meta.isl, meta.osl) if meta else (None, None)
    return isl + osl // 2 if isl is not None and osl is not None else DEFAULT_CONTEXT


def _inputs_json(
    query: RooflineQuery,
    hardware: str,
    gpus: int,
    model: str,
    arch: ModelArch,
    precision: str,
    ctx: int,
) -> RooflineInputsDict:
    return {
        "hardware": hardware,
        "gpus": gpus,
        "model": model,
        "params_b": arch.total_params_b,
        "active_params_b": arch.active_params / 1e9,
        # Each phase's own where they differ: decode ceilings use decode's, prefill prefill's.
        "prefill_active_params_b": arch.prefill_active_params / 1e9,
        "decode_active_params_b": arch.decode_active_params / 1e9,
        "phases": arch.phase_words(),
        "precision": precision,
        "kv_precision": query.kv_precision,
        "ctx": ctx,
        "accepted_length": query.accepted_length,
        "efficiency": query.efficiency,
        "mem_frac": query.mem_frac,
        "sweep": query.sweep,
    }


def _step_json(
    arch: ModelArch, hw: HardwareSpec, query: RooflineQuery, ctx: int, deployment: Deployment
) -> DecodeStepOutDict:
    step = decode_step(arch, hw, query.batch, ctx, deployment, attention_flops=query.attention)
    data: DecodeStepOutDict = {
        "batch": step.batch,
        "bytes_per_step": step.bytes_per_step,
        "flops_per_step": step.flops_per_step,
        "memory_s": step.memory_s,
        "compute_s": step.compute_s,
        "step_s": step.step_s,
        "bound": step.bound,
        "interactivity_tok_s_user": step.interactivity_tok_s_user,
        "aggregate_tok_s": step.aggregate_tok_s,
        "tok_s_per_gpu": step.tok_s_per_gpu,
    }
    if arch.is_moe and arch.experts and arch.top_k:
        data["expert_coverage"] = expert_coverage(query.batch, arch.experts, arch.top_k)
    return data


def _prefill_json(
    arch: ModelArch, hw: HardwareSpec, query: RooflineQuery, prompt: int, precision: str, gpus: int
) -> PrefillOutDict:
    flops = prefill_flops(arch, prompt, query.attention)
    linear = prefill_flops(arch, prompt, attention=False)
    return {
        "prompt_tokens": prompt,
        "mfu": query.mfu,
        "flops": flops,
        "attention_share": (flops - linear) / linear if linear else None,
        "ttft_lower_bound_s": prefill_ttft_lower_bound_s(
            arch,
            hw,
            prompt,
            precision=precision,
            num_gpus=gpus,
            mfu=query.mfu,
            attention=query.attention,
        ),
    }


def _shares(
    arch: ModelArch,
    hw: HardwareSpec,
    query: RooflineQuery,
    ctx: int,
    deployment: Deployment,
    rows: list[dict[str, Any]],
    num_gpus: int,
    b_max: int | None,
) -> list[PointShareDict]:
    """Each point's measured speed and throughput ÷ the ceiling at batch ≈ its concurrency."""
    out: list[PointShareDict] = []
    for row in rows:
        point = PointMetrics.from_row({**row, "num_gpus": num_gpus})
        load = row.get("achieved_concurrency") or row.get("concurrency")
        x, y = point.interactivity_tok_s_user(query.stat), point.tok_s_per_gpu("output")
        if load is None or b_max == 0:
            out.append(
                {
                    "point_id": row["point_id"],
                    "concurrency": load,
                    "interactivity_tok_s_user": x,
                    "tok_s_per_gpu": y,
                    "share_of_ceiling": None,
                    "reason": "no concurrency or no B_max",
                }
            )
            continue
        batch = max(1, round(float(load)))
        note = None
        if b_max is not None and batch > b_max:
            note = f"concurrency above B_max {b_max}: compared at B_max"
            batch = b_max
        step = decode_step(arch, hw, batch, ctx, deployment)
        out.append(_share(row["point_id"], load, x, y, note, step))
    return out


def _share(
    point_id: int, load: float, x: float | None, y: float | None, note: str | None, step: DecodeStep
) -> PointShareDict:
    """A point against the ceiling at its batch; the note only when compared at B_max."""
    entry: PointShareDict = {
        "point_id": point_id,
        "concurrency": load,
        "interactivity_tok_s_user": x,
        "tok_s_per_gpu": y,
        "note": note,
        "batch": step.batch,
        "ceiling_interactivity_tok_s_user": step.interactivity_tok_s_user,
        "ceiling_tok_s_per_gpu": step.tok_s_per_gpu,
        "share_of_ceiling": None if x is None else x / step.interactivity_tok_s_user,
        "throughput_share": None if y is None else y / step.tok_s_per_gpu,
    }
    if note is None:
        del entry["note"]
    return entry
