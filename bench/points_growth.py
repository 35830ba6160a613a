"""/api/readoff (percentile mode) over 20 sweeps of 32, 256 and 2,048 points: growth per 8×
points, warm and cold (cold = first request after the process forgets its cached points; warm
= the same request right after it), each the median of `repeat` samples taken in rounds."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from bench.common import (
    Backend,
    Result,
    Scale,
    clear_caches,
    client_for,
    fresh_database,
    server_ms,
    synthetic_sweeps_csv,
    unknown,
    upload,
)

SLO = {"ttft_ms": 300, "tpot_ms": 30}
GROWTH_PER_10X = 13.0  # the issue's bound for sweeps, scaled to the step (1.3× linear)


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    results: list[Result] = []
    for backend in found:
        if backend.url is None:
            results.append(unknown("read-off growth over points", backend, "ms", "—", 13.0))
            continue
        url = fresh_database(backend, "points")
        client = client_for(url)
        readoffs: dict[int, Callable[[], Any]] = {}
        for seed, n in enumerate(scale.points):
            ids = upload(client, synthetic_sweeps_csv(scale.explore_sweeps, n, seed=100 + seed))

            def readoff(ids: list[int] = ids, client: Any = client) -> Any:
                response = client.get("/api/readoff", params={"sweep": ids, **SLO})
                assert response.status_code == 200
                return response

            readoffs[n] = readoff
        # Rounds, each taking a cold and then a warm sample at every size, so drift on a shared
        # machine reaches both sides of each growth ratio alike (see bench/readoff.py).
        taken: dict[tuple[str, int], list[float]] = {}
        for _ in range(max(1, scale.repeat)):
            for n, ask in readoffs.items():
                clear_caches()
                taken.setdefault(("cold", n), []).append(server_ms(ask()))
                taken.setdefault(("warm", n), []).append(server_ms(ask()))
        cold = {n: statistics.median(taken["cold", n]) for n in readoffs}
        warm = {n: statistics.median(taken["warm", n]) for n in readoffs}
        client.__exit__(None, None, None)
        steps = sorted(scale.points)
        for small, large in zip(steps, steps[1:], strict=False):
            for state, table in (("warm", warm), ("cold", cold)):
                results.append(
                    Result(
                        f"read-off growth {scale.explore_sweeps} sweeps × {small}→{large} "
                        f"points, {state}",
                        backend.name,
                        table[large],
                        "ms",
                        f"same at {small} points",
                        table[small],
                        GROWTH_PER_10X * (large / small) / 10,
                    )
                )
    return results
