"""The series picker at scale: Explore, the picker's search and the frontier leaders with
10,000 stored sweeps (8 points each), against the same page with a handful of sweeps."""

from __future__ import annotations

import itertools
from typing import Any

import polars as pl
from sqlalchemy import insert

from app.store import point_blocks
from app.store.db import make_engine, make_sessionmaker
from app.store.models import PointBlock, Sweep
from bench.common import (
    Backend,
    Result,
    Scale,
    client_for,
    fresh_database,
    median_server_ms,
    unknown,
)

MODELS = ("llama-3.1-70b", "llama-3.1-8b", "qwen3-32b", "mistral-7b", "deepseek-r1")
GPUS = ("H100", "H200", "B200", "MI300X")
POINTS = 8
SMALL = 20
# Explore with 10,000 stored sweeps ≤ 5× Explore with 20 (same selection): listing every sweep
# would be ~50× the HTML; what does grow is the picker's count and the filters' DISTINCT scans.
PAGE_TARGET = 5.0
SEARCH_TARGET_MS = 300.0
LEADERS_TARGET_MS = 2000.0


def sweep_rows(n: int) -> list[dict[str, Any]]:
    """`n` sweeps' metadata (ids 1..n on a fresh database), spread over models and GPUs."""
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
        for i in range(1, n + 1)
    ]


def fill(url: str, n: int) -> None:
    """`n` sweeps of POINTS points in two bulk INSERTs (uploading 10,000 files is another bench)."""
    engine = make_engine(url)
    with make_sessionmaker(engine)() as session:
        session.execute(insert(Sweep), sweep_rows(n))
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
                for i in range(1, n + 1)
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
        small = _measure(backend, SMALL, scale)
        big = _measure(backend, many, scale)
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


def _measure(backend: Backend, n: int, scale: Scale) -> dict[str, float]:
    url = fresh_database(backend, "picker")
    fill(url, n)
    client = client_for(url)
    selection = {"picked": 1, "preset": "custom", "tpot_ms": 30, "sweep": [1, 2]}

    def get(path: str, **params: Any) -> Any:
        response = client.get(path, params=params, headers={"HX-Request": "true"})
        assert response.status_code == 200, response.text
        return response

    asked = itertools.count(1)

    def page() -> Any:  # a new SLO each time: the page is drawn, not answered as kept
        return client.get("/", params={**selection, "tpot_ms": 30 + next(asked) / 1000})

    out = {
        "page": median_server_ms(page, scale.repeat),
        "search": median_server_ms(
            lambda: get("/explore/picker", **selection, q="qwen3 h100"), scale.repeat
        ),
        "leaders": median_server_ms(
            lambda: get("/api/explore", picked=1, select="leaders"), scale.repeat
        ),
        "kb": len(client.get("/", params=selection).content) / 1024,
    }
    client.__exit__(None, None, None)
    return out
