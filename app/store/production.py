"""Deployments and their production windows: stored as counter and bucket increases, read back
as domain WindowPoints so any percentile or SLO is computed from the same buckets."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.domain.prom_cache import CacheCounts
from app.domain.prom_histogram import Histogram
from app.domain.prom_names import HISTOGRAMS, Measure
from app.domain.prom_window import WindowPoint
from app.store.models import Deployment, ProductionWindow, Sweep
from app.store.sweeps import NotFound

DEPLOYMENT_FIELDS = ("model", "hardware", "num_gpus", "engine", "engine_version")


@dataclass(frozen=True)
class Provenance:
    source: str  # snapshots | range | live
    selector: str  # PromQL matchers, "" for none


@dataclass(frozen=True)
class StoredWindow:
    id: int
    source: str
    selector: str
    point: WindowPoint


def find_deployment(session: Session, name: str) -> Deployment | None:
    return session.scalars(select(Deployment).where(Deployment.name == name)).first()


def get_deployment(session: Session, deployment_id: int) -> Deployment:
    found = session.get(Deployment, deployment_id)
    if found is None:
        raise NotFound(f"deployment {deployment_id} not found")
    return found


def list_deployments(session: Session) -> list[tuple[Deployment, int]]:
    counts = (
        select(ProductionWindow.deployment_id, func.count().label("n"))
        .group_by(ProductionWindow.deployment_id)
        .subquery()
    )
    rows = session.execute(
        select(Deployment, func.coalesce(counts.c.n, 0))
        .outerjoin(counts, counts.c.deployment_id == Deployment.id)
        .order_by(Deployment.name)
    ).all()
    return [(d, int(n)) for d, n in rows]


def add_deployment(session: Session, name: str, fields: dict[str, Any]) -> Deployment:
    deployment = Deployment(name=name, **{k: fields.get(k) for k in DEPLOYMENT_FIELDS})
    session.add(deployment)
    session.flush()
    return deployment


def _histograms_json(point: WindowPoint) -> dict[str, Any]:
    return {
        measure: {
            "name": point.names[measure],
            "bounds_ms": list(hist.bounds_ms[:-1]),  # the last is +Inf, which JSON cannot hold
            "counts": list(hist.counts),
            "sum_ms": hist.sum_ms,  # the exact mean's numerator; null: no _sum series
        }
        for measure, hist in point.histograms.items()
    }


def stored_spans(session: Session, deployment_id: int) -> set[tuple[float, float]]:
    rows = session.execute(
        select(ProductionWindow.start_s, ProductionWindow.end_s).where(
            ProductionWindow.deployment_id == deployment_id
        )
    )
    return {(float(a), float(b)) for a, b in rows}


def add_windows(
    session: Session, deployment_id: int, points: Sequence[WindowPoint], provenance: Provenance
) -> None:
    session.add_all(
        ProductionWindow(
            deployment_id=deployment_id,
            start_s=p.start_s,
            end_s=p.end_s,
            source=provenance.source,
            selector=provenance.selector,
            requests=p.requests,
            output_tokens=p.output_tokens,
            prompt_tokens=p.prompt_tokens,
            cached_tokens=None if p.cache is None else p.cache.cached_tokens,
            queried_tokens=None if p.cache is None else p.cache.queried_tokens,
            num_gpus=p.num_gpus,
            concurrency=p.concurrency,
            histograms=_histograms_json(p),
            notes=list(p.notes),
        )
        for p in points
    )
    session.flush()


def _point(row: ProductionWindow) -> WindowPoint:
    hists: dict[Measure, Histogram] = {}
    names: dict[Measure, str] = {}
    for measure in HISTOGRAMS:
        stored = row.histograms.get(measure)
        if stored:
            bounds = (*(float(b) for b in stored["bounds_ms"]), math.inf)
            total = stored.get("sum_ms")  # windows stored before it was kept have none
            hists[measure] = Histogram(
                bounds,
                tuple(float(c) for c in stored["counts"]),
                None if total is None else float(total),
            )
            names[measure] = str(stored["name"])
    return WindowPoint(
        start_s=row.start_s,
        end_s=row.end_s,
        requests=row.requests,
        output_tokens=row.output_tokens,
        prompt_tokens=row.prompt_tokens,
        num_gpus=row.num_gpus,
        concurrency=row.concurrency,
        concurrency_reason=None if row.concurrency is not None else "no running-requests gauge",
        histograms=hists,
        names=names,
        notes=tuple(str(n) for n in row.notes),
        extrapolated=row.source == "live",
        cache=None
        if row.cached_tokens is None or row.queried_tokens is None
        else CacheCounts(row.cached_tokens, row.queried_tokens),
    )


def windows_of(session: Session, deployment_id: int, limit: int = 10_000) -> list[StoredWindow]:
    """The deployment's windows in time order (at most `limit`, the newest)."""
    rows = session.scalars(
        select(ProductionWindow)
        .where(ProductionWindow.deployment_id == deployment_id)
        .order_by(ProductionWindow.start_s.desc())
        .limit(limit)
    ).all()
    return [StoredWindow(r.id, r.source, r.selector, _point(r)) for r in reversed(rows)]


def matching_sweep(session: Session, deployment: Deployment) -> int | None:
    """The newest sweep of the deployment's model on its hardware (and GPU count when known):
    the benchmark of the matching configuration."""
    if not deployment.model or not deployment.hardware:
        return None
    query = select(Sweep.id).where(
        func.lower(Sweep.model) == deployment.model.lower(),
        func.lower(Sweep.hardware) == deployment.hardware.lower(),
    )
    if deployment.num_gpus:
        query = query.where(Sweep.num_gpus == deployment.num_gpus)
    return session.scalars(query.order_by(Sweep.created_at.desc(), Sweep.id.desc())).first()
