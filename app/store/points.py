"""Points and request samples of several sweeps, loaded in one query each for the analysis."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import polars as pl
from cachetools import LRUCache
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.sweep_meta import SWEEP_META_FIELDS, SweepMeta
from app.store import point_blocks, point_front
from app.store import samples as sample_store
from app.store.db import already_loaded
from app.store.models import PointBlock, Sweep
from app.store.sweeps import NotFound

SWEEP_META = SWEEP_META_FIELDS
CACHE_SWEEPS = 1024


@dataclass
class SweepPoints:
    meta: SweepMeta
    rows: list[dict[str, Any]]  # canonical point columns plus point_id
    derived: dict[Any, Any] = field(default_factory=dict)  # per-process memo of derived values


Key = tuple[str, int, str]  # database, sweep id, content hash


class _PointCache:
    """Points never change after upload (only sweep metadata does), so rows are cached per
    (database, sweep id, content hash) in each process; a re-used id has another hash."""

    def __init__(self, size: int) -> None:
        self.size = size
        # Each sweep's rows with its memo of derived values: the memo goes when the rows do.
        self._sweeps: LRUCache[Key, tuple[list[dict[str, Any]], dict[Any, Any]]] = LRUCache(size)
        self._lock = threading.Lock()  # an LRUCache reorders itself on every read

    def get(self, key: Key) -> tuple[list[dict[str, Any]], dict[Any, Any]] | None:
        with self._lock:
            return self._sweeps.get(key)

    def put(self, key: Key, rows: list[dict[str, Any]]) -> dict[Any, Any]:
        with self._lock:
            kept = self._sweeps.get(key)
            derived = {} if kept is None else kept[1]
            self._sweeps[key] = (rows, derived)
            return derived

    def clear(self) -> None:
        with self._lock:
            self._sweeps.clear()


_cache = _PointCache(CACHE_SWEEPS)


def sweeps_with_points(session: Session, sweep_ids: list[int]) -> list[SweepPoints]:
    """The sweeps in the order asked, each with its points in stored order; unknown ids raise."""
    if not sweep_ids:
        return []
    # Explore's picker loads the selected sweeps just before: their metadata is not asked again.
    loaded = already_loaded(session, Sweep, sweep_ids, SWEEP_META)
    metas = {i: SweepMeta(*(getattr(s, c) for c in SWEEP_META)) for i, s in loaded.items()}
    if len(metas) < len(set(sweep_ids)):
        meta_rows = session.execute(
            select(*(getattr(Sweep, c) for c in SWEEP_META)).where(Sweep.id.in_(sweep_ids))
        ).all()
        metas = {r[0]: SweepMeta(*r) for r in meta_rows}
    missing = [i for i in sweep_ids if i not in metas]
    if missing:
        raise NotFound(f"sweep {missing[0]} does not exist")
    ordered = list(dict.fromkeys(sweep_ids))
    database = str(session.get_bind().engine.url)
    cached = {i: _cache.get((database, i, metas[i].content_hash)) for i in ordered}
    fetched = _fetch_rows(session, [i for i, hit in cached.items() if hit is None])
    out = []
    for i in ordered:
        key = (database, i, metas[i].content_hash)
        hit = cached[i]
        if hit is None:
            rows = fetched.get(i, [])
            hit = (rows, _cache.put(key, rows))
        out.append(SweepPoints(metas[i], hit[0], hit[1]))
    return out


def _fetch_rows(session: Session, sweep_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    if not sweep_ids:
        return {}
    by_sweep: dict[int, list[dict[str, Any]]] = {i: [] for i in sweep_ids}
    found = select(PointBlock.sweep_id, PointBlock.data).where(PointBlock.sweep_id.in_(sweep_ids))
    for sweep_id, data in session.execute(found):
        by_sweep[sweep_id] = point_blocks.rows(sweep_id, data)
    return by_sweep


def samples_frame(session: Session, point_ids: list[int], warmup: bool = False) -> pl.DataFrame:
    """Request samples of these points as a typed frame (empty when there are none): the
    profiled ones, the warm-up ones too with `warmup`."""
    return sample_store.samples_frame(session, point_ids, warmup)


def samples_by_point(
    session: Session, point_ids: list[int], warmup: bool = False
) -> dict[int, pl.DataFrame]:
    """Request samples by point: frames of (ttft_ms, e2el_ms, output_len, input_len, ok, …);
    with `warmup` the warm-up requests too (an export)."""
    frame = samples_frame(session, point_ids, warmup)
    if frame.is_empty():
        return {}
    parts = frame.partition_by("point_id", as_dict=True, maintain_order=True)
    return {int(key[0]): part.drop("point_id") for key, part in parts.items()}


def sweeps_samples(session: Session, sweeps: list[SweepPoints]) -> dict[int, pl.DataFrame]:
    """Request samples of each sweep by sweep id; decoded once per process (cached by content
    hash, as points are), so repeated per-request read-offs do not touch the database again."""
    wanted = {
        s.meta.id: (
            s.meta.content_hash,
            [(int(r["point_id"]), int(r["position"])) for r in s.rows],
        )
        for s in sweeps
    }
    return sample_store.by_sweep(session, wanted)


def sweep_ids_matching(session: Session, filters: dict[str, Any], limit: int) -> list[int]:
    """Ids of sweeps whose metadata equals every given filter value, newest first."""
    query = select(Sweep.id)
    for name, value in filters.items():
        if value not in (None, ""):
            query = query.where(getattr(Sweep, name) == value)
    return list(session.scalars(query.order_by(Sweep.id).limit(limit)).all())


def clear_caches() -> None:
    """Forget every cached point row and decoded sample (as a restart would; for benchmarks)."""
    _cache.clear()
    sample_store.cache.clear()
    point_front.kept.clear()
