"""Upload page: several files, a preview of what was recognised, fields for what is missing."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.domain.columns import COLUMNS_BY_NAME
from app.http.deps import HtmxDep, SessionDep, SettingsDep, Upload, UploadDep, check_write_token
from app.http.templating import render
from app.ingest import IngestError
from app.services import uploads
from app.store import catalog

router = APIRouter(include_in_schema=False)
META_FIELDS = ("sweep", "hardware", "num_gpus", "model", "engine", "precision", "isl", "osl")


@router.get("/upload", name="upload_form")
def upload_form(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """The upload form; the hardware field suggests catalog keys."""
    context = {**_context(settings), "hardware_keys": catalog.hardware_keys(session)}
    return render(request, "uploads/new.html", context)


@router.post("/upload/preview", name="upload_preview")
def upload_preview(
    request: Request, session: SessionDep, settings: SettingsDep, upload: UploadDep
) -> Response:
    """Parse without storing: which format each file is, its sweeps and points, what is missing.
    Parsing costs as much as saving, so it needs the write token too."""
    check_write_token(settings, upload.text("write_token"))
    files, fields = upload.files, _fields(upload)
    if not files:
        return render(request, "uploads/_preview.html", {"sweeps": [], "errors": []})
    try:
        result = uploads.preview(
            session, files, fields, uploads.limits_for(settings.max_unpacked_bytes)
        )
    except IngestError as exc:
        return render(request, "uploads/_preview.html", {"sweeps": [], "errors": exc.errors})
    context = {
        "sweeps": result.sweeps,
        "matches": result.matches,
        "errors": [],
        "columns": COLUMNS_BY_NAME,
    }
    return render(request, "uploads/_preview.html", context)


@router.post("/upload", name="upload_save")
def upload_save(
    request: Request, session: SessionDep, settings: SettingsDep, htmx: HtmxDep, upload: UploadDep
) -> Response:
    """Store every sweep of the upload in one transaction, then open the first."""
    check_write_token(settings, upload.text("write_token"))
    files, fields = upload.files, _fields(upload)
    tags = [v for v in upload.form.getlist("tags") if isinstance(v, str)]
    try:
        saved = uploads.store(
            session, files, fields, uploads.limits_for(settings.max_unpacked_bytes), tags
        )
    except IngestError as exc:
        shown = {**fields, "tags": ", ".join(tags)}
        context = {**_context(settings), "errors": exc.errors, "fields": shown}
        name = "uploads/_preview.html" if htmx else "uploads/new.html"
        return render(request, name, {**context, "sweeps": []}, status_code=422)
    target = f"/sweeps/{saved[0].sweep.id}" if len(saved) == 1 else "/sweeps"
    if htmx:
        return Response(status_code=204, headers={"HX-Redirect": target})
    return RedirectResponse(target, status_code=303)


def _fields(upload: Upload) -> dict[str, str | None]:
    return {k: v for k in META_FIELDS if (v := upload.text(k)) is not None}


def _context(settings: SettingsDep) -> dict[str, object]:
    return {
        "meta_fields": [COLUMNS_BY_NAME[k] for k in META_FIELDS],
        "needs_token": settings.write_token is not None,
        "max_upload_mb": settings.max_upload_mb,
        "fields": {},
        "errors": [],
    }
