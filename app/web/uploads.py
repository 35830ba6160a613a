"""Upload page: the files go up once (staged), each sweep's details are edited against the staged
copy, and "Save" stores it and shows what was saved.

Every answer lands inside #upload-result (innerHTML), never in place of it, so after any
refusal (413, 400, 415, 422, 409, 410, 503) the form still works without a reload.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import FormData

from app.domain.columns import COLUMNS_BY_NAME
from app.domain.sweep_fields import DETAIL_FIELDS
from app.http.deps import (
    FormDep,
    HtmxDep,
    SessionDep,
    SettingsDep,
    Upload,
    UploadDep,
    check_write_token,
)
from app.http.uploads import UploadRoute
from app.ingest import IngestError
from app.ingest.errors import RowError
from app.services.errors import Gone
from app.services.upload import checks as upload_checks
from app.services.upload import fields as upload_fields
from app.services.upload import save as uploads
from app.services.upload import staging
from app.settings import Settings
from app.store import catalog
from app.views import upload_page
from app.views import uploads as upload_json
from app.views.explore_state import MAX_SERIES
from app.views.templating import render

router = APIRouter(include_in_schema=False, route_class=UploadRoute)
META_FIELDS = DETAIL_FIELDS
# Sweeps the preview shows with their details as inputs. A request may carry at most 1,000 form
# fields (Starlette's bound), each such sweep sends one per detail, so a larger upload lists the
# rest, with the values of their files and the All sweeps row (LISTED_SWEEPS of them at most).
EDITABLE_SWEEPS = 100
LISTED_SWEEPS = 1_000
# Form names of one sweep's details ("s2.num_gpus") and of the row that sets every sweep's.
PER_SWEEP = re.compile(r"s(\d{1,5})\.([a-z_]{1,40})")
EVERY_PREFIX = "all."
REST_PREFIX = "rest."  # all-sweeps values already applied, kept for the sweeps only listed
# A sweep's choices beside its details: its hardware kept as typed though not in the catalog
# ("1"), and, its measurements being stored already, "update" that sweep or store a "new" one.
KEEP_HARDWARE = "keep_hardware"
STORED_AS = "stored_as"
# Marked as disaggregated serving ("1"): its prefill and decode GPUs are then asked for.
DISAGGREGATED = "disaggregated"
CHOICES = (KEEP_HARDWARE, STORED_AS, DISAGGREGATED)
# "1": every result file a sweep of its own; the files of one configuration are joined unless.
# GROUPED_AS carries the choice the shown sweeps were made with: when it changes, the sweeps
# change, and the details typed for the old ones are not given to the new ones.
KEEP_APART = "keep_apart"
GROUPED_AS = "grouped_as"


@router.get("/upload", name="upload_form")
def upload_form(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """The upload form; the intro names every format the importers recognise."""
    return render(request, "uploads/new.html", _context(settings, session))


@router.post("/upload/stage", name="upload_stage")
def upload_stage(
    request: Request, session: SessionDep, settings: SettingsDep, htmx: HtmxDep, upload: UploadDep
) -> Response:
    """Keep the files (once) and preview them; each sweep's details prefilled from its file.
    Files that do not parse are not kept: the answer lists every problem."""
    check_write_token(settings, upload.text("write_token"))
    previous = upload.text("staging")
    if previous:  # new files replace the ones picked before
        staging.discard(session, previous)
    if not upload.files:
        return _answer(request, settings, session, htmx, {"sweeps": []})
    limits = uploads.limits_for(settings.max_unpacked_bytes)
    try:
        first = uploads.Details(prefill_stored=True)
        result = uploads.preview_detailed(session, upload.files, first, limits)
    except IngestError as exc:
        context = {"sweeps": [], **_errors(exc.errors)}
        return _answer(request, settings, session, htmx, context, 422)
    staged = staging.stage(
        session,
        upload.files,
        int(settings.staged_upload_minutes * 60),
        settings.max_staged_bytes,
    )
    return _answer(request, settings, session, htmx, _preview_context(staged.token, result))


@router.post("/upload/preview", name="upload_preview")
def upload_preview(
    request: Request, session: SessionDep, settings: SettingsDep, htmx: HtmxDep, upload: UploadDep
) -> Response:
    """With a staging token: the staged files again with the details as edited (no file is
    sent). With files instead (scripts, older pages): parse them without storing."""
    token = upload.text("staging")
    limits = uploads.limits_for(settings.max_unpacked_bytes)
    if token:
        details = details_from_form(upload.form)
        try:
            staged, result = staging.preview(session, token, details, limits)
        except IngestError as exc:
            context = {"sweeps": [], **_errors(exc.errors), "token": token}
            return _answer(request, settings, session, htmx, context, 422)
        context = _preview_context(staged.token, result, details)
        context["tags"] = ", ".join(v for v in upload.form.getlist("tags") if isinstance(v, str))
        return _answer(request, settings, session, htmx, context)
    # Parsing costs as much as saving, so it needs the write token too.
    check_write_token(settings, upload.text("write_token"))
    files, fields = upload.files, _fields(upload)
    if not files:
        return render(request, "uploads/_preview.html", {"sweeps": [], "errors": []})
    try:
        result = uploads.preview(session, files, fields, limits)
    except IngestError as exc:
        context = {"sweeps": [], **_errors(exc.errors)}
        return render(request, "uploads/_preview.html", context)
    return render(request, "uploads/_preview.html", _preview_context(None, result))


@router.post("/upload/confirm", name="upload_confirm")
def upload_confirm(
    request: Request, session: SessionDep, settings: SettingsDep, htmx: HtmxDep, form: FormDep
) -> Response:
    """Store the staged files' sweeps with their details, then summarise what was saved."""
    token = form.get("staging")
    token = token if isinstance(token, str) else ""
    details = details_from_form(form)
    tags = [v for v in form.getlist("tags") if isinstance(v, str)]
    limits = uploads.limits_for(settings.max_unpacked_bytes)
    try:
        stored = staging.confirm(session, token, details, limits, tags)
    except IngestError as exc:
        # Nothing stored and the files stay staged: show the preview again with the problems.
        staged, result = _preview_or_none(session, token, details, limits)
        context = {
            **(_preview_context(staged, result, details) if result else {"sweeps": []}),
            **_errors(exc.errors),
            "saving_failed": True,
            "tags": ", ".join(tags),
        }
        return _answer(request, settings, session, htmx, context, 422)
    return _answer(request, settings, session, htmx, summary_context(stored))


@router.post("/upload", name="upload_save")
def upload_save(
    request: Request, session: SessionDep, settings: SettingsDep, htmx: HtmxDep, upload: UploadDep
) -> Response:
    """One step, files and fields together (scripts, older pages): store every sweep in one
    transaction, then open the first."""
    check_write_token(settings, upload.text("write_token"))
    files, fields = upload.files, _fields(upload)
    tags = [v for v in upload.form.getlist("tags") if isinstance(v, str)]
    try:
        saved = uploads.store(
            session, files, fields, uploads.limits_for(settings.max_unpacked_bytes), tags
        )
    except IngestError as exc:
        context = {**_errors(exc.errors), "sweeps": []}
        if htmx:
            return render(request, "uploads/_preview.html", context, status_code=422)
        page = {**_context(settings, session), **context}
        return render(request, "uploads/new.html", page, status_code=422)
    target = f"/sweeps/{saved[0].id}" if len(saved) == 1 else "/sweeps"
    if htmx:
        return Response(status_code=204, headers={"HX-Redirect": target})
    return RedirectResponse(target, status_code=303)


def details_from_form(form: FormData) -> uploads.Details:
    """Each sweep's details ("s0.hardware"), the all-sweeps row ("all.hardware") and the row's
    values carried for the sweeps listed without inputs ("rest.hardware")."""
    per_sweep: dict[int, dict[str, str]] = {}
    every: dict[str, str] = {}
    rest: dict[str, str] = {}
    keep: set[int] = set()  # "keep as typed" ticked for these sweeps' hardware
    new: set[int] = set()  # stored as new sweeps, though the same measurements are stored
    disaggregated: set[int] = set()
    for key, value in form.multi_items():
        if not isinstance(value, str):
            continue
        if (m := PER_SWEEP.fullmatch(key)) and m.group(2) == DISAGGREGATED:
            disaggregated.update([int(m.group(1))] if value == "1" else [])
        elif (m := PER_SWEEP.fullmatch(key)) and m.group(2) in CHOICES:
            (keep if m.group(2) == KEEP_HARDWARE else new).update(
                [int(m.group(1))] if value in ("1", "new") else []
            )
        elif key.startswith(EVERY_PREFIX) and key[len(EVERY_PREFIX) :] in META_FIELDS:
            every[key[len(EVERY_PREFIX) :]] = value
        elif key.startswith(REST_PREFIX) and key[len(REST_PREFIX) :] in META_FIELDS:
            rest[key[len(REST_PREFIX) :]] = value
        elif (m := PER_SWEEP.fullmatch(key)) and m.group(2) in upload_fields.FORM_FIELDS:
            per_sweep.setdefault(int(m.group(1)), {})[m.group(2)] = value
    keep_apart = form.get(KEEP_APART) == "1"
    shown = form.get(GROUPED_AS)
    if shown is not None and (shown == "apart") != keep_apart:
        per_sweep, keep, new, disaggregated = {}, set(), set(), set()  # other sweeps now
    count = max(per_sweep, default=-1) + 1
    return uploads.Details(
        keep_apart=keep_apart,
        prefill_stored=True,
        per_sweep=[per_sweep.get(i, {}) for i in range(count)],
        every=every,
        rest=rest,
        rest_from=EDITABLE_SWEEPS,
        keep_hardware=frozenset(keep),
        keep_every_hardware=form.get(EVERY_PREFIX + KEEP_HARDWARE) == "1",
        store_new=frozenset(new),
        disaggregated=frozenset(disaggregated),
    )


def summary_context(stored: uploads.Stored) -> dict[str, Any]:
    """What was saved: each sweep linked with its points (the first LISTED_SWEEPS), and Explore
    with all of them."""
    rows = upload_json.saved_json(stored.saved)
    ids = list(dict.fromkeys(r["id"] for r in rows))
    return {
        "saved": rows,
        "listed": LISTED_SWEEPS,
        "saved_warnings": stored.warnings,
        "skipped": stored.skipped,
        "explore_url": upload_json.explore_url(ids, MAX_SERIES),
        "explore_left_out": max(0, len(ids) - MAX_SERIES),
        "max_series": MAX_SERIES,
        "points_total": sum(r["points"] for r in rows),
    }


def _preview_or_none(
    session: SessionDep, token: str, details: uploads.Details, limits: Any
) -> tuple[str, uploads.Preview | None]:
    try:
        staged = staging.load(session, token)
        return token, uploads.preview_detailed(session, staged.files, details, limits)
    except (IngestError, Gone):
        return token, None


def _preview_context(
    token: str | None, result: uploads.Preview, details: uploads.Details | None = None
) -> dict[str, Any]:
    details = details or uploads.Details()
    return {
        "token": token,
        "sweeps": result.sweeps,
        "matches": result.matches,
        **_errors(result.errors),
        "skipped": result.skipped,
        "columns": COLUMNS_BY_NAME,
        "stored_percentiles": upload_checks.stored_percentiles,
        "detail_fields": [COLUMNS_BY_NAME[k] for k in META_FIELDS],
        "editable": EDITABLE_SWEEPS,
        "listed": LISTED_SWEEPS,
        # The all-sweeps values applied so far, carried for the sweeps without inputs (a value
        # the row refused stays in the row, marked, and leaves the one carried before).
        "rest_given": {
            **{k: v for k, v in details.rest.items() if v},
            **{k: v for k, v in details.every.items() if v and (None, k) not in result.invalid},
        },
        # A refused value is shown as typed, marked, beside its error.
        "invalid": result.invalid,
        "given": list(details.per_sweep),
        "every_given": details.every,
        "stored": result.stored,
        "keep_hardware": details.keep_hardware or frozenset(),
        "keep_every_hardware": details.keep_every_hardware,
        "store_new": details.store_new or frozenset(),
        "disaggregated": details.disaggregated,
        "split_fields": uploads.SPLIT_FIELDS,
        "keep_apart": details.keep_apart,
        "joins": result.joins,
    }


def _answer(
    request: Request,
    settings: Settings,
    session: SessionDep,
    htmx: bool,
    context: dict[str, Any],
    status_code: int = 200,
) -> Response:
    """The fragment for #upload-result, or (without htmx) the whole page around it."""
    if htmx:
        return render(request, "uploads/_result.html", context, status_code=status_code)
    page = {**_context(settings, session), **context}
    return render(request, "uploads/new.html", page, status_code=status_code)


def _fields(upload: Upload) -> dict[str, str | None]:
    return {k: v for k in META_FIELDS if (v := upload.text(k)) is not None}


def _context(settings: Settings, session: SessionDep) -> dict[str, Any]:
    return {
        "needs_token": settings.write_token is not None,
        "max_upload_mb": settings.max_upload_mb,
        "staged_minutes": settings.staged_upload_minutes,
        "formats": upload_page.native_formats(),
        "hardware_keys": catalog.hardware_keys(session),
        "detail_fields": [COLUMNS_BY_NAME[k] for k in META_FIELDS],
        "errors": [],
        "telemetry_files": [],
        "sweeps": [],
    }


def _errors(errors: Sequence[RowError]) -> dict[str, list[str]]:
    """The problems to fix, and apart from them the serving-metrics files sent to /production."""
    return {
        "errors": upload_page.page_errors(errors),
        "telemetry_files": upload_page.telemetry_files(errors),
    }
