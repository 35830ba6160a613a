"""GET /api/metrics: every definition with its formula (the Metrics page's JSON twin)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.domain.definitions import definitions_json
from app.schemas.answers.misc import Definitions
from app.schemas.responses import ERROR_RESPONSES

router = APIRouter(prefix="/api", tags=["metrics"], responses=ERROR_RESPONSES)


@router.get(
    "/metrics",
    name="api_metrics",
    response_model=Definitions,
)
def api_metrics() -> dict[str, Any]:
    """Every definition with its formula (the Metrics page's JSON twin)."""
    return {"definitions": definitions_json()}
