"""Shared benchmark plumbing: a judged result row, scales, databases and synthetic data.

Every verdict is a ratio to a baseline measured in the same run on the same machine, except
where the issue sets an absolute figure (first-load weight), which says so in its row.
"""

from __future__ import annotations

import functools
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx
from fastapi.testclient import TestClient

from app.main import create_app, tune_gc
from app.settings import Settings
from app.store.migrate import upgrade_to_head

# The server `make bench` creates its scratch database on (never the `test` database).
POSTGRES_ADMIN_URL = os.environ.get(
    "PARETOSCOPE_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


@dataclass(frozen=True)
class Result:
    figure: str
    backend: str  # SQLite | Postgres | "" when no database is involved
    value: float | None  # None: not measured (see reason)
    unit: str
    baseline_name: str
    baseline: float | None
    target: float  # on the ratio, unless judged == "value"
    at_least: bool = False  # the target is a floor, not a ceiling
    judged: Literal["ratio", "value", "none"] = "ratio"
    reason: str | None = None
    # Also met when the value itself reaches this floor (issue 34's "≥ 50 req/s OR ≥ 1/20 of
    # /healthz"): the ratio is judged against `target`, the value against this.
    or_value_at_least: float | None = None

    @property
    def ratio(self) -> float | None:
        if self.value is None or not self.baseline:
            return None
        return self.value / self.baseline

    @property
    def verdict(self) -> str:
        if self.judged == "none":
            return "info"
        judged = self.ratio if self.judged == "ratio" else self.value
        if judged is None:
            return "unknown"
        ok = judged >= self.target if self.at_least else judged <= self.target
        if self.or_value_at_least is not None and self.value is not None:
            ok = ok or self.value >= self.or_value_at_least
        return "ok" if ok else "MISSED"


@dataclass(frozen=True)
class Scale:
    """Sizes of one run: FULL for `make bench`, SMOKE for the tests (seconds)."""

    sweeps: tuple[int, ...] = (10, 100, 1000)
    points: tuple[int, ...] = (32, 256, 2048)
    explore_sweeps: int = 20
    samples_per_point: int = 20
    points_per_sweep: int = 32
    requests: int = 2_000_000
    request_points: int = 20
    canonical_points: int = 100_000
    repeat: int = 7
    throughput_seconds: float = 10  # per measured URL, at `throughput_clients` clients
    throughput_clients: int = 16
    # The team-scale bench (bench/scale.py): stored sweeps at each measured size, and generated
    # request samples per sweep (10,000 × 10,000 = 100M at the largest size).
    scale_sweeps: tuple[int, ...] = (1_000, 10_000)
    scale_samples_per_sweep: int = 10_000
    scale_backends: tuple[str, ...] = ("Postgres",)
    # The gate's calibration (bench/calibration.py): simulated pairs per rate measured.
    calibration_pairs: int = 200
    # Multi-turn files (bench/sessions.py): requests of 20-turn sessions at each measured size.
    session_requests: tuple[int, ...] = (100_000, 1_000_000)


FULL = Scale()
SMOKE = Scale(
    sweeps=(2, 4),
    points=(4, 8),
    explore_sweeps=2,
    samples_per_point=3,
    points_per_sweep=4,
    requests=3000,
    request_points=3,
    canonical_points=300,
    repeat=1,
    throughput_seconds=0.25,  # the rates say nothing at this size: the harness runs
    throughput_clients=2,
    scale_sweeps=(3, 6),
    scale_samples_per_sweep=64,
    scale_backends=("SQLite", "Postgres"),
    calibration_pairs=2,
    session_requests=(2_000,),
)


@dataclass(frozen=True)
class Backend:
    name: str  # SQLite | Postgres
    url: str | None  # None: unavailable (reason says why)
    reason: str | None = None


@contextmanager
def backends(postgres_admin_url: str | None = POSTGRES_ADMIN_URL) -> Iterator[list[Backend]]:
    """A fresh SQLite file and a scratch Postgres database bench_<pid>, dropped afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="paretoscope-bench-"))
    found = [Backend("SQLite", f"sqlite:///{folder / 'bench.db'}")]
    scratch = f"bench_{os.getpid()}"
    pg_url = None
    if postgres_admin_url:
        try:
            pg_url = _create_database(postgres_admin_url, scratch)
            found.append(Backend("Postgres", pg_url))
        except Exception as exc:  # no server: the Postgres rows are unknown, not failed
            found.append(Backend("Postgres", None, f"no Postgres: {type(exc).__name__}"))
    try:
        yield found
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if pg_url and postgres_admin_url:
            _drop_database(postgres_admin_url, scratch)


def fresh_database(backend: Backend, label: str) -> str:
    """A new empty, migrated database of this backend for one bench (own SQLite file; a
    Postgres schema reset in the scratch database)."""
    assert backend.url is not None
    if backend.name == "SQLite":
        # Inside the run's own folder, which `backends` removes at the end.
        parent = Path(backend.url.removeprefix("sqlite:///")).parent
        folder = Path(tempfile.mkdtemp(prefix=f"paretoscope-{label}-", dir=parent))
        url = f"sqlite:///{folder / 'bench.db'}"
    else:
        import sqlalchemy as sa

        url = backend.url
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.execute(sa.text("DROP SCHEMA public CASCADE"))
            conn.execute(sa.text("CREATE SCHEMA public"))
        engine.dispose()
    upgrade_to_head(url)
    return url


def _create_database(admin_url: str, name: str) -> str:
    import sqlalchemy as sa

    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return str(sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False))


def _drop_database(admin_url: str, name: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


def unknown(figure: str, backend: Backend, unit: str, baseline: str, target: float) -> Result:
    return Result(figure, backend.name, None, unit, baseline, None, target, reason=backend.reason)


def client_for(url: str) -> TestClient:
    """The app in this process, with the garbage collection `paretoscope serve` sets up."""
    tune_gc()
    client = TestClient(
        create_app(
            Settings(database_url=url, seed_on_start=False, allowed_hosts=["testserver"]),
            migrate=False,
        )
    )
    client.__enter__()
    return client


def seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


@functools.cache
def _concurrencies(n_points: int) -> tuple[str, ...]:
    """Whole concurrencies from 1 to about 512, spaced geometrically and strictly rising (a
    fractional concurrency is refused as impossible)."""
    out: list[int] = []
    for p in range(n_points):
        wanted = round(2 ** (p * 9 / max(1, n_points - 1)))
        out.append(max(wanted, out[-1] + 1) if out else wanted)
    return tuple(str(c) for c in out)


def whole_concurrency(p: int, n_points: int) -> str:
    """The concurrency of point `p` of `n_points` synthetic ones (see `_concurrencies`)."""
    return _concurrencies(n_points)[p]


_conc = whole_concurrency


def synthetic_sweeps_csv(n_sweeps: int, n_points: int, seed: int = 7, first: int = 0) -> bytes:
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
            conc = float(_conc(p, n_points))
            tpot = base_tpot * (1 + conc / 64)
            ttft = 80 * (1 + conc / 32)
            out = peak * conc / (conc + 32)
            lines.append(
                f"bench-{first + s},H100,8,llama-3.1-70b,1024,1024,{_conc(p, n_points)},60,"
                f"{ttft:.3f},"
                f"{ttft * 1.4:.3f},{ttft * 2:.3f},{tpot:.3f},{tpot * 1.2:.3f},{tpot * 1.5:.3f},"
                f"{ttft * 1.4 + 1023 * tpot * 1.2:.3f},{out:.3f},{out * 2:.3f},{out / 1024:.4f}"
            )
    return ("\n".join(lines) + "\n").encode()


def synthetic_requests_csv(
    n_sweeps: int, n_points: int, per_point: int, seed: int = 9, first: int = 0
) -> bytes:
    """Per-request rows for synthetic_sweeps_csv (same `first`): TTFT and TPOT spread around
    each point's."""
    rng = random.Random(seed)
    lines = ["sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok"]
    for s in range(n_sweeps):
        for p in range(n_points):
            conc = _conc(p, n_points)
            for i in range(per_point):
                if i % 37 == 36:
                    lines.append(f"bench-{first + s},{conc},,,,1024,false")
                    continue
                ttft = rng.uniform(60, 80 * (1 + float(conc) / 16))
                n = rng.randint(16, 1024)
                e2el = ttft + (n - 1) * rng.uniform(8, 20 * (1 + float(conc) / 64))
                lines.append(f"bench-{first + s},{conc},{ttft:.3f},{e2el:.3f},{n},1024,true")
    return ("\n".join(lines) + "\n").encode()


def upload(
    client: httpx.Client | TestClient, points: bytes, requests: bytes | None = None
) -> list[int]:
    # TestClient is no httpx.Client once httpx2 is installed (the mcp SDK brings it): Starlette
    # then builds it on httpx2.
    files = [("files", ("points.csv", points, "text/csv"))]
    if requests is not None:
        files.append(("files", ("requests.csv", requests, "text/csv")))
    response = client.post("/api/sweeps", files=files)
    assert response.status_code in (200, 201), response.text[:500]
    return [int(s["id"]) for s in response.json()["sweeps"]]
