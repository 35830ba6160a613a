"""Shared benchmark plumbing: a result row, a timer, and a seeded temporary database."""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.store.migrate import upgrade_to_head


@dataclass(frozen=True)
class Result:
    name: str
    value: float
    unit: str
    target: float
    baseline_name: str
    baseline: float

    @property
    def ok(self) -> bool:
        return self.value <= self.target

    @property
    def ratio(self) -> float:
        return self.value / self.baseline if self.baseline else float("inf")


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def median_server_ms(request: Callable[[], Any], repeat: int) -> float:
    """Median of the app's own Server-Timing (no HTTP client time)."""
    request()  # warm-up
    times = []
    for _ in range(repeat):
        header = request().headers["server-timing"]
        times.append(float(header.split("dur=")[1]))
    return statistics.median(times)


def client_with_db() -> TestClient:
    """A client on a fresh, migrated SQLite file in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="paretoscope-bench-"))
    url = f"sqlite:///{folder / 'bench.db'}"
    upgrade_to_head(url)
    client = TestClient(create_app(Settings(database_url=url, seed_on_start=False), migrate=False))
    client.__enter__()
    return client


def synthetic_sweeps_csv(n_sweeps: int, n_points: int, seed: int = 7) -> bytes:
    """Plausible sweeps: throughput rising and TPOT growing with concurrency, all percentiles."""
    rng = random.Random(seed)
    header = [
        "sweep",
        "hardware",
        "num_gpus",
        "model",
        "isl",
        "osl",
        "concurrency",
        "duration_s",
        "ttft_p50_ms",
        "ttft_p90_ms",
        "ttft_p99_ms",
        "tpot_p50_ms",
        "tpot_p90_ms",
        "tpot_p99_ms",
        "e2el_p90_ms",
        "output_tok_s",
        "total_tok_s",
        "requests_per_s",
    ]
    lines = [",".join(header)]
    for s in range(n_sweeps):
        base_tpot = rng.uniform(8, 20)
        peak = rng.uniform(4000, 40000)
        for p in range(n_points):
            conc = 2 ** (p * 9 / max(1, n_points - 1))
            tpot = base_tpot * (1 + conc / 64)
            ttft = 80 * (1 + conc / 32)
            out = peak * conc / (conc + 32)
            lines.append(
                f"bench-{s},H100,8,llama-3.1-70b,1024,1024,{conc:.3f},60,{ttft:.3f},"
                f"{ttft * 1.4:.3f},{ttft * 2:.3f},{tpot:.3f},{tpot * 1.2:.3f},{tpot * 1.5:.3f},"
                f"{ttft * 1.4 + 1023 * tpot * 1.2:.3f},{out:.3f},{out * 2:.3f},{out / 1024:.4f}"
            )
    return ("\n".join(lines) + "\n").encode()
