"""Vendor claims (CRUD), a claim's audit, and the decode roofline of any hardware × model."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.charts.roofline import placement_figure
from app.domain.claims import DEFAULT_CONTEXT, weight_precision
from app.domain.point import PointMetrics
from app.domain.roofline import (
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
from app.http.deps import IdPath, SessionDep, WriteDep
from app.http.errors import AppError
from app.schemas.answers.claims import ClaimAudit, ClaimList, ClaimOut, Roofline
from app.schemas.claims import AuditQuery, ClaimIn, RooflineQuery
from app.schemas.responses import ERROR_RESPONSES
from app.services.catalog_checks import checked_claim
from app.services.claims_audit import audit
from app.services.physics import ceiling_curve, physics_for
from app.store import catalog, catalog_cache
from app.store import claims as q
from app.store import points as point_queries

router = APIRouter(prefix="/api", tags=["claims"], responses=ERROR_RESPONSES)


@router.get("/claims", name="api_claims_list", response_model=ClaimList)
def api_claims_list(session: SessionDep) -> dict[str, Any]:
    """Every claim, newest first, each with its physics verdict."""
    kept = catalog_cache.current(session)
    return {
        "claims": [
            {**q.claim_dict(c), "verdict": physics_for(kept, c).verdict}
            for c in q.list_claims(session)
        ]
    }


@router.post(
    "/claims",
    name="api_claims_create",
    status_code=201,
    dependencies=[WriteDep],
    response_model=ClaimOut,
)
def api_claims_create(body: ClaimIn, session: SessionDep) -> dict[str, Any]:
    """Record a claim; the hardware must be in the catalog and the token basis stated.

    Across fields: token_basis is required (output or total); a gpu_scope of gpu has
    scope_gpus 1 (node and rack default to their own count); the hardware must be in the
    catalog.
    """
    claim = q.save_claim(session, checked_claim(session, body))
    session.commit()
    return q.claim_dict(claim)


@router.get("/claims/{claim_id}", name="api_claims_detail", response_model=ClaimOut)
def api_claims_detail(claim_id: IdPath, session: SessionDep) -> dict[str, Any]:
    """One claim as stored."""
    return q.claim_dict(q.get_claim(session, claim_id))


@router.put(
    "/claims/{claim_id}",
    name="api_claims_update",
    dependencies=[WriteDep],
    response_model=ClaimOut,
)
def api_claims_update(claim_id: IdPath, body: ClaimIn, session: SessionDep) -> dict[str, Any]:
    """Replace a claim's values.

    Across fields: token_basis is required (output or total); a gpu_scope of gpu has
    scope_gpus 1 (node and rack default to their own count); the hardware must be in the
    catalog.
    """
    claim = q.save_claim(session, checked_claim(session, body), claim_id)
    session.commit()
    return q.claim_dict(claim)


@router.delete(
    "/claims/{claim_id}", name="api_claims_delete", status_code=204, dependencies=[WriteDep]
)
def api_claims_delete(claim_id: IdPath, session: SessionDep) -> Response:
    """Delete a claim."""
    q.delete_claim(session, claim_id)
    session.commit()
    return Response(status_code=204)


@router.get(
    "/claims/{claim_id}/audit",
    name="api_claims_audit",
    response_model=ClaimAudit,
    response_model_exclude_unset=True,
)
def api_claims_audit(
    claim_id: IdPath, session: SessionDep, query: Annotated[AuditQuery, Query()]
) -> dict[str, Any]:
    """Physics verdict with its arithmetic, open questions, the Pareto placement, and what the
    matching sweeps deliver at the SLO (same parameters and numbers as /api/readoff)."""
    result = audit(session, q.get_claim(session, claim_id), query)
    return {**result.body, "figure": placement_figure(result.placement)}


@router.get(
    "/roofline",
    name="api_roofline",
    tags=["analysis"],
    response_model=Roofline,
    response_model_exclude_unset=True,
)
def api_roofline(session: SessionDep, query: Annotated[RooflineQuery, Query()]) -> dict[str, Any]:
    """Decode ceilings (B = 1 … B_max), one step's arithmetic, compute and prefill bounds; with a
    sweep, each measured point's share of the ceiling at its concurrency."""
    meta: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    if query.sweep is not None:
        [loaded] = point_queries.sweeps_with_points(session, [query.sweep])
        meta, rows = loaded.meta, loaded.rows
    row = catalog.hardware_by_key(session, query.hardware or meta.get("hardware"))
    if row is None:
        raise _invalid("hardware", f"{query.hardware!r} is not in the hardware catalog")
    hw = catalog.hardware_spec(row)
    if hw is None:
        raise _invalid("hardware", f"{row.key} has no memory size or bandwidth in the catalog")
    model = query.model or meta.get("model")
    spec = catalog.match_model_spec(session, model)
    if spec is None:
        known = ", ".join(s.key for s in catalog.model_specs(session))
        raise _invalid("model", f"no model spec matches {model!r} (known: {known})")
    precision = weight_precision(query.precision or meta.get("precision")) or "bf16"
    if query.precision and weight_precision(query.precision) is None:
        raise _invalid("precision", f"unknown precision {query.precision!r}")
    gpus = query.gpus or int(meta.get("num_gpus") or 1)
    ctx = query.ctx
    if ctx is None:
        isl, osl = meta.get("isl"), meta.get("osl")
        ctx = int(isl) + int(osl) // 2 if isl is not None and osl is not None else DEFAULT_CONTEXT
    arch = catalog.model_arch(spec, query.params_b)
    settings = {"weight_precision": precision, "kv_precision": query.kv_precision, "num_gpus": gpus}
    b_max = (
        max_batch(arch, hw, ctx, mem_frac=query.mem_frac, **settings)  # type: ignore[arg-type]
        if ctx > 0
        else None
    )
    curve = ceiling_curve(
        arch,
        hw,
        hardware=row.key,
        model=spec.key,
        gpus=gpus,
        precision=precision,
        ctx=ctx,
        kv_precision=query.kv_precision,
        accepted_length=query.accepted_length,
        efficiency=query.efficiency,
        mem_frac=query.mem_frac,
    )
    points = curve.points if ctx > 0 else []  # no context: no KV, so no capacity bound either
    prompt = query.isl if query.isl is not None else int(meta.get("isl") or ctx)
    return {
        "inputs": {
            "hardware": row.key,
            "gpus": gpus,
            "model": spec.key,
            "params_b": arch.total_params_b,
            "active_params_b": arch.active_params / 1e9,
            "precision": precision,
            "kv_precision": query.kv_precision,
            "ctx": ctx,
            "accepted_length": query.accepted_length,
            "efficiency": query.efficiency,
            "mem_frac": query.mem_frac,
            "sweep": query.sweep,
        },
        "name": curve.name,
        "weight_bytes": arch.total_params * bytes_per_param(precision),
        "kv_bytes_per_token": kv_bytes_per_token(arch, bytes_per_param(query.kv_precision)),
        "b_max": b_max,
        "compute_bound_tok_s": compute_bound_tok_s(arch, hw, precision, gpus),
        "step": _step_json(arch, hw, query, ctx, settings),
        "prefill": _prefill_json(arch, hw, query, prompt, precision, gpus),
        "curve": [dataclasses.asdict(p) for p in points],
        "points": _shares(arch, hw, query, ctx, settings, rows, meta, b_max),
    }


def _invalid(field: str, message: str) -> AppError:
    return AppError(
        422, "Invalid request", f"{field}: {message}", [{"field": field, "message": message}]
    )


def _step_json(
    arch: ModelArch, hw: HardwareSpec, query: RooflineQuery, ctx: int, settings: dict[str, Any]
) -> dict[str, Any]:
    step = decode_step(
        arch,
        hw,
        query.batch,
        ctx,
        bw_efficiency=query.efficiency,
        accepted_length=query.accepted_length,
        attention_flops=query.attention,
        **settings,
    )
    data = dataclasses.asdict(step)
    if arch.is_moe and arch.experts and arch.top_k:
        data["expert_coverage"] = expert_coverage(query.batch, arch.experts, arch.top_k)
    return data


def _prefill_json(
    arch: ModelArch, hw: HardwareSpec, query: RooflineQuery, prompt: int, precision: str, gpus: int
) -> dict[str, Any]:
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
    settings: dict[str, Any],
    rows: list[dict[str, Any]],
    meta: dict[str, Any],
    b_max: int | None,
) -> list[dict[str, Any]]:
    """Each point's measured speed and throughput ÷ the ceiling at batch ≈ its concurrency."""
    out = []
    for row in rows:
        point = PointMetrics.from_row({**row, "num_gpus": meta["num_gpus"]})
        load = row.get("achieved_concurrency") or row.get("concurrency")
        entry: dict[str, Any] = {"point_id": row["point_id"], "concurrency": load}
        x, y = point.interactivity_tok_s_user(query.stat), point.tok_s_per_gpu("output")
        entry.update(interactivity_tok_s_user=x, tok_s_per_gpu=y)
        if load is None or b_max == 0:
            out.append({**entry, "share_of_ceiling": None, "reason": "no concurrency or no B_max"})
            continue
        batch = max(1, round(float(load)))
        if b_max is not None and batch > b_max:
            entry["note"] = f"concurrency above B_max {b_max}: compared at B_max"
            batch = b_max
        step = decode_step(
            arch,
            hw,
            batch,
            ctx,
            bw_efficiency=query.efficiency,
            accepted_length=query.accepted_length,
            **settings,
        )
        entry.update(
            batch=batch,
            ceiling_interactivity_tok_s_user=step.interactivity_tok_s_user,
            ceiling_tok_s_per_gpu=step.tok_s_per_gpu,
            share_of_ceiling=None if x is None else x / step.interactivity_tok_s_user,
            throughput_share=None if y is None else y / step.tok_s_per_gpu,
        )
        out.append(entry)
    return out
