"""/api/readoff (percentile mode) over 20 sweeps of 32, 256 and 2,048 points: growth per 8×
points, warm and cold (cold = the first request for those sweeps after a restart, once a tiny
other selection has run the read-off's code; warm = the same request right after it), each the
median of `repeat` samples taken in rounds. Wall time at an HTTP client (bench.wall_client)."""

from __future__ import annotations

import statistics

from bench.common import Backend, Result, Scale, fresh_database, synthetic_sweeps_csv, unknown
from bench.served import serving

SLO = {"ttft_ms": 300, "tpot_ms": 30}
GROWTH_PER_10X = 13.0  # the issue's bound for sweeps, scaled to the step (1.3× linear)


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    results: list[Result] = []
    for backend in found:
        if backend.url is None:
            results.append(unknown("read-off growth over points", backend, "ms", "—", 13.0))
            continue
        url = fresh_database(backend, "points")
        taken: dict[tuple[str, int], list[float]] = {}
        with serving(url) as served:
            selections = {
                n: served.upload(synthetic_sweeps_csv(scale.explore_sweeps, n, seed=100 + seed))
                for seed, n in enumerate(scale.points)
            }
            warm_up = served.upload(synthetic_sweeps_csv(2, 4, seed=5, first=90_000))

            def readoff(ids: list[int]) -> float:
                return served.get_json("/api/readoff", {"sweep": ids, **SLO}).ms

            # Rounds, each taking a cold and then a warm sample at every size, so drift on a
            # shared machine reaches both sides of each growth ratio alike (bench/readoff.py).
            for _ in range(max(1, scale.repeat)):
                served.start()  # a restart: nothing kept
                readoff(warm_up)  # the process's first run of the read-off's code
                for n, ids in selections.items():
                    taken.setdefault(("cold", n), []).append(readoff(ids))
                    taken.setdefault(("warm", n), []).append(readoff(ids))
        cold = {n: statistics.median(taken["cold", n]) for n in selections}
        warm = {n: statistics.median(taken["warm", n]) for n in selections}
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
