"""Exports: canonical CSV, zip and JSON of sweeps, and read-off tables as CSV."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.api.readoff import SweepIds, sweep_ids
from app.http.deps import SessionDep
from app.services import analysis, exports, price_columns
from app.services.readoff_query import ReadoffQuery
from app.store import points as point_queries
from app.store import sweeps as q

router = APIRouter(prefix="/api/export", tags=["exports"])

READOFF_HEADER = [
    "sweep_id", "sweep", "hardware", "num_gpus", "model", "engine", "precision", "slo", "mode",
    "basis", "status", "meets_slo", "goodput_tok_s_per_gpu", "goodput_requests_per_s",
    "concurrency", "request_rate", "interactivity_tok_s_user", "estimate_tok_s_per_gpu",
    "tok_s_per_mw", "reason",
]  # fmt: skip


@router.get("/sweeps.csv", name="export_sweeps_csv")
def export_sweeps_csv(session: SessionDep, sweep: SweepIds) -> Response:
    """Canonical points CSV of the sweeps (imports back as the same sweeps)."""
    sweeps = [q.get_sweep(session, i) for i in sweep_ids(sweep)]
    return _download(exports.sweeps_csv(sweeps), "sweeps.csv", "text/csv; charset=utf-8")


@router.get("/requests.csv", name="export_requests_csv")
def export_requests_csv(session: SessionDep, sweep: SweepIds) -> Response:
    """Canonical per-request CSV of the sweeps' request samples."""
    sweeps = [q.get_sweep(session, i) for i in sweep_ids(sweep)]
    samples = point_queries.samples_by_point(session, [p.id for s in sweeps for p in s.points])
    text = exports.requests_csv(sweeps, samples)
    return _download(text, "requests.csv", "text/csv; charset=utf-8")


@router.get("/sweeps.zip", name="export_sweeps_zip")
def export_sweeps_zip(session: SessionDep, sweep: SweepIds) -> Response:
    """points.csv and requests.csv together: everything needed to import the sweeps again."""
    sweeps = [q.get_sweep(session, i) for i in sweep_ids(sweep)]
    samples = point_queries.samples_by_point(session, [p.id for s in sweeps for p in s.points])
    return _download(exports.sweeps_zip(sweeps, samples), "sweeps.zip", "application/zip")


@router.get("/sweeps.json", name="export_sweeps_json")
def export_sweeps_json(session: SessionDep, sweep: SweepIds) -> Response:
    """Sweeps with every stored column of their points, as JSON."""
    sweeps = [q.get_sweep(session, i) for i in sweep_ids(sweep)]
    return _download(exports.sweeps_json(sweeps), "sweeps.json", "application/json")


@router.get("/readoff.csv", name="export_readoff_csv")
def export_readoff_csv(
    session: SessionDep, sweep: SweepIds, query: Annotated[ReadoffQuery, Query()]
) -> Response:
    """The read-off table: one row per sweep; per price column (the page's price set, profiles
    and inline price) the price that applied to the sweep's GPU and its $/Mtok."""
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
    header = [
        *READOFF_HEADER,
        *(
            name
            for c in columns
            for name in (f"usd_per_mtok [{c.label}]", f"usd_per_gpu_hour [{c.label}]")
        ),
    ]
    rows = [
        [
            *_readoff_row(r, params),
            *(
                value
                for cost in price_columns.price_cells(r, columns)
                for value in (
                    None if cost is None else cost.usd_per_mtok,
                    None if cost is None else cost.price.usd_per_gpu_hour,
                )
            ),
        ]
        for r in results
    ]
    return _download(exports.rows_csv(header, rows), "readoff.csv", "text/csv; charset=utf-8")


def _readoff_row(result: analysis.SweepAnalysis, params: analysis.Params) -> list[Any]:
    meta, readoff = result.meta, result.readoff
    op = readoff.operating_point
    return [
        meta["id"], meta["name"], meta["hardware"], meta["num_gpus"], meta["model"],
        meta["engine"], meta["precision"], params.slo.describe(), params.mode, params.basis,
        readoff.status, readoff.meets_slo, readoff.goodput_tok_s_per_gpu,
        readoff.goodput_requests_per_s,
        op.concurrency if op else None, op.request_rate if op else None,
        op.interactivity_tok_s_user if op else None, result.estimate_tok_s_per_gpu,
        result.tok_s_per_mw, readoff.reason,
    ]  # fmt: skip


def _download(body: str | bytes, filename: str, media_type: str) -> Response:
    return Response(
        body,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
