"""Pricing page: the hardware catalog and pricing profiles (rental and ownership), editable."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError
from starlette.datastructures import FormData

from app.http.deps import FormDep, IdPath, SessionDep, SettingsDep, check_write_token
from app.http.errors import AppError
from app.schemas.bounds import MAX_ID
from app.schemas.pricing import PRICING_NUMBER_FIELDS, PricingIn
from app.services.catalogs import checks as catalog_checks
from app.services.errors import Invalid
from app.store import pricing as q
from app.views.refusals import form_errors
from app.views.templating import render

router = APIRouter(include_in_schema=False)
NUMBER_FIELDS = PRICING_NUMBER_FIELDS


@router.get("/pricing", name="pricing_page")
def pricing_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Catalog, profiles with hourly breakdown, a form for a new profile, break-even calculator."""
    return render(request, "pricing/index.html", _context(request, session, settings))


@router.post("/pricing", name="pricing_create")
def pricing_create(
    request: Request, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Create a profile from the form."""
    return _save(request, form, session, settings, None)


@router.post("/pricing/{profile_id}", name="pricing_update")
def pricing_update(
    request: Request, profile_id: IdPath, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Update a profile from the form."""
    return _save(request, form, session, settings, profile_id)


@router.post("/pricing/{profile_id}/delete", name="pricing_delete")
def pricing_delete(
    profile_id: IdPath, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Delete a profile."""
    token = form.get("write_token")
    check_write_token(settings, token if isinstance(token, str) else None)
    q.delete_profile(session, profile_id)
    session.commit()
    return RedirectResponse("/pricing", status_code=303)


def _save(
    request: Request,
    raw_form: FormData,
    session: SessionDep,
    settings: SettingsDep,
    profile_id: int | None,
) -> Response:
    form = {k: v for k, v in raw_form.items() if isinstance(v, str)}
    check_write_token(settings, form.pop("write_token", None))
    values: dict[str, Any] = {k: (v.strip() or None) for k, v in form.items()}
    if values.get("utilization") is None:
        values.pop("utilization", None)
    try:
        body = PricingIn.model_validate(values)
        saved = q.save_profile(
            session, catalog_checks.checked_profile(session, body, profile_id), profile_id
        )
    except (ValidationError, AppError, Invalid) as exc:
        session.rollback()
        errors = form_errors(exc)
        context = {**_context(request, session, settings), "form": values, "form_errors": errors}
        context["editing"] = profile_id
        return render(request, "pricing/index.html", context, status_code=422)
    session.commit()
    return RedirectResponse(f"/pricing#profile-{saved.id}", status_code=303)


def _context(request: Request, session: SessionDep, settings: SettingsDep) -> dict[str, Any]:
    profiles = q.list_profiles(session)
    params = request.query_params
    break_even: Mapping[str, Any] | None = None
    if params.get("be_profile") and params.get("be_output"):
        try:
            break_even = catalog_checks.break_even(
                session,
                _profile_id(params["be_profile"]),
                output_tok_s_per_gpu=float(params["be_output"]),
                input_tok_s_per_gpu=float(params.get("be_input") or 0),
                output_to_input_ratio=float(params.get("be_ratio") or 4),
            )
        except (ValueError, LookupError):
            break_even = {"error": "Enter a profile and non-negative throughputs."}
    editing: int | None = None
    form: Mapping[str, Any] = {}
    if (edit := params.get("edit", "")).isdigit():
        profile = q.get_profile(session, int(edit))
        editing, form = profile.id, q.profile_dict(profile)
    return {
        "hardware": q.hardware_catalog(session),
        "profiles": profiles,
        "costs": {p.id: q.hourly_cost(p) for p in profiles},
        "needs_token": settings.write_token is not None,
        "form": form,
        "form_errors": [],
        "editing": editing,
        "break_even": break_even,
        "be": dict(params),
        "number_fields": NUMBER_FIELDS,
    }


def _profile_id(text: str) -> int:
    profile_id = int(text)
    if not 1 <= profile_id <= MAX_ID:  # beyond, Postgres refuses the comparison itself
        raise LookupError(text)
    return profile_id
