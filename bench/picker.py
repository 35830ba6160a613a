"""The series picker at scale: Explore, the picker's search and the frontier leaders with
10,000 stored sweeps (8 points each), against the same page with a handful of sweeps.

Wall times at a browser-like client (bench.wall_client: a new connection per request, gzip
accepted, the body decoded) against a real `paretoscope serve` (one worker) on each database,
medians of `repeat` requests after one warm-up."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable
from typing import Any

import polars as pl
from sqlalchemy import insert

from app.store import point_blocks
from app.store.db import make_engine, make_sessionmaker
from app.store.models import PointBlock, Sweep
from bench.common import Backend, Result, Scale, fresh_database, unknown
from bench.server import running_server
from bench.wall_client import ACCEPT_JSON, Fetched, fetch

MODELS = ("llama-3.1-70b", "llama-3.1-8b", "qwen3-32b", "mistral-7b", "deepseek-r1")
GPUS = ("H100", "H200", "B200", "MI300X")
POINTS = 8
SMALL = 20
# Explore with 10,000 stored sweeps ≤ 5× Explore with 20 (same selection): listing every sweep
# would be ~50× the HTML; what does grow is the picker's count and the filters' DISTINCT scans.
PAGE_TARGET = 5.0
SEARCH_TARGET_MS = 300.0
LEADERS_TARGET_MS = 2000.0


def sweep_rows(n: int, first: int = 1) -> list[dict[str, Any]]:
    """Sweeps first..n's metadata (those ids, filled in order from a fresh database), spread
    over models and GPUs."""
    return [
        {
            "name": f"bulk-{i:05d}",
            "hardware": GPUS[i % len(GPUS)],
            "num_gpus": 8,
            "model": MODELS[i % len(MODELS)],
            "engine": "vllm" if i % 2 else "sglang",
            "source_kind": "measured",
            "content_hash": f"bulk-{i}",
        }
        for i in range(first, n + 1)
    ]


def fill(url: str, n: int, first: int = 1) -> None:
    """Sweeps first..n of POINTS points in two bulk INSERTs (uploading 10,000 files is another
    bench); a server running on `url` sees them on its next request (the sweeps' triggers)."""
    engine = make_engine(url)
    with make_sessionmaker(engine)() as session:
        session.execute(insert(Sweep), sweep_rows(n, first))
        frame = pl.DataFrame(
            [
                {
                    "sweep_id": i,
                    "position": k,
                    "extra": "{}",
                    "concurrency": float(2**k),
                    "tpot_p50_ms": 8 + 4 * k + (i % 97) / 10,
                    "output_tok_s": (300 + i % 113) * (2**k) ** 0.8,
                }
                for i in range(first, n + 1)
                for k in range(POINTS)
            ]
        )
        blocks = point_blocks.encode_frame(frame)
        session.execute(
            insert(PointBlock), [{"sweep_id": s, "points": n, "data": d} for s, n, d in blocks]
        )
        session.commit()
    engine.dispose()


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    many = max(scale.sweeps) * 10  # 10,000 at full size
    results: list[Result] = []
    for backend in found:
        if backend.url is None:
            results.append(unknown("Explore, picker", backend, "ms", "20 sweeps", PAGE_TARGET))
            continue
        small, big = _measure(backend, many, scale)
        label = f"{many:,} stored sweeps"
        results += [
            Result(
                f"Explore with the picker, {label}",
                backend.name,
                big["page"],
                "ms",
                f"same page, {SMALL} stored sweeps",
                small["page"],
                PAGE_TARGET,
            ),
            Result(
                f"Picker search (htmx list), {label}",
                backend.name,
                big["search"],
                "ms",
                f"same search, {SMALL} stored sweeps",
                small["search"],
                SEARCH_TARGET_MS,
                judged="value",
            ),
            Result(
                f"Frontier leaders, {label} × {POINTS} points",
                backend.name,
                big["leaders"],
                "ms",
                f"same, {SMALL} stored sweeps",
                small["leaders"],
                LEADERS_TARGET_MS,
                judged="value",
            ),
            Result(
                f"Explore HTML, {label}",
                backend.name,
                big["kb"],
                "KB",
                f"{SMALL} stored sweeps",
                small["kb"],
                0.0,
                judged="none",
            ),
        ]
    return results


def _median_ms(request: Callable[[], Fetched], repeat: int) -> float:
    request()  # warm-up
    return statistics.median(request().ms for _ in range(max(1, repeat)))


def _measure(backend: Backend, many: int, scale: Scale) -> tuple[dict[str, float], ...]:
    """The figures with SMALL stored sweeps, then with `many`: one database and one server,
    the rest of the sweeps inserted between the two while it runs."""
    url = fresh_database(backend, "picker")
    fill(url, SMALL)
    selection = {"picked": 1, "preset": "custom", "tpot_ms": 30, "sweep": [1, 2]}
    htmx = {"HX-Request": "true"}
    asked = itertools.count(1)
    out: list[dict[str, float]] = []
    with running_server(url, workers=1, keep_log=False) as server:

        def get(path: str, params: dict[str, Any], **how: Any) -> Fetched:
            got = fetch(server.url, path, params, **how)
            assert got.status == 200, got.body[:300]
            return got

        def page() -> Fetched:  # a new SLO each time: the page is drawn, not answered as kept
            return get("/", {**selection, "tpot_ms": 30 + next(asked) / 1000})

        search = {**selection, "q": "qwen3 h100"}
        leaders = {"picked": 1, "select": "leaders"}
        for n in (SMALL, many):
            if n != SMALL:
                fill(url, n, first=SMALL + 1)
            out.append(
                {
                    "page": _median_ms(page, scale.repeat),
                    "search": _median_ms(
                        lambda: get("/explore/picker", search, headers=htmx), scale.repeat
                    ),
                    "leaders": _median_ms(
                        lambda: get("/api/explore", leaders, accept=ACCEPT_JSON), scale.repeat
                    ),
                    "kb": len(get("/", selection).body) / 1024,
                }
            )
    return tuple(out)
