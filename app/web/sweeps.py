"""Sweep pages: the list with filters and pagination, a sweep's points, edit and delete."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.charts import sweep as charts_sweep
from app.domain.columns import COLUMNS_BY_NAME, POINT_COLUMN_NAMES
from app.domain.lengths import check_lengths
from app.domain.sweep_fields import EDITABLE
from app.http.deps import FormDep, HtmxDep, IdPath, SessionDep, SettingsDep, check_write_token
from app.schemas.sweeps import SweepQuery
from app.services.catalogs.entries import match_changes
from app.services.errors import Invalid
from app.services.readoff import misses
from app.services.sweeps import histogram_readoff, stated_figures
from app.services.sweeps import tags as tag_service
from app.services.upload.details import sweep_changes, sweep_filters
from app.store import catalog
from app.store import points as point_queries
from app.store import sweeps as q
from app.store import tags as tag_store
from app.store.point_blocks import StoredPoint
from app.views import sweep_context
from app.views import sweeps as sweep_json
from app.views.carried import carried_from
from app.views.templating import render

router = APIRouter(include_in_schema=False)


@router.get("/sweeps", name="sweeps_list")
def sweeps_list(
    request: Request, session: SessionDep, htmx: HtmxDep, params: Annotated[SweepQuery, Query()]
) -> Response:
    """Every stored sweep, filtered and paginated; htmx gets only the table."""
    rows, total = q.list_sweeps(session, sweep_filters(params), params.page, params.per_page)
    context = {
        "carried": (carry := carried_from(request.query_params)),
        "carry": carry.query,  # the nav's
        "sweeps": rows,
        "counts": q.point_counts(session, [s.id for s in rows]),
        "tags": tag_store.tags_by_sweep(session, [s.id for s in rows]),
        "total": total,
        "params": params,
        "pages": max(1, -(-total // params.per_page)),
        "facets": q.facet_values(session),
    }
    name = "sweeps/_table.html" if htmx else "sweeps/list.html"
    return render(request, name, context)


@router.get("/sweeps/{sweep_id}", name="sweep_detail")
def sweep_detail(
    request: Request, sweep_id: IdPath, session: SessionDep, settings: SettingsDep
) -> Response:
    """A sweep's metadata and every point."""
    sweep = q.get_sweep(session, sweep_id)
    samples = q.sample_counts(session, [p.id for p in sweep.points])
    shown = [c for c in POINT_COLUMN_NAMES if any(getattr(p, c) is not None for p in sweep.points)]
    figures = sweep_figures(session, sweep.points, sweep.num_gpus, any(samples.values()))
    turns = sweep_json.turn_view(session, sweep) if any(samples.values()) else []
    lengths = check_lengths(
        sweep.isl, sweep.osl, [(p.input_len, p.output_len, p.num_requests) for p in sweep.points]
    )
    context = {
        "carry": carried_from(request.query_params).query,  # the nav's
        "sweep": sweep,
        "split": sweep_json.split_of_points(sweep),
        "lengths": lengths,
        "samples": samples,
        "turns": turns,
        "figures": figures,
        "inf_load": any(charts_sweep.is_infinite(p) for p in sweep.points),
        "inf_note": charts_sweep.INF_NOTE,
        "columns": [COLUMNS_BY_NAME[c] for c in shown],
        "editable": [COLUMNS_BY_NAME[c] for c in EDITABLE],
        "needs_token": settings.write_token is not None,
        "hardware_match": catalog.match_hardware(session, sweep.hardware),
        "sweep_id": sweep.id,
        "tags": tag_store.tags_of(session, sweep.id),
        "stated": stated_figures.stated_rows(session, sweep.points),
        "histogram_attainment": histogram_readoff.sweep_view(session, sweep.points),
        "cached_input": sweep_json.cached_view(session, sweep, any(samples.values())),
        # TTFT against prompt length by load and by turn, at the page's limits (issue 50).
        **sweep_context.context_view(
            session, sweep.id, sweep.points, sweep_context.parse(request.query_params)
        ),
    }
    return render(request, "sweeps/detail.html", context)


@router.get("/sweeps/{sweep_id}/misses", name="sweep_misses")
def sweep_misses(request: Request, sweep_id: IdPath, session: SessionDep) -> Response:
    """htmx fragment: the requests of a clicked bucket (a point, a prompt-length range, a turn)
    that missed the page's limits, and which limit each missed; JSON twin /api/readoff/misses."""
    query = sweep_context.misses_query(sweep_id, request.query_params)
    among = misses.Among(query.input_tokens_low, query.input_tokens_high, query.turn_index)
    body = misses.misses(session, sweep_id, query.point_id, query.slo(), among)
    return render(request, "sweeps/_misses.html", {"m": body})


@router.post("/sweeps/{sweep_id}/edit", name="sweep_edit")
def sweep_edit(
    sweep_id: IdPath, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Save metadata edits from the form, then show the sweep again."""
    check_write_token(settings, _str(form.get("write_token")))
    changes = sweep_changes({k: _str(form.get(k)) for k in EDITABLE if k in form})
    # The page says afterwards when the hardware matched nothing (see hardware_match).
    changes, _ = match_changes(session, changes)
    q.update_sweep(session, sweep_id, changes)
    session.commit()
    return RedirectResponse(f"/sweeps/{sweep_id}", status_code=303)


@router.post("/sweeps/{sweep_id}/delete", name="sweep_delete")
def sweep_delete(
    sweep_id: IdPath, form: FormDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Delete the sweep, then go back to the list."""
    check_write_token(settings, _str(form.get("write_token")))
    q.delete_sweep(session, sweep_id)
    session.commit()
    return RedirectResponse("/sweeps", status_code=303)


@router.post("/sweeps/{sweep_id}/tags", name="sweep_tags_add")
def sweep_tags_add(
    request: Request,
    sweep_id: IdPath,
    form: FormDep,
    session: SessionDep,
    settings: SettingsDep,
    htmx: HtmxDep,
) -> Response:
    """Add the typed tag; htmx gets the tags fragment back."""
    check_write_token(settings, _str(form.get("write_token")))
    tag = _str(form.get("tag")) or ""
    return _tags_answer(request, session, settings, htmx, sweep_id, "add", tag)


@router.post("/sweeps/{sweep_id}/tags/remove", name="sweep_tags_remove")
def sweep_tags_remove(
    request: Request,
    sweep_id: IdPath,
    form: FormDep,
    session: SessionDep,
    settings: SettingsDep,
    htmx: HtmxDep,
) -> Response:
    """Remove the tag whose button was pressed."""
    check_write_token(settings, _str(form.get("write_token")))
    tag = _str(form.get("remove")) or ""
    return _tags_answer(request, session, settings, htmx, sweep_id, "remove", tag)


def _tags_answer(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    htmx: bool,
    sweep_id: int,
    action: str,
    tag: str,
) -> Response:
    error = None
    try:
        if action == "add":
            tag_service.add(session, sweep_id, [tag])
        else:
            tag_service.remove(session, sweep_id, tag)
        session.commit()
    except Invalid as exc:
        if not htmx:
            raise
        session.rollback()
        error = f"Tag not added: {exc.message}"
    if not htmx:
        return RedirectResponse(f"/sweeps/{sweep_id}", status_code=303)
    context = {
        "sweep_id": sweep_id,
        "tags": tag_store.tags_of(session, sweep_id),
        "needs_token": settings.write_token is not None,
        "tag_error": error,
    }
    return render(request, "sweeps/_tags.html", context, status_code=422 if error else 200)


def sweep_figures(
    session: SessionDep, points: list[StoredPoint], num_gpus: int, has_samples: bool
) -> dict[str, Mapping[str, Any]]:
    """Figures by element id: latency and throughput against load, per-request CDFs (only
    when the sweep has request samples; the page says so otherwise). An empty figure says why."""
    figures: dict[str, Mapping[str, Any]] = {
        "latency-figure": charts_sweep.latency_figure(points),
        "e2el-figure": charts_sweep.e2el_figure(points),
        "throughput-figure": charts_sweep.throughput_figure(points, num_gpus),
    }
    if has_samples:
        samples = point_queries.samples_frame(session, [p.id for p in points])
        figures["ttft-cdf-figure"] = charts_sweep.cdf_figure(points, samples, "ttft")
        figures["tpot-cdf-figure"] = charts_sweep.cdf_figure(points, samples, "tpot")
    return figures


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
