"""Production telemetry read back: deployments, and a deployment's windows beside a benchmark
frontier (uploads: app.api.production_upload)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse, Response

from app.http.deps import IdPath, SessionDep, SettingsDep, WriteDep
from app.http.errors import AppError
from app.ingest.prometheus import PullError
from app.schemas.answers.production import DeploymentList, ProductionReport, ProductionStored
from app.schemas.answers.typed.production import DeploymentListDict
from app.schemas.production import ProductionPull, ProductionQuery
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services.telemetry import report as production_report
from app.services.telemetry import windows as production
from app.store import production as store
from app.views.answers import json_answer
from app.views.production import options_of

router = APIRouter(prefix="/api/production", tags=["production"], responses=ERROR_RESPONSES)


@router.get("", name="api_production_list", response_model=DeploymentList)
def api_production_list(session: SessionDep) -> DeploymentListDict:
    """Every deployment with its number of stored windows."""
    return {
        "deployments": [
            {**production_report.deployment_json(d), "windows": n}
            for d, n in store.list_deployments(session)
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


@router.post(
    "/pull",
    name="api_production_pull",
    status_code=201,
    dependencies=[WriteDep],
    responses=answered_with(ProductionStored, 201),
)
def api_production_pull(
    session: SessionDep, settings: SettingsDep, body: Annotated[ProductionPull, Body()]
) -> Response:
    """Pull a deployment's windows from PARETOSCOPE_PROMETHEUS_URL (its HTTP query API,
    read-only): each window's increases and histogram_quantile computed by the server, long
    ranges asked in bounded chunks, the whole pull within PARETOSCOPE_PROMETHEUS_TIMEOUT_S. An
    unreachable or slow server is a 502 saying so; nothing is stored then."""
    given = production.DeploymentIn(
        name=body.deployment,
        model=body.model,
        hardware=body.hardware,
        num_gpus=body.num_gpus,
        engine=body.engine,
        engine_version=body.engine_version,
    )
    start, end = production.when(body.start, "start"), production.when(body.end, "end")
    wanted = production.PullRange(production.selector_of(body.selector), start, end, body.window_s)
    try:
        result = production.pull_live(
            session,
            given,
            wanted,
            url=settings.prometheus_url,
            timeout_s=settings.prometheus_timeout_s,
        )
    except PullError as exc:
        raise AppError(502, "Prometheus unavailable", str(exc)) from None
    answer = production.ingested_json(result)  # before the commit: it stands with its answer
    session.commit()
    return JSONResponse(answer, status_code=201)
