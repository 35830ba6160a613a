"""Vendor claims: list, read, save, delete, and the sweeps a claim can be compared with."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.domain.claims import Claim
from app.domain.provenance import claim_provenance_text
from app.schemas.answers.typed.claims import ClaimOutDict
from app.schemas.claims import CLAIM_FIELDS
from app.store.catalog import models_match
from app.store.models import Sweep, VendorClaim
from app.store.sweeps import NotFound

MAX_MATCHING_SWEEPS = 20


def list_claims(session: Session) -> list[VendorClaim]:
    """Newest claims first; undated ones last."""
    query = select(VendorClaim).order_by(
        VendorClaim.claimed_at.is_(None), VendorClaim.claimed_at.desc(), VendorClaim.id
    )
    return list(session.scalars(query).all())


def get_claim(session: Session, claim_id: int) -> VendorClaim:
    claim = session.get(VendorClaim, claim_id)
    if claim is None:
        raise NotFound(f"claim {claim_id} does not exist")
    return claim


def save_claim(
    session: Session, values: dict[str, Any], claim_id: int | None = None
) -> VendorClaim:
    claim = VendorClaim() if claim_id is None else get_claim(session, claim_id)
    for name in CLAIM_FIELDS:
        setattr(claim, name, values.get(name))
    if claim_id is None:
        session.add(claim)
    session.flush()
    return claim


def delete_claim(session: Session, claim_id: int) -> None:
    session.delete(get_claim(session, claim_id))
    session.flush()


def claim_dict(claim: VendorClaim) -> ClaimOutDict:
    data: dict[str, Any] = {"id": claim.id}
    for name in CLAIM_FIELDS:
        value = getattr(claim, name)
        data[name] = value.isoformat() if isinstance(value, dt.date) else value
    data["provenance_text"] = claim_provenance_text(claim.harness, claim.provenance)
    data["created_at"] = claim.created_at.isoformat() if claim.created_at else None
    # Its keys are the claim's fields (app.schemas.claims.CLAIM_FIELDS), as ClaimOut lists them.
    return cast(ClaimOutDict, data)


def form_values(claim: VendorClaim) -> dict[str, Any]:
    """A stored claim as the strings an edit form shows."""
    return {
        name: "" if getattr(claim, name) is None else str(getattr(claim, name))
        for name in CLAIM_FIELDS
    }


def domain_claim(claim: VendorClaim) -> Claim:
    scope = claim.gpu_scope if claim.gpu_scope in ("gpu", "node", "rack") else "gpu"
    return Claim(
        value_tok_s=claim.value_tok_s,
        measures=claim.measures,  # type: ignore[arg-type]
        token_basis=claim.token_basis,  # type: ignore[arg-type]
        gpu_scope=scope,  # type: ignore[arg-type]
        scope_gpus=claim.scope_gpus or 1,
        model=claim.model,
        precision=claim.precision,
        interactivity_tok_s_user=claim.interactivity_tok_s_user,
        batch=claim.batch,
        isl=claim.isl,
        osl=claim.osl,
        spec_decode=claim.spec_decode,
        source_url=claim.source_url,
        dated=claim.claimed_at is not None,
        provenance=claim.provenance,
    )


def matches_sweep(
    claim: VendorClaim, hardware: str | None, model: str | None, aliases: tuple[str, ...] = ()
) -> bool:
    """Same hardware ignoring case and, when the claim names a model, the same model."""
    if (hardware or "").lower() != claim.hardware.lower():
        return False
    if not claim.model:
        return True
    names = (claim.model, *aliases)
    return any(models_match(name, model) for name in names)


def matching_sweep_ids(
    session: Session, claim: VendorClaim, aliases: tuple[str, ...] = ()
) -> list[int]:
    """Sweeps on the claim's hardware and model (aliases: the matched spec's key and name)."""
    rows = session.execute(
        select(Sweep.id, Sweep.hardware, Sweep.model)
        .where(func.lower(Sweep.hardware) == claim.hardware.lower())
        .order_by(Sweep.id)
    ).all()
    ids = [r.id for r in rows if matches_sweep(claim, r.hardware, r.model, aliases)]
    return ids[:MAX_MATCHING_SWEEPS]


def claims_among(
    claims: Sequence[VendorClaim], pairs: list[tuple[str, str | None]], everything: bool = False
) -> list[VendorClaim]:
    """The claims matching any (hardware, model) pair of the shown sweeps, or all of them."""
    if everything:
        return list(claims)
    return [c for c in claims if any(matches_sweep(c, h, m) for h, m in pairs)]
