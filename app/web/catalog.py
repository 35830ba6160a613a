"""Catalog page: the hardware catalog and the model specs, each with a form to add or edit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.datastructures import FormData

from app.http.deps import FormDep, SessionDep, SettingsDep, check_write_token
from app.http.errors import AppError
from app.schemas.catalog import (
    HARDWARE_NUMBER_FIELDS,
    MODEL_INT_FIELDS,
    MODEL_NUMBER_FIELDS,
    HardwareIn,
    ModelSpecIn,
)
from app.services.catalogs import entries as svc
from app.services.errors import Conflict, Invalid
from app.store import catalog as q
from app.views.refusals import form_errors
from app.views.templating import render

router = APIRouter(include_in_schema=False)
KINDS: dict[str, type[BaseModel]] = {"hardware": HardwareIn, "models": ModelSpecIn}


@router.get("/catalog", name="catalog_page")
def catalog_page(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Both catalogs; `?new_hardware=NAME` prefills a new GPU (the upload warning links here)."""
    params = request.query_params
    context = _context(session, settings)
    if edit := params.get("edit_hardware"):
        context["hardware_form"] = _as_form(svc.hardware_dict(svc.get_hardware(session, edit)))
        context["editing_hardware"] = context["hardware_form"]["key"]
    elif new := params.get("new_hardware", "").strip():
        # The typed name becomes the catalog name and an alias, so it matches from now on.
        key = "".join(ch for ch in new.upper() if ch.isalnum())[:50]
        context["hardware_form"] = {"key": key, "name": new, "aliases": new}
    if edit := params.get("edit_model"):
        context["model_form"] = _as_form(svc.model_dict(svc.get_model(session, edit)))
        context["editing_model"] = context["model_form"]["key"]
    return render(request, "catalog/index.html", context)


@router.post("/catalog/{kind}", name="catalog_create")
def catalog_create(
    request: Request, kind: str, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Add a GPU (`hardware`) or a model spec (`models`) from the form."""
    return _save(request, form, session, settings, kind, None)


@router.post("/catalog/{kind}/{key}", name="catalog_update")
def catalog_update(
    request: Request,
    kind: str,
    key: str,
    form: FormDep,
    session: SessionDep,
    settings: SettingsDep,
) -> Response:
    """Save an edited GPU or model spec."""
    return _save(request, form, session, settings, kind, key)


@router.post("/catalog/{kind}/{key}/delete", name="catalog_delete")
def catalog_delete(
    request: Request,
    kind: str,
    key: str,
    form: FormDep,
    session: SessionDep,
    settings: SettingsDep,
) -> Response:
    """Delete a row nothing uses; otherwise the page says what still uses it."""
    _kind(kind)
    token = form.get("write_token")
    check_write_token(settings, token if isinstance(token, str) else None)
    try:
        if kind == "hardware":
            svc.delete_hardware(session, key)
        else:
            svc.delete_model(session, key)
    except Conflict as exc:
        session.rollback()
        context = {**_context(session, settings), f"{_singular(kind)}_errors": [exc.message]}
        return render(request, "catalog/index.html", context, status_code=409)
    session.commit()
    return RedirectResponse(f"/catalog#{kind}", status_code=303)


def _save(
    request: Request,
    submitted: FormData,
    session: SessionDep,
    settings: SettingsDep,
    kind: str,
    key: str | None,
) -> Response:
    shape = _kind(kind)
    form = {k: v for k, v in submitted.items() if isinstance(v, str)}
    check_write_token(settings, form.pop("write_token", None))
    values: dict[str, Any] = {k: (v.strip() or None) for k, v in form.items()}
    if kind == "hardware":
        values["aliases"] = values.get("aliases") or []
    try:
        body = shape.model_validate(values)
        if isinstance(body, HardwareIn):
            saved_key = svc.save_hardware(session, body, key).key
        else:
            assert isinstance(body, ModelSpecIn)
            saved_key = svc.save_model(session, body, key).key
    except (ValidationError, AppError, Invalid) as exc:
        session.rollback()
        name = _singular(kind)
        context = {
            **_context(session, settings),
            f"{name}_form": form,
            f"{name}_errors": form_errors(exc),
            f"editing_{name}": key,
        }
        return render(request, "catalog/index.html", context, status_code=422)
    session.commit()
    return RedirectResponse(f"/catalog#{_singular(kind)}-{saved_key}", status_code=303)


def _kind(kind: str) -> type[BaseModel]:
    if kind not in KINDS:
        raise AppError(404, "Not found", f"no catalog called {kind!r} (hardware or models)")
    return KINDS[kind]


def _singular(kind: str) -> str:
    return "hardware" if kind == "hardware" else "model"


def _as_form(data: Mapping[str, Any]) -> dict[str, Any]:
    """Stored values as the strings a form shows; aliases one per line."""
    out = {k: "" if v is None else str(v) for k, v in data.items() if k != "aliases"}
    if "aliases" in data:
        out["aliases"] = "\n".join(data["aliases"] or [])
    return out


def _context(session: SessionDep, settings: SettingsDep) -> dict[str, Any]:
    hardware = svc.list_hardware(session)
    return {
        "hardware": hardware,
        "models": q.model_specs(session),
        "needs_token": settings.write_token is not None,
        "hardware_number_fields": HARDWARE_NUMBER_FIELDS,
        "model_number_fields": (*MODEL_NUMBER_FIELDS, *MODEL_INT_FIELDS),
        "hardware_form": {},
        "model_form": {},
        "hardware_errors": [],
        "model_errors": [],
        "editing_hardware": None,
        "editing_model": None,
    }
