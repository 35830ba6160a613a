"""A claim's verdict: every stored sweep of the claim's model architecture (any hardware, the
claim's own first) read at the claim's interactivity, and the sentence that says whether the
claim holds (app.domain.claim_verdict).

A sweep's model is matched to a catalog spec by name (the spec's key or name within it); two
specs are the same architecture when every shape the physics uses is equal: total and active
parameters, layers, width, KV heads, head size, latent KV rank, experts and top-k (Llama 3.3 70B
is Llama 3.1 70B's; Llama 2 70B is not).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.claim_verdict import (
    ClaimVerdict,
    SweepRead,
    best_reaching,
    claim_interactivity,
    verdict,
)
from app.domain.claims import Claim, on_basis, per_gpu_tok_s
from app.domain.numbers import fmt_number
from app.domain.point import Stat
from app.domain.slo import Slo
from app.schemas.answers.typed.claims import AuditVerdictDict, VerdictSweepDict
from app.services import analysis
from app.store.catalog import models_match, squash
from app.store.catalog_cache import Catalog
from app.store.models import ModelSpec, Sweep, VendorClaim

MAX_SWEEPS = 40  # read at most this many (the claim's hardware first, then the newest)
SHAPE = (
    "total_params_b",
    "active_params_b",
    "prefill_active_params_b",
    "decode_active_params_b",
    "layers",
    "d_model",
    "kv_heads",
    "head_dim",
    "kv_lora_rank",
    "experts",
    "top_k",
)
RULE = (
    "the claim's tok/s per GPU against the most tok/s per GPU any measured point reaches at or "
    "above the claim's interactivity (no interpolation, no extrapolation), among sweeps of the "
    "same model architecture on the claim's hardware (vendor-reported sweeps left out); sweeps "
    "on other hardware are read and listed but do not judge the claim"
)


def spec_of(specs: Iterable[ModelSpec], model: str | None) -> ModelSpec | None:
    """The spec a sweep's free-text model names: an exact key or name, else the longest key or
    name found inside it ("meta-llama/Llama-3.3-70B-Instruct" → llama-3.3-70b)."""
    text = squash(model)
    if not text:
        return None
    found: list[tuple[int, bool, ModelSpec]] = []
    for spec in specs:
        for name in (spec.key, spec.name):
            key = squash(name)
            if key and key in text:
                found.append((len(key), key == text, spec))
    if not found:
        return None
    return max(found, key=lambda f: (f[1], f[0]))[2]


def same_architecture(a: ModelSpec, b: ModelSpec) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in SHAPE)


def architecture_sweeps(
    session: Session, claim: VendorClaim, spec: ModelSpec | None, specs: list[ModelSpec]
) -> tuple[list[Any], int]:
    """Sweeps of the claim's model architecture (by spec), or of its model name when it has no
    spec; the claim's hardware first, then the newest; at most MAX_SWEEPS, with the count."""
    if not claim.model:
        return [], 0
    rows = session.execute(
        select(Sweep.id, Sweep.hardware, Sweep.model)
        .where(Sweep.source_kind != "vendor")  # a vendor's own numbers are claims too
        .order_by(Sweep.id.desc())
    ).all()
    kept: list[Any] = []
    seen: dict[str, bool] = {}
    for sweep in rows:
        name = sweep.model or ""
        if name not in seen:
            if spec is None:
                seen[name] = models_match(claim.model, name)
            else:
                other = spec_of(specs, name)
                seen[name] = other is not None and same_architecture(spec, other)
        if seen[name]:
            kept.append(sweep)
    own = claim.hardware.lower()
    kept.sort(key=lambda s: (s.hardware or "").lower() != own)  # stable: newest first within
    return kept[:MAX_SWEEPS], len(kept)


def claim_verdict(
    session: Session,
    kept: Catalog,
    claim: VendorClaim,
    facts: Claim,
    basis: str,
    stat: Stat,
) -> AuditVerdictDict:
    """The verdict sentence, what it rests on, and every same-architecture sweep's read."""
    specs = list(kept.model_specs)
    spec = kept.model_spec(claim.model)
    sweeps, found = architecture_sweeps(session, claim, spec, specs)
    at = claim_interactivity(facts)
    per_gpu, _ = per_gpu_tok_s(facts)
    claim_y = on_basis(per_gpu, facts, basis)
    basis_reason = None
    if claim_y is None:
        basis_reason = (
            f"the claim counts {facts.token_basis} tokens and gives no ISL/OSL, so it cannot be "
            f"put on the {basis} basis; choose basis={facts.token_basis}"
        )
    reads = _reads(session, kept, claim, sweeps, basis, stat, at)
    if not claim.model:
        found_verdict = ClaimVerdict(
            "cannot_say",
            "cannot say: the claim names no model, so no sweep can be compared with it",
            at,
            claim_y,
        )
    else:
        found_verdict = verdict(claim_y, at, claim.hardware, reads, basis_reason)
    best = found_verdict.best
    return {
        "state": found_verdict.state,
        "sentence": found_verdict.sentence,
        "at_tok_s_user": found_verdict.at_tok_s_user,
        "claim_tok_s_per_gpu": found_verdict.claim_tok_s_per_gpu,
        "best_sweep_id": None if best is None else best.sweep_id,
        "best_tok_s_per_gpu": None if best is None else best.tok_s_per_gpu,
        "ratio": found_verdict.ratio,
        "basis": basis,
        "stat": stat,
        "architecture": None if spec is None else spec.key,
        "rule": RULE,
        "sweeps": [_read_json(r, claim_y) for r in reads],
        "sweeps_found": found,
    }


def _read_json(r: SweepRead, claim_y: float | None) -> VerdictSweepDict:
    return {
        "sweep_id": r.sweep_id,
        "name": r.name,
        "hardware": r.hardware,
        "model": r.model,
        "same_hardware": r.same_hardware,
        "same_model": r.same_model,
        "tok_s_per_gpu": r.tok_s_per_gpu,
        "interactivity_tok_s_user": r.interactivity_tok_s_user,
        "reason": r.reason,
        "has_throughput": r.has_throughput,
        "claim_ratio": None
        if claim_y is None or not r.tok_s_per_gpu
        else claim_y / r.tok_s_per_gpu,
    }


def _reads(
    session: Session,
    kept: Catalog,
    claim: VendorClaim,
    sweeps: list[Any],
    basis: str,
    stat: Stat,
    at: float | None,
) -> list[SweepRead]:
    if not sweeps:
        return []
    params = analysis.Params(slo=Slo(), basis=basis, stat=stat)  # type: ignore[arg-type]
    results, _ = analysis.run(session, [s.id for s in sweeps], params, [], None, kept)
    own = claim.hardware.lower()
    out = []
    for result in results:
        meta = result.meta
        y, x = (None, None) if at is None else best_reaching(result.xs, result.ys, at)
        reason = None
        has_throughput = any(v is not None for v in result.ys)
        if not has_throughput:
            reason = f"no {basis} throughput" + (" (total_tok_s)" if basis == "total" else "")
        elif at is None:
            reason = "the claim names no interactivity"
        elif y is None:
            fastest = max((v for v in result.xs if v is not None), default=None)
            reason = f"no point reaches {fmt_number(at)} tok/s/user" + (
                "" if fastest is None else f" (its fastest: {fmt_number(fastest)})"
            )
        out.append(
            SweepRead(
                sweep_id=int(meta.id),
                name=str(meta.name),
                hardware=meta.hardware,
                model=meta.model,
                same_hardware=(meta.hardware or "").lower() == own,
                same_model=bool(claim.model) and models_match(claim.model, meta.model),
                tok_s_per_gpu=y,
                interactivity_tok_s_user=x,
                reason=reason,
                has_throughput=has_throughput,
            )
        )
    return out
