"""Vendor claims (CRUD), a claim's audit, and the decode roofline of any hardware × model."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.charts.roofline import placement_figure
from app.http.deps import IdPath, SessionDep, WriteDep
from app.schemas.answers.claims import ClaimAudit, ClaimList, ClaimOut, Roofline
from app.schemas.answers.typed.claims import (
    ClaimAuditDict,
    ClaimListDict,
    ClaimOutDict,
    RooflineDict,
)
from app.schemas.claims import AuditQuery, ClaimIn, RooflineQuery
from app.schemas.responses import ERROR_RESPONSES
from app.services.catalogs.checks import checked_claim
from app.services.ceilings.physics import physics_for
from app.services.ceilings.roofline import roofline
from app.services.claims.audit import audit
from app.store import catalog_cache
from app.store import claims as q

router = APIRouter(prefix="/api", tags=["claims"], responses=ERROR_RESPONSES)


@router.get("/claims", name="api_claims_list", response_model=ClaimList)
def api_claims_list(session: SessionDep) -> ClaimListDict:
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
def api_claims_create(body: ClaimIn, session: SessionDep) -> ClaimOutDict:
    """Record a claim; the hardware must be in the catalog and the token basis stated.

    Across fields: token_basis is required (output or total); a gpu_scope of gpu has
    scope_gpus 1 (node and rack default to their own count); the hardware must be in the
    catalog.
    """
    claim = q.save_claim(session, checked_claim(session, body))
    answer = q.claim_dict(claim)  # before the commit: a write stands only with its answer
    session.commit()
    return answer


@router.get("/claims/{claim_id}", name="api_claims_detail", response_model=ClaimOut)
def api_claims_detail(claim_id: IdPath, session: SessionDep) -> ClaimOutDict:
    """One claim as stored."""
    return q.claim_dict(q.get_claim(session, claim_id))


@router.put(
    "/claims/{claim_id}",
    name="api_claims_update",
    dependencies=[WriteDep],
    response_model=ClaimOut,
)
def api_claims_update(claim_id: IdPath, body: ClaimIn, session: SessionDep) -> ClaimOutDict:
    """Replace a claim's values.

    Across fields: token_basis is required (output or total); a gpu_scope of gpu has
    scope_gpus 1 (node and rack default to their own count); the hardware must be in the
    catalog.
    """
    claim = q.save_claim(session, checked_claim(session, body), claim_id)
    answer = q.claim_dict(claim)  # before the commit: a write stands only with its answer
    session.commit()
    return answer


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
) -> ClaimAuditDict:
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
def api_roofline(session: SessionDep, query: Annotated[RooflineQuery, Query()]) -> RooflineDict:
    """Decode ceilings (B = 1 … B_max), one step's arithmetic, compute and prefill bounds; with a
    sweep, each measured point's share of the ceiling at its concurrency."""
    return roofline(session, query)
