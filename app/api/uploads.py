"""Staged uploads, the upload page's JSON twin: stage the files once, preview them with each
sweep's details as often as needed (no file is sent again), then save from the staged copy."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, File, UploadFile
from fastapi.responses import JSONResponse, Response

from app.http.deps import SessionDep, SettingsDep, UploadDep, WriteDep
from app.http.uploads import UploadRoute
from app.ingest import IngestError
from app.schemas.answers.typed.uploads import StagedPreviewDict, UploadConfirmedDict
from app.schemas.answers.uploads import StagedPreview, UploadConfirmed
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.schemas.uploads import DetailValue, StagedDetails
from app.services.upload import save as uploads
from app.services.upload import staging
from app.services.upload.checks import disaggregated_flag
from app.views import uploads as upload_json

router = APIRouter(
    prefix="/api/uploads",
    tags=["uploads"],
    dependencies=[WriteDep],
    responses=ERROR_RESPONSES,
    route_class=UploadRoute,
)
KEEP_APART = "keep_apart"


@router.post(
    "", name="api_upload_stage", status_code=201, responses=answered_with(StagedPreview, 201)
)
def api_upload_stage(
    session: SessionDep,
    settings: SettingsDep,
    upload: UploadDep,
    files: Annotated[list[UploadFile], File(description="One or more result files")],
) -> Response:
    """Stage the files (kept until saved, or for PARETOSCOPE_STAGED_UPLOAD_MINUTES) and preview
    their sweeps, each with the details its files give. Files that do not parse are refused
    (422) and not kept. The files of one configuration at different loads join one sweep;
    `keep_apart=true` makes every result file a sweep of its own, in this preview and in the
    previews and the save of these staged files."""
    limits = uploads.limits_for(settings.max_unpacked_bytes)
    apart = disaggregated_flag(upload.text(KEEP_APART), KEEP_APART)
    details = uploads.Details(keep_apart=apart)
    result = uploads.preview_detailed(session, upload.files, details, limits)
    ttl_s = int(settings.staged_upload_minutes * 60)
    staged = staging.stage(session, upload.files, ttl_s, settings.max_staged_bytes, apart)
    body = upload_json.preview_json(result, staged)
    return JSONResponse(body, status_code=201)


@router.post("/{token}/preview", name="api_upload_preview", response_model=StagedPreview)
def api_upload_preview(
    token: str,
    session: SessionDep,
    settings: SettingsDep,
    body: Annotated[StagedDetails, Body()],
) -> StagedPreviewDict:
    """The staged sweeps again with these details applied; a refused value is a 422 naming the
    sweep and the field."""
    limits = uploads.limits_for(settings.max_unpacked_bytes)
    details = _details(body)
    staged, result = staging.preview(session, token, details, limits)
    if result.errors:
        raise IngestError(result.errors)
    marked = details.disaggregated
    return upload_json.preview_json(result, staged, marked)


@router.post(
    "/{token}",
    name="api_upload_confirm",
    status_code=201,
    responses=answered_with(
        UploadConfirmed, 201, 200, description="201 created; 200 all stored before"
    ),
)
def api_upload_confirm(
    token: str,
    session: SessionDep,
    settings: SettingsDep,
    body: Annotated[StagedDetails | None, Body()] = None,
) -> Response:
    """Save the staged sweeps with these details, all or nothing, and drop the staged files:
    201 when a sweep was created, 200 when all were stored before; 410 once saved or expired."""
    limits = uploads.limits_for(settings.max_unpacked_bytes)
    stored = staging.confirm(session, token, _details(body or StagedDetails()), limits)
    saved = upload_json.saved_json(stored.saved)
    answer: UploadConfirmedDict = {
        "sweeps": saved,
        "warnings": stored.warnings,
        "skipped": upload_json.skipped_json(stored.skipped),
        "explore_url": upload_json.explore_url([s["id"] for s in saved]),
    }
    return JSONResponse(answer, status_code=201 if any(s.created for s in stored.saved) else 200)


@router.delete("/{token}", name="api_upload_discard", status_code=204)
def api_upload_discard(token: str, session: SessionDep) -> Response:
    """Drop staged files that will not be saved (they expire anyway)."""
    staging.discard(session, token)
    return Response(status_code=204)


def _details(body: StagedDetails) -> uploads.Details:
    return uploads.Details(
        shared=_texts(body.details),
        per_sweep=[_texts(s) for s in body.sweeps],
        disaggregated=frozenset(body.disaggregated),
    )


def _texts(values: dict[str, DetailValue]) -> dict[str, str | None]:
    return {k: None if v is None else str(v) for k, v in values.items()}
