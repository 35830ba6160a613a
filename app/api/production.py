"""Production telemetry read back: deployments, and a deployment's windows beside a benchmark
frontier (uploads: app.api.production_upload)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.http.answers import json_answer
from app.http.deps import IdPath, SessionDep
from app.schemas.answers.production import DeploymentList, ProductionReport
from app.schemas.production import ProductionQuery
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services import production_report
from app.store import production as store

router = APIRouter(prefix="/api/production", tags=["production"], responses=ERROR_RESPONSES)


@router.get("", name="api_production_list", response_model=DeploymentList)
def api_production_list(session: SessionDep) -> dict[str, Any]:
    """Every deployment with its number of stored windows."""
    return {
        "deployments": [
            {**deployment_json(d), "windows": n} for d, n in store.list_deployments(session)
        ]
    }


@router.get(
    "/{deployment_id}", name="api_production_report", responses=answered_with(ProductionReport)
)
def api_production_report(
    deployment_id: IdPath, session: SessionDep, query: Annotated[ProductionQuery, Query()]
) -> Response:
    """The deployment's windows: rate, tok/s (per GPU), concurrency, TTFT/TPOT/E2EL
    percentiles from the buckets, efficiency against the frontier, SLO attainment and $/Mtok,
    with flags below `min_efficiency` or failing the SLO."""
    return json_answer(production_report.report(session, deployment_id, options_of(query)))


def options_of(query: ProductionQuery) -> production_report.ReportOptions:
    return production_report.ReportOptions(
        sweep_id=query.sweep,
        stat=query.stat,
        basis=query.basis,
        interpolation=query.interpolation,
        ttft_ms=query.ttft_ms,
        tpot_ms=query.tpot_ms,
        e2el_ms=query.e2el_ms,
        attainment=query.attainment,
        min_efficiency=query.min_efficiency,
        usd_per_gpu_hour=query.usd_per_gpu_hour,
    )


def deployment_json(d: Any) -> dict[str, Any]:
    return {k: getattr(d, k) for k in ("id", "name", *store.DEPLOYMENT_FIELDS)}
