"""Upload page: several files, a preview of what was recognised, fields for what is missing."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import UploadFile as StarletteUpload

from app.domain.columns import COLUMNS_BY_NAME
from app.http.deps import HtmxDep, SessionDep, SettingsDep, check_write_token
from app.http.templating import render
from app.http.uploads import read_uploads
from app.ingest import IngestError, UploadFile
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
async def upload_preview(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Parse without storing: which format each file is, its sweeps and points, what is missing."""
    files, fields = await _read_form(request, settings)
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
async def upload_save(
    request: Request, session: SessionDep, settings: SettingsDep, htmx: HtmxDep
) -> Response:
    """Store every sweep of the upload in one transaction, then open the first."""
    files, fields = await _read_form(request, settings)
    form = await request.form()
    token = form.get("write_token")
    check_write_token(settings, token if isinstance(token, str) else None)
    try:
        saved = uploads.store(
            session, files, fields, uploads.limits_for(settings.max_unpacked_bytes)
        )
    except IngestError as exc:
        context = {**_context(settings), "errors": exc.errors, "fields": fields}
        name = "uploads/_preview.html" if htmx else "uploads/new.html"
        return render(request, name, {**context, "sweeps": []}, status_code=422)
    target = f"/sweeps/{saved[0].sweep.id}" if len(saved) == 1 else "/sweeps"
    if htmx:
        return Response(status_code=204, headers={"HX-Redirect": target})
    return RedirectResponse(target, status_code=303)


async def _read_form(
    request: Request, settings: SettingsDep
) -> tuple[list[UploadFile], dict[str, str | None]]:
    form = await request.form()
    files = [f for f in form.getlist("files") if isinstance(f, StarletteUpload) and f.filename]
    raw = await read_uploads(files, settings.max_upload_bytes)  # type: ignore[arg-type]
    fields = {k: v for k in META_FIELDS if isinstance(v := form.get(k), str)}
    return raw, fields  # type: ignore[return-value]


def _context(settings: SettingsDep) -> dict[str, object]:
    return {
        "meta_fields": [COLUMNS_BY_NAME[k] for k in META_FIELDS],
        "needs_token": settings.write_token is not None,
        "max_upload_mb": settings.max_upload_mb,
        "fields": {},
        "errors": [],
    }
