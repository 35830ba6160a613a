"""Exports: canonical CSV, zip and JSON of sweeps, and read-off tables as CSV."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.api.readoff import SweepIds
from app.http.deps import SessionDep
from app.schemas.answers.sweeps import ExportedSweeps
from app.schemas.readoff import ReadoffQuery
from app.schemas.responses import ERROR_RESPONSES, answered_with, download
from app.services import bands, exports
from app.services.readoff import token_classes
from app.services.readoff.document import run_query
from app.store import points as point_queries
from app.store import sweeps as q
from app.views.documents import sweep_ids

router = APIRouter(
    prefix="/api/export",
    tags=["exports"],
    responses=ERROR_RESPONSES,
    # Files, not JSON answers: only what `responses=` says is documented for a 200.
    default_response_class=Response,
)


@router.get("/sweeps.csv", name="export_sweeps_csv", responses=download("text/csv"))
def export_sweeps_csv(session: SessionDep, sweep: SweepIds) -> Response:
    """Canonical points CSV of the sweeps (imports back as the same sweeps)."""
    sweeps = q.get_sweeps(session, sweep_ids(sweep))
    return _download(exports.sweeps_csv(sweeps), "sweeps.csv", "text/csv; charset=utf-8")


@router.get("/requests.csv", name="export_requests_csv", responses=download("text/csv"))
def export_requests_csv(session: SessionDep, sweep: SweepIds) -> Response:
    """Canonical per-request CSV of the sweeps' request samples."""
    sweeps = q.get_sweeps(session, sweep_ids(sweep))
    ids = [p.id for s in sweeps for p in s.points]
    samples = point_queries.samples_by_point(session, ids, warmup=True)
    text = exports.requests_csv(sweeps, samples)
    return _download(text, "requests.csv", "text/csv; charset=utf-8")


@router.get(
    "/sweeps.zip", name="export_sweeps_zip", responses=download("application/zip", binary=True)
)
def export_sweeps_zip(session: SessionDep, sweep: SweepIds) -> Response:
    """points.csv and requests.csv together: everything needed to import the sweeps again."""
    sweeps = q.get_sweeps(session, sweep_ids(sweep))
    ids = [p.id for s in sweeps for p in s.points]
    samples = point_queries.samples_by_point(session, ids, warmup=True)
    return _download(exports.sweeps_zip(sweeps, samples), "sweeps.zip", "application/zip")


@router.get(
    "/sweeps.json",
    name="export_sweeps_json",
    responses=answered_with(ExportedSweeps, description="a application/json file"),
)
def export_sweeps_json(session: SessionDep, sweep: SweepIds) -> Response:
    """Sweeps with every stored column of their points, as JSON."""
    sweeps = q.get_sweeps(session, sweep_ids(sweep))
    samples = q.sample_counts_by_position(session, [s.id for s in sweeps])
    return _download(exports.sweeps_json(sweeps, samples), "sweeps.json", "application/json")


@router.get("/readoff.csv", name="export_readoff_csv", responses=download("text/csv"))
def export_readoff_csv(
    session: SessionDep, sweep: SweepIds, query: Annotated[ReadoffQuery, Query()]
) -> Response:
    """The read-off table: one row per sweep; per price column (the page's price set, profiles
    and inline price) the price that applied to the sweep's GPU and its $/Mtok.

    Across fields: give tpot_ms or min_tok_s_user, not both (each is 1000 / the other); at
    least one `sweep`.
    """
    params, results, columns = run_query(session, sweep_ids(sweep), query)
    classes = token_classes.shown(session, results, query.class_prices(), columns)
    text = exports.readoff_csv(results, params, columns, classes)
    return _download(text, "readoff.csv", "text/csv; charset=utf-8")


@router.get("/frontier_band.csv", name="export_frontier_band_csv", responses=download("text/csv"))
def export_frontier_band_csv(
    session: SessionDep, sweep: SweepIds, query: Annotated[ReadoffQuery, Query()]
) -> Response:
    """Each sweep's confidence band around its frontier at `ci_level`, as Explore and Compare
    draw it with bands on: per grid interactivity the throughput and its interval's ends
    (seeded bootstrap: the same query gives the same file). A sweep without request samples or
    repeated runs is one row saying why it has no band.

    Across fields: give tpot_ms or min_tok_s_user, not both (each is 1000 / the other); at
    least one `sweep`.
    """
    params, results, _ = run_query(session, sweep_ids(sweep), query)
    found = bands.bands(results, params, bands.samples_for(session, results))
    text = exports.frontier_band_csv(found, params)
    return _download(text, "frontier_band.csv", "text/csv; charset=utf-8")


def _download(body: str | bytes, filename: str, media_type: str) -> Response:
    return Response(
        body,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
