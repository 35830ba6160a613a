"""A team's scale: thousands of stored sweeps with generated request samples (100M at 10,000
sweeps × 10,000 requests), on Postgres. At each size the same pages are measured — the sweep list,
a search, Explore with its default selection, and a per-request read-off of 20 sweeps cold
(first after a restart) and warm — and each is judged by its growth: the figure at the larger size
against the same figure at the smaller one, measured in this run.

Measured as a browser's user waits (issue 34): wall time at bench.wall_client (a new connection
per request, gzip accepted, the body decoded) against a real `paretoscope serve` (one worker)
started on the database once it holds each size. Cold is the first request after the server's
start (a restart per round).

Points go in through the upload API (500 sweeps a file); samples are generated with polars and
written as the importer writes them (one columnar block per sweep), since a 100M-row CSV would
measure the generator, not the server.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
from sqlalchemy import select

from app.store import samples as sample_store
from app.store.db import make_engine, make_sessionmaker
from app.store.models import PointBlock
from bench.common import (
    Backend,
    Result,
    Scale,
    client_for,
    fresh_database,
    synthetic_sweeps_csv,
    upload,
)
from bench.server import running_server
from bench.wall_client import ACCEPT_JSON, Fetched, fetch

POINTS = 32
BATCH = 500
# Bounded pages (a page of the list, Explore's capped selection, 20 sweeps read off) should not
# grow with what is stored; a substring search scans names, so it may grow as the table does.
BOUNDED_GROWTH = 3.0
SEARCH_GROWTH = 10.0
COLD_ROUNDS = 3  # server restarts per size (fewer when the scale's repeat is lower)


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    results: list[Result] = []
    for backend in found:
        if backend.name not in scale.scale_backends or backend.url is None:
            continue
        url = fresh_database(backend, "scale")
        client = client_for(url)
        engine = make_engine(url)
        measured: dict[int, dict[str, float]] = {}
        stored = 0
        for size in scale.scale_sweeps:
            _seed(client, engine, stored, size, scale.scale_samples_per_sweep)
            stored = size
            newest = client.get("/api/sweeps", params={"per_page": 20}).json()["sweeps"]
            measured[size] = _measure(url, [s["id"] for s in newest], size, scale.repeat)
        client.__exit__(None, None, None)
        engine.dispose()
        sizes = list(scale.scale_sweeps)
        for small, big in zip(sizes, sizes[1:], strict=False):
            for figure, value in measured[big].items():
                target = SEARCH_GROWTH if figure.startswith("search") else BOUNDED_GROWTH
                results.append(
                    Result(
                        f"{figure}, {big:,} sweeps ({big * scale.scale_samples_per_sweep:,} "
                        "samples)",
                        backend.name,
                        value,
                        "ms",
                        f"same at {small:,} sweeps",
                        measured[small][figure],
                        target,
                    )
                )
    return results


def _seed(client: Any, engine: Any, first: int, last: int, per_sweep: int) -> None:
    """Sweeps first..last-1 through the upload API, then their generated samples."""
    ids: list[int] = []
    for start in range(first, last, BATCH):
        count = min(BATCH, last - start)
        ids += upload(client, synthetic_sweeps_csv(count, POINTS, seed=start, first=start))
    rng = np.random.default_rng(first)
    session_factory = make_sessionmaker(engine)
    for chunk in range(0, len(ids), 200):
        with session_factory() as session:
            for sweep_id in ids[chunk : chunk + 200]:
                sample_store.write(session, sweep_id, _samples(session, sweep_id, per_sweep, rng))
            session.commit()
    if engine.dialect.name == "postgresql":
        # The planner's statistics, as autovacuum refreshes them within a minute of a bulk load:
        # measured seconds after one, the row counts it plans with are those of a smaller table
        # (a seq scan of a table for 50 sweeps' counts on the list page).
        with engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")


def _samples(
    session: Any, sweep_id: int, per_sweep: int, rng: np.random.Generator
) -> list[tuple[int, pl.DataFrame]]:
    count = session.scalar(select(PointBlock.points).where(PointBlock.sweep_id == sweep_id))
    positions = range(count or 0)
    each = max(1, per_sweep // max(1, len(positions)))
    frames = []
    for position in positions:
        ttft = rng.gamma(4.0, 40.0 * (1 + position / 8), each)
        output = rng.integers(16, 1024, each)
        tpot = rng.gamma(9.0, 1.5 * (1 + position / 16), each)
        frames.append(
            (
                position,
                pl.DataFrame(
                    {
                        "ttft_ms": ttft,
                        "e2el_ms": ttft + tpot * (output - 1),
                        "output_len": output,
                        "input_len": np.full(each, 1024),
                        "ok": rng.random(each) > 0.002,
                    }
                ),
            )
        )
    return frames


def _measure(url: str, twenty: list[int], size: int, repeat: int) -> dict[str, float]:
    """Median wall time of each page at this size on a real server: the cold read-off is the
    first request after each start, the others follow a warm-up request in the last round."""
    readoff = {"sweep": twenty, "ttft_ms": 300, "tpot_ms": 30, "mode": "requests"}
    cold: list[float] = []
    rounds = max(1, min(repeat, COLD_ROUNDS))
    out: dict[str, float] = {}
    for k in range(rounds):
        with running_server(url, workers=1, keep_log=False) as server:
            base = server.url
            cold.append(_ok(fetch(base, "/api/readoff", readoff, accept=ACCEPT_JSON)).ms)
            if k == rounds - 1:
                out = _warm_pages(server.url, readoff, size, repeat)
    out["per-request read-off, 20 sweeps, cold"] = statistics.median(cold)
    return out


def _warm_pages(base: str, readoff: dict[str, Any], size: int, repeat: int) -> dict[str, float]:
    search = {"q": f"bench-{size - 1}"}
    limits = (300 + k / 1000 for k in itertools.count(1))
    pages: dict[str, Callable[[], Fetched]] = {
        "sweep list (page 1)": lambda: fetch(base, "/sweeps"),
        "search (a name, list page)": lambda: fetch(base, "/sweeps", search),
        # A new SLO each time: the page is drawn, not answered as kept (app.web.page_cache).
        "Explore, default selection": lambda: fetch(base, "/", {"ttft_ms": next(limits)}),
        "per-request read-off, 20 sweeps, warm": lambda: fetch(
            base, "/api/readoff", readoff, accept=ACCEPT_JSON
        ),
    }
    return {name: _median_ms(request, repeat) for name, request in pages.items()}


def _median_ms(request: Callable[[], Fetched], repeat: int) -> float:
    _ok(request())  # warm-up
    return statistics.median(_ok(request()).ms for _ in range(max(1, repeat)))


def _ok(response: Fetched) -> Fetched:
    assert response.status == 200, (response.status, response.body[:300])
    return response
