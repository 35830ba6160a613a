"""A claim's audit: physics, placement among measured frontiers, what sweeps deliver at the SLO.

Glue between the claim, the catalogs, analysis.run and the domain; the page and
/api/claims/{id}/audit both show exactly what `audit` returns, with the placement drawn by
charts.roofline.placement_figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.domain.claim_work import Physics
from app.domain.claims import Claim, fmt, on_basis, open_questions, per_gpu_tok_s
from app.domain.cost import usd_per_mtok
from app.domain.provenance import provenance_text
from app.schemas.answers.typed.claims import (
    AuditComparisonDict,
    AuditCostDict,
    ClaimAuditBodyDict,
    PhysicsOutDict,
)
from app.schemas.claims import AUDIT_DEFAULT_PRESET, AuditQuery
from app.services.analysis import Params, SweepAnalysis
from app.services.ceilings.physics import Curve, claim_ceiling, physics_for
from app.services.claims.verdict import claim_verdict
from app.services.readoff.document import readoff_body, run_query
from app.services.readoff.query import preset_limits
from app.store import catalog_cache
from app.store import claims as claim_queries
from app.store import pricing as pricing_queries
from app.store.models import SloPreset, VendorClaim


@dataclass(frozen=True)
class Placement:
    """What the audit's chart draws: the compared sweeps, the claim and its ceiling."""

    results: list[SweepAnalysis]
    params: Params
    claim: VendorClaim
    ceiling: Curve | None
    verdict: str
    log_x: bool | None  # None: decide from where the claim lies


@dataclass(frozen=True)
class Audit:
    body: ClaimAuditBodyDict
    placement: Placement


LIMITS = {"ttft_ms", "tpot_ms", "min_tok_s_user", "e2el_ms"}


def apply_preset(session: Session, query: AuditQuery) -> tuple[AuditQuery, str | None]:
    """A named preset sets the limits; none clears them; custom keeps the given ones; without
    any of these or a limit, Explore's default preset applies."""
    key = query.preset
    if key == "custom" or (key is None and query.model_fields_set & LIMITS):
        return query, None
    if key == "none":
        return query.model_copy(update=dict.fromkeys(LIMITS)), None
    preset = session.get(SloPreset, key or AUDIT_DEFAULT_PRESET)
    if preset is None:
        return query, None
    return query.model_copy(update=preset_limits(preset)), preset.key


def physics_json(physics: Physics) -> PhysicsOutDict:
    """The verdict and its arithmetic; each step also as shown (six significant digits)."""
    context = physics.context
    return {
        "verdict": physics.verdict,
        "summary": physics.summary,
        "missing": list(physics.missing),
        "assumptions": list(physics.assumptions),
        "steps": [
            {
                "label": step.label,
                "formula": step.formula,
                "value": step.value,
                "unit": step.unit,
                "shown": "–" if step.value is None else fmt(step.value),
            }
            for step in physics.steps
        ],
        "context": None
        if context is None
        else {
            "step_tokens": context.step_tokens,
            "capacity_tokens": context.capacity_tokens,
            "rule": context.rule,
        },
        "weight_precision": physics.weight_precision,
        "kv_precision": physics.kv_precision,
        "num_gpus": physics.num_gpus,
        "compared_tok_s": physics.compared_tok_s,
        "compared_as": physics.compared_as,
        "ceiling_tok_s_user": physics.ceiling_tok_s_user,
        "ceiling_tok_s": physics.ceiling_tok_s,
        "ceiling_batch": physics.ceiling_batch,
        "compute_bound_tok_s": physics.compute_bound_tok_s,
        "b_max": physics.b_max,
        "required_bandwidth_tb_s": physics.required_bandwidth_tb_s,
        "required_accepted_length": physics.required_accepted_length,
    }


def default_pricing(session: Session, hardware: str) -> list[int]:
    """The newest profile for this GPU, preferring InferenceX 3-year rental (Explore's default)."""
    profiles = [
        p
        for p in pricing_queries.list_profiles(session)
        if (p.hardware or "").lower() == hardware.lower()
    ]
    if not profiles:
        return []
    best = max(profiles, key=lambda p: (p.tier == "costr", p.as_of is not None, p.as_of or 0))
    return [best.id]


def audit(session: Session, claim: VendorClaim, query: AuditQuery) -> Audit:
    """Physics, open questions, the read-off of the compared sweeps, and what to place them on."""
    facts = claim_queries.domain_claim(claim)
    kept = catalog_cache.current(session)
    spec = kept.model_spec(claim.model)
    physics = physics_for(
        kept,
        claim,
        params_b=query.params_b,
        accepted_length=query.accepted_length,
        kv_precision=query.kv_precision,
    )
    aliases = (spec.key, spec.name) if spec else ()
    if "basis" not in query.model_fields_set:
        query = query.model_copy(update={"basis": claim.token_basis})
    # Judged at the claim's own interactivity, not at any SLO's operating point.
    found = claim_verdict(session, kept, claim, facts, query.basis, query.stat)
    # The claim's hardware and model, or another model of its architecture on that hardware.
    siblings = [s["sweep_id"] for s in found["sweeps"] if s["same_hardware"]]
    named = claim_queries.matching_sweep_ids(session, claim, aliases)
    matched = sorted(set(named) | set(siblings))[: claim_queries.MAX_MATCHING_SWEEPS]
    sweep_ids = list(dict.fromkeys(query.sweep)) or matched
    query, preset = apply_preset(session, query)
    pricing = list(query.pricing)
    if not pricing and query.usd_per_gpu_hour is None and query.price_set is None:
        pricing = default_pricing(session, claim.hardware)
    # Priced and shaped exactly as /api/readoff with these parameters (and default pricing).
    # A claim is per GPU (or per node or rack, turned per GPU): so is the goodput it meets.
    params, results, columns = run_query(
        session, sweep_ids, query.model_copy(update={"pricing": pricing, "accounting": "gpu"})
    )
    placement = Placement(
        results,
        params,
        claim,
        claim_ceiling(kept, claim, spec, physics, query.params_b),
        physics.verdict,
        query.logx if "logx" in query.model_fields_set else None,
    )
    body: ClaimAuditBodyDict = {
        "claim": claim_queries.claim_dict(claim),
        "verdict": found,
        "model_spec": None if spec is None else {"key": spec.key, "name": spec.name},
        "physics": physics_json(physics),
        "open_questions": open_questions(facts),
        "sweeps": {"matching": matched, "compared": sweep_ids, "chosen": bool(query.sweep)},
        "at_slo": {
            "preset": preset,
            "pricing": pricing,
            "readoff": readoff_body(query, params, results, columns),
            "comparisons": [compare(facts, claim, r, params.basis) for r in results],
        },
    }
    return Audit(body, placement)


def compare(
    facts: Claim, claim: VendorClaim, result: SweepAnalysis, basis: str
) -> AuditComparisonDict:
    """Claim ÷ goodput per GPU on one basis, and $/Mtok of both under each price."""
    per_gpu, how = per_gpu_tok_s(facts)
    claim_y = on_basis(per_gpu, facts, basis)
    readoff = result.readoff
    goodput = readoff.goodput_tok_s_per_gpu
    reason = None
    if claim_y is None:
        reason = (
            f"the claim counts {facts.token_basis} tokens and gives no ISL/OSL, so it cannot be"
            f" put on the {basis} basis; choose basis={facts.token_basis}"
        )
    elif goodput is None and not any(y is not None for y in result.ys):
        reason = (
            f"the sweep has no {basis} throughput"
            f"{' (total_tok_s)' if basis == 'total' else ''}, so its goodput on that basis is"
            f" unknown; the claim counts {facts.token_basis} tokens"
        )
    elif goodput is None:
        reason = readoff.reason or "no goodput at this SLO"
    op = readoff.operating_point
    user_ratio = None
    if facts.measures == "per_user" and op and op.interactivity_tok_s_user:
        user_ratio = facts.value_tok_s / op.interactivity_tok_s_user
    costs: list[AuditCostDict] = []
    for cost in result.costs:
        price = cost.price
        applies = price.applies_to(claim.hardware)
        claim_cost = usd_per_mtok(price.usd_per_gpu_hour, claim_y, price.utilization)
        costs.append(
            {
                "name": price.name,
                "profile_id": price.profile_id,
                "usd_per_gpu_hour": price.usd_per_gpu_hour,
                "claim_usd_per_mtok": claim_cost if applies else None,
                "goodput_usd_per_mtok": cost.usd_per_mtok,
                "reason": cost.reason if applies else f"price is for {price.hardware}",
            }
        )
    meta = result.meta
    return {
        "sweep_id": meta.id,
        "name": meta.name,
        "provenance": provenance_text(meta.harness, meta.harness_version, meta.provenance),
        "basis": basis,
        "claim_tok_s_per_gpu": claim_y,
        "claim_per_gpu_from": how,
        "goodput_tok_s_per_gpu": goodput,
        "headline_inflation": claim_y / goodput if claim_y is not None and goodput else None,
        "reason": reason,
        "interactivity_at_goodput": op.interactivity_tok_s_user if op else None,
        "per_user_inflation": user_ratio,
        "costs": costs,
    }
