"""GET /api/metrics: every definition with its formula (the Metrics page's JSON twin)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.schemas.answers.misc import Definitions
from app.schemas.answers.typed.misc import DefinitionsDict
from app.schemas.metrics import MetricQuery
from app.schemas.responses import ERROR_RESPONSES
from app.views.documents import metrics_answer

router = APIRouter(prefix="/api", tags=["metrics"], responses=ERROR_RESPONSES)


@router.get(
    "/metrics",
    name="api_metrics",
    response_model=Definitions,
)
def api_metrics(query: Annotated[MetricQuery, Query()]) -> DefinitionsDict:
    """Every definition with its formula (the Metrics page's JSON twin), or one by its `id`."""
    return metrics_answer(query)
