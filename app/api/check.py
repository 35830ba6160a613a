"""POST /api/check: the JSON twin of `paretoscope check` (a regression gate for CI)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.http.deps import SessionDep, SettingsDep, WriteDep
from app.schemas.answers.check import CheckAnswer
from app.schemas.check import CheckQuery
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services.checks import gate as check
from app.views.answers import json_answer

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)


@router.post(
    "/check",
    name="api_check",
    dependencies=[WriteDep],
    responses=answered_with(CheckAnswer),
)
def api_check(
    body: CheckQuery, request: Request, session: SessionDep, settings: SettingsDep
) -> Response:
    """Read off `candidate` and `baseline` (ids, tags or names) at one SLO and price, and say
    whether the candidate regressed: `verdict` is "pass" or "regression", or "comparison" when
    the two are not one configuration (hardware, GPU count or precision differs; `differences`
    lists every difference) — 200 in each case. Goodput is judged on the candidate ÷ baseline
    ratio's own interval (each goodput finding's `ratio`). An unknown sweep or tag, a sweep whose
    SLO status is unknown, nothing to compare (no shared range for `scope` frontier, or neither
    sweep meets the SLO: "unknown: …"), or sweeps measuring different work (model, workload,
    ISL/OSL, a demo or mock-server source) without `allow_different` is a 422 naming the field.
    The check is stored; History marks each regression within one configuration."""
    base_url = settings.base_url or str(request.base_url)
    report = check.run(session, body, base_url)
    session.commit()
    return json_answer(report.answer)
