"""Explore against /api/readoff of the same selection: 20 sweeps × 2,048 points (percentile
mode, sensitivity on as by default), and 20 sweeps × 32 points in per-request mode.

Judged warm with a new SLO on every request (cached points and samples, but nothing the server
keeps per SLO applies: both sides judge every point) and cold (the first request after the
process forgets its cached points, samples and pages). The same SLO asked again is shown too,
unjudged: /api/readoff then reads its kept figures and the page is the one kept for its address
(app.web.page_cache), so that ratio compares two answers from memory."""

from __future__ import annotations

import itertools
from typing import Any

from bench.common import (
    Backend,
    Result,
    Scale,
    client_for,
    fresh_database,
    median_cold_ms,
    median_server_ms,
    synthetic_requests_csv,
    synthetic_sweeps_csv,
    unknown,
    upload,
)

SLO = {"ttft_ms": 300, "tpot_ms": 30}
TARGET = 4.0  # Explore ≤ 4× /api/readoff of the same selection (issue 14)


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    results: list[Result] = []
    for backend in found:
        if backend.url is None:
            results.append(unknown("Explore vs /api/readoff", backend, "ms", "readoff", TARGET))
            continue
        url = fresh_database(backend, "explore")
        client = client_for(url)
        big = max(scale.points)
        sweeps = scale.explore_sweeps
        ids = upload(client, synthetic_sweeps_csv(sweeps, big, seed=3))
        results.extend(_pair(client, backend, ids, {}, f"{sweeps} sweeps × {big} points", scale))
        small = scale.points_per_sweep
        ids = upload(
            client,
            synthetic_sweeps_csv(sweeps, small, seed=4),
            synthetic_requests_csv(sweeps, small, scale.samples_per_point, seed=4),
        )
        label = f"{sweeps} sweeps × {small} points, per-request"
        results.extend(_pair(client, backend, ids, {"mode": "requests"}, label, scale))
        client.__exit__(None, None, None)
    return results


def _pair(
    client: Any, backend: Backend, ids: list[int], extra: dict[str, str], label: str, scale: Scale
) -> list[Result]:
    params = {"sweep": ids, **SLO, **extra}
    asked = itertools.count(1)

    def slo(new: bool) -> dict[str, Any]:
        return {"ttft_ms": SLO["ttft_ms"] + next(asked) / 1000} if new else {}

    def explore(new: bool = False) -> Any:
        response = client.get("/", params={**params, **slo(new), "picked": 1})
        assert response.status_code == 200
        return response

    def readoff(new: bool = False) -> Any:
        response = client.get("/api/readoff", params={**params, **slo(new)})
        assert response.status_code == 200
        return response

    cold_explore = median_cold_ms(explore, scale.repeat)
    cold_readoff = median_cold_ms(readoff, scale.repeat)
    size_kb = len(explore().content) / 1024
    return [
        Result(
            f"Explore, {label}, a new SLO each request",
            backend.name,
            median_server_ms(lambda: explore(new=True), scale.repeat),
            "ms",
            "/api/readoff, same selection and new SLOs",
            median_server_ms(lambda: readoff(new=True), scale.repeat),
            TARGET,
        ),
        Result(
            f"Explore, {label}, the same SLO again",
            backend.name,
            median_server_ms(explore, scale.repeat),
            "ms",
            "/api/readoff, same selection, kept figures",
            median_server_ms(readoff, scale.repeat),
            0.0,
            judged="none",
        ),
        Result(
            f"Explore, {label}, cold",
            backend.name,
            cold_explore,
            "ms",
            "/api/readoff, same selection, cold",
            cold_readoff,
            TARGET,
        ),
        Result(
            f"Explore HTML, {label}",
            backend.name,
            size_kb,
            "KB",
            "readoff JSON",
            len(readoff().content) / 1024,
            0.0,
            judged="none",
        ),
    ]
