"""Searching stored sweeps: bounded queries for the series picker and its JSON twin.

Every query here has a LIMIT (or counts): with 10,000 stored sweeps the picker lists a page of
matches, never the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, func, or_, select
from sqlalchemy.orm import Session

from app.store.models import Point, Sweep

FILTER_FIELDS: tuple[str, ...] = ("model", "hardware", "engine", "precision", "source_kind")
# What the search box looks in; every word must match one of them (any case).
SEARCHED = ("name", "model", "hardware", "engine", "precision", "notes")
MAX_WORDS = 8
FINITE = 1e300  # a stored throughput or latency beyond this is infinite: no frontier point


@dataclass(frozen=True)
class SweepFilters:
    model: str | None = None
    hardware: str | None = None
    engine: str | None = None
    precision: str | None = None
    source_kind: str | None = None
    isl: int | None = None
    osl: int | None = None
    q: str | None = None  # words searched in the name, model, hardware, engine, precision, notes


@dataclass(frozen=True)
class SweepPage:
    sweeps: list[Sweep]  # newest first
    total: int  # every sweep matching the filters and the search, listed or not


def text_match(q: str | None) -> ColumnElement[bool] | None:
    """Each word of `q` in one of the searched columns; LIKE wildcards in `q` are literal."""
    words = (q or "").lower().split()[:MAX_WORDS]
    if not words:
        return None
    columns = [func.lower(getattr(Sweep, c)) for c in SEARCHED]
    return and_(*(or_(*(c.contains(w, autoescape=True) for c in columns)) for w in words))


def where(query: Select[Any], filters: SweepFilters) -> Select[Any]:
    """`query` narrowed to the sweeps matching every filter and the search text."""
    for name in FILTER_FIELDS:
        value = getattr(filters, name)
        if value:
            query = query.where(getattr(Sweep, name) == value)
    if filters.isl is not None:
        query = query.where(Sweep.isl == filters.isl)
    if filters.osl is not None:
        query = query.where(Sweep.osl == filters.osl)
    matched = text_match(filters.q)
    return query if matched is None else query.where(matched)


def search(
    session: Session, filters: SweepFilters, limit: int, exclude: list[int] | None = None
) -> SweepPage:
    """Up to `limit` matching sweeps, newest first, leaving out `exclude` (already shown), and
    how many match in all."""
    total = session.scalar(where(select(func.count(Sweep.id)), filters)) or 0
    query = where(select(Sweep), filters)
    if exclude:
        query = query.where(Sweep.id.not_in(exclude))
    rows = session.scalars(query.order_by(Sweep.id.desc()).limit(limit)).all()
    return SweepPage(list(rows), total)


def frontier_candidates(
    session: Session, filters: SweepFilters, tpot_column: str, basis: str, limit: int
) -> list[tuple[int, int, float | None, float | None, float | None]]:
    """(sweep id, GPUs, TPOT at the axis statistic, output tok/s, total tok/s) of the points of
    the matching sweeps that no other matching point beats on both axes, by point id.

    The database finds them in one ordered pass (the most tok/s per GPU of every point with
    more tok/s per user so far), so only the frontier comes back, not every point of 10,000
    sweeps; at most `limit` rows. x = 1000 / TPOT and y = tok/s on `basis` / GPUs, as the chart.
    """
    tpot = getattr(Point, tpot_column)
    x = 1000.0 / tpot
    deployment = {
        "output": Point.output_tok_s,
        "total": Point.total_tok_s,
        "input": Point.total_tok_s - Point.output_tok_s,
    }[basis]
    y = deployment / Sweep.num_gpus
    # What the domain leaves off the chart: no TPOT, no throughput, infinities, no GPUs.
    measured = [tpot > 0, tpot < FINITE, deployment.is_not(None), Sweep.num_gpus > 0]
    measured += [Point.output_tok_s < FINITE, func.coalesce(Point.total_tok_s, 0) < FINITE]
    if basis == "input":
        measured.append(Point.total_tok_s >= Point.output_tok_s)
    best_before = func.max(y).over(order_by=[x.desc(), y.desc(), Point.id], rows=(None, -1))
    ranked = where(
        select(
            Point.id,
            Point.sweep_id,
            Sweep.num_gpus,
            tpot.label("tpot"),
            Point.output_tok_s,
            Point.total_tok_s,
            y.label("y"),
            best_before.label("best_before"),
        )
        .join(Sweep, Sweep.id == Point.sweep_id)
        .where(*measured),
        filters,
    ).subquery()
    front = (
        select(ranked.c.sweep_id, ranked.c.num_gpus, ranked.c.tpot)
        .add_columns(ranked.c.output_tok_s, ranked.c.total_tok_s)
        .where(or_(ranked.c.best_before.is_(None), ranked.c.y > ranked.c.best_before))
        .order_by(ranked.c.id)
        .limit(limit)
    )
    return [(r[0], r[1], r[2], r[3], r[4]) for r in session.execute(front).all()]
