"""POST /api/production: a deployment's serving metrics in (scrapes of /metrics or a
query_range answer), stored as windows. Writes need the write token."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile
from fastapi.responses import JSONResponse, Response

from app.domain.prom_window import DEFAULT_WINDOW_S
from app.http.deps import SessionDep, UploadDep, WriteDep
from app.http.uploads import UploadRoute
from app.ingest.source import SourceFile
from app.schemas.answers.production import ProductionStored
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services.telemetry import windows as production

router = APIRouter(
    prefix="/api/production",
    tags=["production"],
    dependencies=[WriteDep],
    responses=ERROR_RESPONSES,
    route_class=UploadRoute,
)


@router.post(
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
    answer = production.ingested_json(result)  # before the commit: it stands with its answer
    session.commit()
    return JSONResponse(answer, status_code=201)
