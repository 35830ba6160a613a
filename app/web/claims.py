"""Claims pages: the list with a form (/claims) and a claim's audit (/claims/{id}).

JSON twins: /api/claims and /api/claims/{id}/audit (same data, same query parameters).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData

from app.charts.roofline import placement_figure
from app.http.deps import FormDep, IdPath, SessionDep, SettingsDep, check_write_token
from app.http.errors import AppError
from app.schemas.answers.typed.claims import ClaimAuditDict
from app.schemas.bounds import DB_INT_MAX
from app.schemas.claims import AuditQuery, ClaimIn
from app.schemas.readoff import ReadoffQuery
from app.services.catalogs.checks import checked_claim
from app.services.ceilings.physics import physics_for
from app.services.claims.audit import audit
from app.services.errors import Invalid
from app.settings import Settings
from app.store import catalog, catalog_cache
from app.store import claims as q
from app.store import pricing as pricing_queries
from app.store import sweeps as sweep_queries
from app.store.models import Sweep, VendorClaim
from app.views import explore_state
from app.views.carried import carried_from
from app.views.refusals import form_errors
from app.views.templating import render

MISSING_HINTS = {
    "token_basis": "say whether the number counts output tokens or input + output tokens"
}
router = APIRouter(include_in_schema=False)
LIST_FIELDS = ("sweep", "pricing")


@router.get("/claims", name="claims_page")
def claims_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Every claim with its physics verdict, and a form to add (or edit) one."""
    form: dict[str, Any] = {}
    editing = None
    if (edit := request.query_params.get("edit", "")).isdigit() and int(edit) <= DB_INT_MAX:
        claim = q.get_claim(session, int(edit))
        editing, form = claim.id, q.form_values(claim)
    context = _list_context(session, settings, form, [], editing)
    carried = carried_from(request.query_params)
    return render(
        request, "claims/index.html", {**context, "carried": carried, "carry": carried.query}
    )


@router.post("/claims", name="claims_create")
def claims_create(
    request: Request, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Create a claim from the form, then show its audit."""
    return _save(request, form, session, settings, None)


@router.post("/claims/{claim_id}", name="claims_update")
def claims_update(
    request: Request, claim_id: IdPath, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Update a claim from the form."""
    q.get_claim(session, claim_id)
    return _save(request, form, session, settings, claim_id)


@router.post("/claims/{claim_id}/delete", name="claims_delete")
def claims_delete(
    claim_id: IdPath, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Delete a claim."""
    token = form.get("write_token")
    check_write_token(settings, token if isinstance(token, str) else None)
    q.delete_claim(session, claim_id)
    session.commit()
    return RedirectResponse("/claims", status_code=303)


@router.get("/claims/{claim_id}", name="claim_audit_page")
def claim_audit_page(request: Request, claim_id: IdPath, session: SessionDep) -> Response:
    """Physics, placement, the read-off at your SLO and the questions to ask the vendor."""
    claim = q.get_claim(session, claim_id)
    query = parse_audit_query(request)
    result = audit(session, claim, query)
    data: ClaimAuditDict = {**result.body, "figure": placement_figure(result.placement)}
    query_string = canonical(request)
    context = {
        # The nav hands on the SLO and prices (the audit's sweeps are its own).
        "carry": carried_from(request.query_params).settings,
        "claim": claim,
        "data": data,
        "query": query,
        "basis": data["at_slo"]["readoff"]["slo"]["basis"],
        "json_url": f"/api/claims/{claim.id}/audit" + (f"?{query_string}" if query_string else ""),
        "readoff_url": readoff_url(data, query),
        "profiles": pricing_queries.list_profiles(session),
        "presets": catalog.slo_presets(session),
        # The claim's hardware, the compared sweeps and every sweep of its architecture.
        "candidates": _candidates(
            session,
            claim,
            [*data["sweeps"]["compared"], *(s["sweep_id"] for s in data["verdict"]["sweeps"])],
        ),
    }
    return render(request, "claims/audit.html", context)


def parse_audit_query(request: Request) -> AuditQuery:
    """The query string without empty fields; repeated sweep and pricing values form lists."""
    data = explore_state.query_data(request.query_params, LIST_FIELDS)
    try:
        return AuditQuery.model_validate(data)
    except ValidationError as exc:
        errors: list[dict[str, object]] = [
            {"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]} for e in exc.errors()
        ]
        message = "; ".join(f"{e['field']}: {e['message']}".lstrip(": ") for e in errors)
        raise AppError(422, "Invalid request", message, errors) from exc


def readoff_url(data: ClaimAuditDict, query: AuditQuery) -> str:
    """/api/readoff with the audit's sweeps and read-off parameters: the numbers to agree with."""
    at = data["at_slo"]
    fields = ReadoffQuery.model_fields.keys() - {"pricing", "basis", "points"}
    given = query.model_dump(include=set(fields), exclude_none=True, exclude_defaults=True)
    pairs: list[tuple[str, Any]] = [("sweep", r["sweep_id"]) for r in at["readoff"]["results"]]
    pairs += [("pricing", i) for i in at["pricing"]]
    pairs += [(k, v) for k, v in given.items()]
    pairs.append(("basis", at["readoff"]["slo"]["basis"]))
    return "/api/readoff?" + urlencode(pairs)


def canonical(request: Request) -> str:
    return urlencode([(k, v) for k, v in request.query_params.multi_items() if v != ""])


def _save(
    request: Request, raw_form: FormData, session: Session, settings: Settings, claim_id: int | None
) -> Response:
    form = {k: v for k, v in raw_form.items() if isinstance(v, str)}
    check_write_token(settings, form.pop("write_token", None))
    values: dict[str, Any] = {k: (v.strip() or None) for k, v in form.items()}
    for name in ("gpu_scope",):
        if values.get(name) is None:
            values.pop(name, None)
    try:
        body = ClaimIn.model_validate(values)
        saved = q.save_claim(session, checked_claim(session, body), claim_id)
    except (ValidationError, AppError, Invalid) as exc:
        session.rollback()
        shown = {k: v or "" for k, v in values.items()}
        context = _list_context(session, settings, shown, form_errors(exc, MISSING_HINTS), claim_id)
        return render(request, "claims/index.html", context, status_code=422)
    session.commit()
    return RedirectResponse(f"/claims/{saved.id}", status_code=303)


def _list_context(
    session: Session,
    settings: Settings,
    form: dict[str, Any],
    errors: list[str],
    editing: int | None,
) -> dict[str, Any]:
    claims = q.list_claims(session)
    kept = catalog_cache.current(session)
    return {
        "claims": claims,
        "verdicts": {c.id: physics_for(kept, c) for c in claims},
        "hardware": [h.key for h in kept.hardware],
        "specs": list(kept.model_specs),
        "needs_token": settings.write_token is not None,
        "form": form,
        "form_errors": errors,
        "editing": editing,
    }


def _candidates(session: Session, claim: VendorClaim, compared: list[int]) -> list[Sweep]:
    """Sweeps to pick from: every sweep on the claim's hardware, plus those being compared."""
    return sweep_queries.sweeps_on_hardware(session, claim.hardware, compared)
