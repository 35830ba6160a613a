"""Searching stored sweeps: bounded queries for the series picker and its JSON twin.

Every query here has a LIMIT (or counts): with 10,000 stored sweeps the picker lists a page of
matches, never the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, func, or_, select
from sqlalchemy.orm import Session

from app.domain.covariates import SPEC_OFF
from app.store.models import Sweep

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
    # Speculative decoding: "on" (any method), "off" (stated as none), or one method.
    spec_decode: str | None = None
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


def spec_match(wanted: str) -> ColumnElement[bool]:
    """Sweeps whose speculative decoding is `wanted`: "on" is any stated method, "off" a
    sweep that states none (one that does not say is neither), else that method, any case."""
    method = func.lower(func.trim(Sweep.spec_decode))
    if wanted == "off":
        return method.in_(SPEC_OFF)
    if wanted == "on":
        return and_(Sweep.spec_decode.is_not(None), method.not_in(SPEC_OFF), method != "")
    return method == wanted.strip().lower()


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
    if filters.spec_decode:
        query = query.where(spec_match(filters.spec_decode))
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
