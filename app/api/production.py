"""Production telemetry: upload a deployment's serving metrics (scrapes of /metrics or a
query_range answer) and read its windows beside a benchmark frontier."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, UploadFile
from fastapi.responses import JSONResponse, Response

from app.domain.prom_window import DEFAULT_WINDOW_S
from app.http.answers import json_answer
from app.http.deps import IdPath, SessionDep, UploadDep, WriteDep
from app.http.uploads import UploadRoute
from app.ingest.source import SourceFile
from app.schemas.answers.production import DeploymentList, ProductionReport, ProductionStored
from app.schemas.production import ProductionQuery
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services import production, production_report
from app.store import production as store

router = APIRouter(prefix="/api/production", tags=["production"], responses=ERROR_RESPONSES)
writes = APIRouter(
    prefix="/api/production",
    tags=["production"],
    dependencies=[WriteDep],
    responses=ERROR_RESPONSES,
    route_class=UploadRoute,
)


@writes.post(
    "",
    name="api_production_upload",
    status_code=201,
    responses=answered_with(ProductionStored, 201),
)
def api_production_upload(
    session: SessionDep,
    upload: UploadDep,
    files: Annotated[
        list[UploadFile], File(description="two or more /metrics scrapes, or query_range JSON")
    ],
    deployment: Annotated[str, Form(min_length=1, max_length=300, description="its name")],
    model: Annotated[str | None, Form(max_length=200)] = None,
    hardware: Annotated[str | None, Form(max_length=100)] = None,
    num_gpus: Annotated[int | None, Form(ge=1, le=production.MAX_GPUS)] = None,
    engine: Annotated[str | None, Form(max_length=100)] = None,
    engine_version: Annotated[str | None, Form(max_length=100)] = None,
    selector: Annotated[
        str | None, Form(max_length=500, description='label="value" pairs, comma-separated')
    ] = None,
    times: Annotated[
        str | None,
        Form(max_length=100_000, description="scrape times in file order, comma-separated"),
    ] = None,
    window_s: Annotated[float, Form(ge=1, le=86_400, allow_inf_nan=False)] = DEFAULT_WINDOW_S,
) -> Response:
    """Store a deployment's windows from its serving metrics (vLLM or SGLang), recognised by
    content: Prometheus text scrapes (each timed by `times`, Unix seconds or ISO 8601, or by
    its `# scraped_at` line) or a query_range answer of the raw series. A refusal (422, with
    the reason) stores nothing; windows already stored are counted, not stored again."""
    given = production.DeploymentIn(
        name=deployment,
        model=model,
        hardware=hardware,
        num_gpus=num_gpus,
        engine=engine,
        engine_version=engine_version,
    )
    sources = [SourceFile(f.name, f.data) for f in upload.files]
    result = production.ingest_files(
        session,
        given,
        sources,
        times_s=production.times_of(times),
        selector=production.selector_of(selector),
        window_s=window_s,
    )
    session.commit()
    return JSONResponse(production.ingested_json(result), status_code=201)


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
