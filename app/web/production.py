"""Production pages: the deployments, and one deployment's windows beside a benchmark frontier
(efficiency, SLO attainment and $/Mtok over time, flagged windows); JSON twins under
/api/production."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.charts import production as charts
from app.http.deps import IdPath, SessionDep, SettingsDep
from app.schemas.production import ProductionQuery
from app.services.telemetry import report as production_report
from app.store import pricing as pricing_store
from app.views.production import options_of
from app.views.templating import render
from app.web.production_upload import page_context

router = APIRouter(include_in_schema=False)


@router.get("/production", name="production_list")
def production_list(request: Request, session: SessionDep, settings: SettingsDep) -> Response:
    """Every deployment whose serving metrics were uploaded or pulled, and the form that
    uploads more."""
    return render(request, "production/list.html", page_context(session, settings))


@router.get("/production/{deployment_id}", name="production_detail")
def production_detail(
    request: Request,
    deployment_id: IdPath,
    session: SessionDep,
    query: Annotated[ProductionQuery, Query()],
) -> Response:
    """The deployment's windows over time and beside the frontier, as /api/production/{id}."""
    doc = production_report.report(session, deployment_id, options_of(query))
    given = {k: v for k, v in query.model_dump().items() if v is not None}
    hardware = doc["deployment"]["hardware"]
    context = {
        "doc": doc,
        "profiles": pricing_store.list_profiles(session, hardware) if hardware else [],
        "query": query,
        "api_url": f"/api/production/{deployment_id}?{urlencode(given)}",
        "figures": {
            "overlay-figure": charts.overlay_figure(doc),
            "efficiency-figure": charts.efficiency_figure(doc),
            "attainment-figure": charts.attainment_figure(doc),
            "cost-figure": charts.cost_figure(doc),
        },
    }
    return render(request, "production/detail.html", context)
