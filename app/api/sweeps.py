"""JSON twins of the sweep pages, and the upload endpoint."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Query, UploadFile
from fastapi.responses import JSONResponse, Response
from starlette.background import BackgroundTask

from app.domain.columns import POINT_COLUMN_NAMES, REQUEST_COLUMNS, SWEEP_COLUMN_NAMES
from app.http.deps import IdPath, SessionDep, SettingsDep, UploadDep, WriteDep
from app.http.uploads import UploadRoute
from app.schemas.answers.sweeps import SweepDetail, SweepEdited, SweepList
from app.schemas.answers.typed.sweeps import SweepEditedDict
from app.schemas.answers.typed.uploads import UploadSavedDict
from app.schemas.answers.uploads import UploadSaved
from app.schemas.responses import ERROR_RESPONSES, answered_with, download
from app.schemas.sweeps import SweepQuery
from app.services.catalogs.entries import match_changes
from app.services.upload import save as uploads
from app.services.upload.checks import DISAGGREGATED_FIELD, disaggregated_flag
from app.services.upload.details import sweep_changes
from app.store import sweeps as q
from app.store.db import checkpoint, defer_checkpoint
from app.views import sweeps as sweep_json
from app.views import uploads as upload_json
from app.views.answers import json_answer

# Uploads parsed with their files held in memory as they arrive (app.http.uploads).
router = APIRouter(
    prefix="/api", tags=["sweeps"], responses=ERROR_RESPONSES, route_class=UploadRoute
)
CSV = download("text/csv")


@router.get("/sweeps", name="api_sweeps_list", responses=answered_with(SweepList))
def api_sweeps_list(session: SessionDep, params: Annotated[SweepQuery, Query()]) -> Response:
    """List sweeps with filters, a search (`q`: every word in the name, model, hardware, engine,
    precision or notes) and pagination (`limit` is `per_page`, at most 500): always bounded."""
    return json_answer(sweep_json.sweep_list(session, params))


@router.post(
    "/sweeps",
    name="api_sweeps_create",
    status_code=201,
    dependencies=[WriteDep],
    responses=answered_with(
        UploadSaved, 201, 200, description="201 created; 200 all stored before"
    ),
)
def api_sweeps_create(
    session: SessionDep,
    settings: SettingsDep,
    upload: UploadDep,
    files: Annotated[list[UploadFile], File(description="One or more result files")],
) -> Response:
    """Upload sweeps; identical content answers with the existing sweep (created: false).
    `tags` (repeated, or comma separated) tag every sweep of the upload. Files that are not
    result files (a README, logs, plots) are listed in `skipped` with why; the upload is refused
    only when no file is a result file, or when a result file is broken. `disaggregated=true`
    marks every sweep as disaggregated serving: one whose file does not give its split needs
    `num_prefill_gpus` and `num_decode_gpus`, or the upload is refused (422 naming the field).
    The files of one configuration at different loads join one sweep; `keep_apart=true` makes
    every result file a sweep of its own."""
    fields = {k: v for k in SWEEP_COLUMN_NAMES if (v := upload.text(k)) is not None}
    tags = [v for v in upload.form.getlist("tags") if isinstance(v, str)]
    marked = disaggregated_flag(upload.text(DISAGGREGATED_FIELD))
    apart = disaggregated_flag(upload.text("keep_apart"), "keep_apart")
    limits = uploads.limits_for(settings.max_unpacked_bytes)
    # SQLite: the upload's commit leaves its log to the checkpoint after the answer (below).
    defer_checkpoint(session)
    # The body's bytes go once parsed: not held while the sweeps are stored.
    options = uploads.UploadOptions(marked, apart, parsed=upload.release)
    stored = uploads.store_checked(session, upload.files, fields, limits, tags, options=options)
    status = 201 if any(s.created for s in stored.saved) else 200
    body: UploadSavedDict = {
        "sweeps": upload_json.saved_json(stored.saved),
        "warnings": stored.warnings,
        "skipped": upload_json.skipped_json(stored.skipped),
    }
    # The log the upload's commit left, checkpointed once the answer is sent.
    after = BackgroundTask(checkpoint, session.get_bind().engine)
    return JSONResponse(body, status_code=status, background=after)


@router.get("/sweeps/{sweep_id}", name="api_sweep_detail", responses=answered_with(SweepDetail))
def api_sweep_detail(sweep_id: IdPath, session: SessionDep) -> Response:
    """One sweep with every stored column of its points."""
    return json_answer(sweep_json.sweep_detail(session, sweep_id))


@router.patch(
    "/sweeps/{sweep_id}",
    name="api_sweep_update",
    dependencies=[WriteDep],
    response_model=SweepEdited,
)
def api_sweep_update(
    sweep_id: IdPath, body: dict[str, Any], session: SessionDep
) -> SweepEditedDict:
    """Edit sweep metadata (sweep-level columns only); hardware is matched to the catalog."""
    changes, warnings = match_changes(session, sweep_changes(body))
    sweep = q.update_sweep(session, sweep_id, changes)
    answer: SweepEditedDict = {
        **q.sweep_fields(sweep),
        "points": len(sweep.points),
        "warnings": warnings,
    }
    session.commit()  # after the answer is built: a write stands only with its answer
    return answer


@router.delete(
    "/sweeps/{sweep_id}", name="api_sweep_delete", status_code=204, dependencies=[WriteDep]
)
def api_sweep_delete(sweep_id: IdPath, session: SessionDep) -> Response:
    """Delete a sweep with its points and request samples."""
    q.delete_sweep(session, sweep_id)
    session.commit()
    return Response(status_code=204)


@router.get(
    "/templates/sweep.csv", name="api_template_sweep", responses=CSV, response_class=Response
)
def api_template_sweep() -> Response:
    """Canonical points CSV: the header and one example row."""
    header = [*SWEEP_COLUMN_NAMES, *POINT_COLUMN_NAMES]
    example = {
        "sweep": "my-sweep",
        "hardware": "H100",
        "num_gpus": "8",
        "model": "llama-3.1-70b",
        "engine": "vllm",
        "precision": "fp8",
        "isl": "1024",
        "osl": "1024",
        "concurrency": "16",
        "tpot_p50_ms": "25.1",
        "tpot_p90_ms": "28.4",
        "ttft_p90_ms": "180",
        "output_tok_s": "5120",
    }
    body = ",".join(header) + "\n" + ",".join(example.get(c, "") for c in header) + "\n"
    return _csv(body, "sweep.csv")


@router.get(
    "/templates/requests.csv", name="api_template_requests", responses=CSV, response_class=Response
)
def api_template_requests() -> Response:
    """Canonical per-request CSV: the header and two example rows."""
    header = ",".join(c.name for c in REQUEST_COLUMNS)
    rows = "my-sweep,16,,120.5,3050.2,128,1024,true,768\nmy-sweep,16,,,,,1024,false,\n"
    return _csv(header + "\n" + rows, "requests.csv")


def _csv(body: str, filename: str) -> Response:
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
