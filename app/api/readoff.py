"""GET /api/readoff and /api/frontier: goodput at an SLO with costs, and each sweep's frontier."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from app.http.deps import SessionDep
from app.http.errors import AppError
from app.services import analysis, price_columns
from app.services.readoff_json import frontier_json, price_cells_json, result_json, slo_json
from app.services.readoff_query import ReadoffQuery

router = APIRouter(prefix="/api", tags=["analysis"])
SweepIds = Annotated[list[int], Query(description="sweep id; repeat for several")]


@router.get("/readoff", name="api_readoff")
def api_readoff(
    session: SessionDep, sweep: SweepIds, query: Annotated[ReadoffQuery, Query()]
) -> dict[str, Any]:
    """Per sweep: pass, fail or unknown at the SLO, its goodput and operating point, and $/Mtok
    per price column (a price set, each profile, an inline price: as the page that links here)."""
    params = query.params()
    columns = price_columns.columns_for(
        session, query.price_set, query.pricing, query.usd_per_gpu_hour
    )
    results, _ = analysis.run(
        session,
        sweep_ids(sweep),
        params,
        price_columns.profile_ids(columns),
        query.usd_per_gpu_hour,
    )
    return {
        "slo": slo_json(query, params),
        "price_columns": [{"label": c.label, "profile_ids": c.profile_ids} for c in columns],
        "results": [
            {
                **result_json(r, with_points=query.points),
                "price_cells": price_cells_json(price_columns.price_cells(r, columns), columns),
            }
            for r in results
        ],
    }


@router.get("/frontier", name="api_frontier")
def api_frontier(
    session: SessionDep,
    sweep: SweepIds,
    query: Annotated[ReadoffQuery, Query()],
) -> dict[str, Any]:
    """Each sweep's Pareto frontier and dominated points, with x (tok/s/user) and y (tok/s/GPU)."""
    params = query.params()
    results, _ = analysis.run(session, sweep_ids(sweep), params, [], None)
    return {
        "stat": params.stat,
        "basis": params.basis,
        "x": f"interactivity, tok/s/user = 1000 / {params.stat} TPOT ms",
        "y": f"{params.basis} tok/s per GPU",
        "sweeps": [frontier_json(r, params) for r in results],
    }


def sweep_ids(sweep: list[int]) -> list[int]:
    """Distinct ids in order; at least one."""
    if not sweep:
        raise AppError(422, "Invalid request", "sweep: give at least one sweep id")
    return list(dict.fromkeys(sweep))
