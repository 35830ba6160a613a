"""TTFT against prompt length on a sweep's page (issue 50): the charts by load level and by turn
of a session, at the page's SLO limits (the Chat preset's unless the address gives its own), and
what clicking a bucket lists: the requests there that missed the SLO (/api/readoff/misses)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.charts import ttft_context as charts
from app.charts.sweep import load_label
from app.domain.intervals import DEFAULT_LEVEL
from app.http.errors import AppError
from app.schemas.readoff import MissesQuery
from app.schemas.sweeps import ContextQuery
from app.store import points as point_queries
from app.store.models import SloPreset
from app.store.point_blocks import StoredPoint
from app.views.explore_state import DEFAULT_PRESET

LIMITS = ("ttft_ms", "tpot_ms", "e2el_ms")


def limits_of(session: Session, query: ContextQuery) -> tuple[dict[str, float | None], str]:
    """The limits judged and where they come from (the address, or the default preset)."""
    given = {k: getattr(query, k) for k in LIMITS}
    if any(v is not None for v in given.values()):
        return given, "your limits"
    preset = session.scalars(select(SloPreset).where(SloPreset.key == DEFAULT_PRESET)).first()
    if preset is None:
        return given, "no limits"
    found = {"ttft_ms": preset.ttft_ms, "tpot_ms": preset.tpot_ms, "e2el_ms": preset.e2el_ms}
    return found, f"the {preset.name} preset's limits"


def parse(params: Any) -> ContextQuery:
    """The page's query (an empty field is not given); a bad value is a 422 naming it."""
    data = {k: v for k, v in params.items() if v != ""}
    try:
        return ContextQuery.model_validate(data)
    except ValidationError as exc:
        message = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors())
        raise AppError(422, "Invalid request", message) from exc


def misses_query(sweep_id: int, params: Any) -> MissesQuery:
    """A clicked bucket's query for /api/readoff/misses' body, the sweep from the path."""
    data = {k: v for k, v in params.items() if v != ""}
    try:
        return MissesQuery.model_validate({**data, "sweep": sweep_id})
    except ValidationError as exc:
        message = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors())
        raise AppError(422, "Invalid request", message) from exc


def context_view(
    session: Session, sweep_id: int, points: list[StoredPoint], query: ContextQuery
) -> dict[str, Any]:
    """The page's figures (None where the sweep has no request samples) and their limits."""
    limits, source = limits_of(session, query)
    url = f"/sweeps/{sweep_id}/misses?" + urlencode(
        {k: v for k, v in limits.items() if v is not None}
    )
    samples = point_queries.samples_frame(session, [p.id for p in points])
    view: dict[str, Any] = {
        "limits": limits,
        "limits_from": source,
        "context_figure": None,
        "turns_figure": None,
        "turn_points": [],
        "turn_point": None,
    }
    if samples.is_empty():
        return view
    view["context_figure"] = charts.context_figure(
        points, samples, limits["ttft_ms"], DEFAULT_LEVEL, url
    )
    with_turns = charts.turn_points(points, samples)
    if with_turns:
        chosen = next((p for p in with_turns if p.id == query.turn_point), with_turns[-1])
        view["turn_points"] = [{"id": p.id, "label": load_label(p)} for p in with_turns]
        view["turn_point"] = {"id": chosen.id, "label": load_label(chosen)}
        view["turns_figure"] = charts.turns_figure(chosen, samples, limits["ttft_ms"], url)
    return view
