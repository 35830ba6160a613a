"""GET /api/readoff and /api/frontier: goodput at an SLO with costs, and each sweep's frontier."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.domain.accounting import axis_unit
from app.domain.sessions import axis_words
from app.http.deps import DbId, SessionDep
from app.schemas.answers.readoff import FrontierOut, ReadoffOut
from app.schemas.answers.ttft_context import MissesOut
from app.schemas.bounds import MAX_SWEEPS_ASKED
from app.schemas.readoff import MissesQuery, ReadoffQuery, ReadoffRequest
from app.schemas.responses import ERROR_RESPONSES, answered_with
from app.services import analysis, bands
from app.services.readoff import misses
from app.services.readoff.document import frontier_json
from app.services.readoff.query import params_of
from app.views import documents
from app.views.answers import json_answer
from app.views.documents import sweep_ids

router = APIRouter(prefix="/api", tags=["analysis"], responses=ERROR_RESPONSES)
SweepIds = Annotated[
    list[DbId],
    Query(description="sweep id; repeat for several", max_length=MAX_SWEEPS_ASKED),
]


@router.get("/readoff", name="api_readoff", responses=answered_with(ReadoffOut))
def api_readoff(session: SessionDep, query: Annotated[ReadoffRequest, Query()]) -> Response:
    """Per sweep: pass, fail or unknown at the SLO, its goodput and operating point, and $/Mtok
    per price column (a price set, each profile, an inline price: as the page that links here).

    Across fields: give tpot_ms or min_tok_s_user, not both (each is 1000 / the other); at
    least one `sweep`.
    """
    return json_answer(documents.readoff_answer(session, query))


@router.get("/readoff/misses", name="api_readoff_misses", responses=answered_with(MissesOut))
def api_readoff_misses(session: SessionDep, query: Annotated[MissesQuery, Query()]) -> Response:
    """One point's requests that missed the SLO's limits, judged per request, and which limit
    each missed (what clicking a point on Explore, or a bucket of the sweep page's TTFT against
    prompt length, lists); input_tokens_low/high and turn_index keep one bucket and one turn.

    Across fields: give tpot_ms or min_tok_s_user, not both; `point_id` must be a point of
    `sweep`.
    """
    among = misses.Among(query.input_tokens_low, query.input_tokens_high, query.turn_index)
    return json_answer(misses.misses(session, query.sweep, query.point_id, query.slo(), among))


@router.get("/frontier", name="api_frontier", responses=answered_with(FrontierOut))
def api_frontier(
    session: SessionDep,
    sweep: SweepIds,
    query: Annotated[ReadoffQuery, Query()],
    band: Annotated[
        bool, Query(description="each frontier's confidence band at ci_level, as arrays")
    ] = False,
) -> Response:
    """Each sweep's Pareto frontier and dominated points, with x (tok/s/user) and y (tok/s/GPU);
    with band=1, its confidence band (a seeded bootstrap over requests or repeated runs).

    Across fields: give tpot_ms or min_tok_s_user, not both (each is 1000 / the other); at
    least one `sweep`.
    """
    params = params_of(query)
    results, _ = analysis.run(session, sweep_ids(sweep), params, [], None)
    found = {}
    if band:
        samples = bands.samples_for(session, results)
        found = {
            int(b.result.meta.id): bands.band_json(b) for b in bands.bands(results, params, samples)
        }
    return json_answer(
        {
            "stat": params.stat,
            "basis": params.basis,
            "x": axis_words(params.interactivity, params.stat, params.e2e_percentile),
            "interactivity": params.interactivity,
            "accounting": params.accounting,
            "y": f"{params.basis} {axis_unit(params.accounting)}",
            "sweeps": [
                {**frontier_json(r, params), "band": found.get(int(r.meta.id))} for r in results
            ],
        }
    )
