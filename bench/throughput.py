"""Explore under concurrent readers: a real `paretoscope serve` with one worker, 20 sweeps × 32
points, 16 clients asking for Explore back to back; the baseline is /healthz at the same
concurrency on the same server. Judged twice (issue 14): at least 50 req/s, and at least 1/20 of
the /healthz throughput.

The same URL asked again is what a team looking at one dashboard does, and the server keeps a
sweep's read-off per SLO; so the same figures are also measured with a different TTFT limit on
every request (nothing kept applies), the server's work from scratch, judged against the same
targets."""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

import httpx

from bench.common import (
    Backend,
    Result,
    Scale,
    fresh_database,
    synthetic_sweeps_csv,
    unknown,
    upload,
)
from bench.server import running_server

MIN_REQ_S = 50.0
MIN_SHARE_OF_HEALTHZ = 1 / 20


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    results: list[Result] = []
    clients = scale.throughput_clients
    label = f"Explore, {scale.explore_sweeps} sweeps × {scale.points_per_sweep} points"
    for backend in found:
        if backend.url is None:
            results.append(unknown(f"{label}, req/s", backend, "req/s", "/healthz", 0.05))
            continue
        url = fresh_database(backend, "throughput")
        with running_server(url, workers=1) as server, httpx.Client(base_url=server.url) as c:
            csv = synthetic_sweeps_csv(scale.explore_sweeps, scale.points_per_sweep, seed=5)
            ids = upload(c, csv)
            params: dict[str, Any] = {"sweep": ids, "ttft_ms": 300, "tpot_ms": 30, "picked": 1}
            explore = str(c.build_request("GET", "/", params=params).url)
            healthz = f"{server.url}/healthz"
            explore_rate = requests_per_s(explore, clients, scale.throughput_seconds)
            fresh_rate = requests_per_s(
                explore.replace("ttft_ms=300", "ttft_ms={limit}"), clients, scale.throughput_seconds
            )
            healthz_rate = requests_per_s(healthz, clients, scale.throughput_seconds)
        for how, rate in (("", explore_rate), (", a new SLO each request", fresh_rate)):
            results += [
                Result(
                    f"{label}{how}, {clients} clients, 1 worker",
                    backend.name,
                    rate,
                    "req/s",
                    f"/healthz, {clients} clients",
                    healthz_rate,
                    MIN_REQ_S,
                    at_least=True,
                    judged="value",
                ),
                Result(
                    f"{label}{how}, share of /healthz throughput",
                    backend.name,
                    rate,
                    "req/s",
                    f"/healthz, {clients} clients",
                    healthz_rate,
                    MIN_SHARE_OF_HEALTHZ,
                    at_least=True,
                ),
            ]
    return results


def requests_per_s(url: str, clients: int, seconds: float) -> float:
    """Completed 200 responses per second with `clients` clients each asking back to back (gzip
    accepted, as a browser would), after one warm-up request each. A `{limit}` in the URL becomes
    a TTFT limit no request has asked for before (300 ms and a fraction)."""
    done = [0] * clients
    asked = itertools.count(1)

    def next_url() -> str:
        return url.format(limit=f"{300 + next(asked) / 1000:.3f}") if "{limit}" in url else url

    failures: list[str] = []
    start = threading.Barrier(clients + 1)
    stop = threading.Event()

    def client(k: int) -> None:
        with httpx.Client(timeout=30, headers={"Accept-Encoding": "gzip"}) as http:
            _get(http, next_url(), failures)
            start.wait()
            while not stop.is_set():
                if _get(http, next_url(), failures):
                    done[k] += 1

    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    began = time.perf_counter()
    time.sleep(seconds)
    counted = sum(done)  # requests finished inside the window
    elapsed = time.perf_counter() - began
    stop.set()
    for t in threads:
        t.join(timeout=60)
    if failures:
        raise RuntimeError(f"{url}: {len(failures)} failed requests, e.g. {failures[0]}")
    return counted / elapsed


def _get(http: Any, url: str, failures: list[str]) -> bool:
    response = http.get(url)
    if response.status_code != 200:
        failures.append(f"HTTP {response.status_code}")
        return False
    return True
