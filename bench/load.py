"""The load figure: uploaders and readers at once against a real `paretoscope serve` on loopback.

Each configuration (SQLite or Postgres, one worker or two) gets a fresh, seeded database. Every
uploader posts new sweeps (and, every fourth time, content another uploader may be posting too);
every reader cycles through Explore, the sweep list, a sweep and a read-off. Afterwards the
database is read directly: every upload answered 201 must be stored exactly once, and no sweep
may be stored that no 201 announced.

Targets: zero 5xx, zero client timeouts (10 s), read p99 under 2 s, and the two storage checks.
"""

from __future__ import annotations

import asyncio
import os
import random
import tempfile
import time
import uuid
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.store.migrate import upgrade_to_head
from bench.common import POSTGRES_ADMIN_URL, Result, whole_concurrency
from bench.load_client import Connection, Response, TransportError, run_apart
from bench.server import running_server

CLIENT_TIMEOUT_S = 10.0
READ_P99_TARGET_S = 2.0
SHARED_EVERY = 4  # every fourth upload of an uploader is content other uploaders post too
POINTS_PER_SWEEP = 24
# What a browser asks for: the server compresses its pages (the client keeps them compressed).
BROWSER_HEADERS = {"Accept-Encoding": "gzip"}


@dataclass
class LoadReport:
    label: str
    seconds: float
    uploads: int = 0
    reads: int = 0
    server_errors: int = 0
    timeouts: int = 0
    other_errors: list[str] = field(default_factory=list)
    read_seconds: list[float] = field(default_factory=list)
    read_seconds_by_page: dict[str, list[float]] = field(default_factory=dict)
    upload_seconds: list[float] = field(default_factory=list)
    created: dict[str, int] = field(default_factory=dict)  # sweep name -> id, from each 201
    answered: set[str] = field(default_factory=set)  # names in any 200/201 answer
    stored_twice: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # answered 201, not stored
    unannounced: list[str] = field(default_factory=list)  # stored, no 201 said so
    client_lag_seconds: list[float] = field(default_factory=list)  # see _loop_lag

    @property
    def read_p99_s(self) -> float:
        return _percentile(self.read_seconds, 0.99)

    @property
    def ok(self) -> bool:
        return (
            self.server_errors == 0
            and self.timeouts == 0
            and self.read_p99_s < READ_P99_TARGET_S
            and not (self.stored_twice or self.missing or self.unannounced)
            and not self.other_errors  # dropped connections, unexpected 4xx
        )

    def lines(self) -> list[str]:
        verdict = "PASS" if self.ok else "FAIL"
        up = self.upload_seconds
        return [
            f"load {self.label}: {verdict}",
            f"  {self.uploads} uploads, {self.reads} reads in {self.seconds:.0f} s "
            f"({(self.uploads + self.reads) / self.seconds:.1f} req/s)",
            f"  5xx: {self.server_errors} (target 0)   client timeouts at "
            f"{CLIENT_TIMEOUT_S:g} s: {self.timeouts} (target 0)",
            f"  read p50 {_percentile(self.read_seconds, 0.5) * 1000:.0f} ms, "
            f"p99 {self.read_p99_s * 1000:.0f} ms (target < {READ_P99_TARGET_S * 1000:.0f} ms); "
            f"upload p50 {_percentile(up, 0.5) * 1000:.0f} ms, "
            f"p99 {_percentile(up, 0.99) * 1000:.0f} ms",
            f"  201s: {len(self.created)}; stored twice: {len(self.stored_twice)}; "
            f"201 but not stored: {len(self.missing)}; stored without a 201: "
            f"{len(self.unannounced)}",
            "  read p99 by page: "
            + ", ".join(
                f"{page} {_percentile(times, 0.99) * 1000:.0f} ms"
                for page, times in sorted(self.read_seconds_by_page.items())
            ),
            f"  the client's own event loop, late to wake by: p50 "
            f"{_percentile(self.client_lag_seconds, 0.5) * 1000:.0f} ms, p99 "
            f"{_percentile(self.client_lag_seconds, 0.99) * 1000:.0f} ms",
            *(f"  other: {e}" for e in self.other_errors[:5]),
        ]

    def results(self) -> list[Result]:
        """The report as rows of the one `make bench` table (absolute targets: the hardening
        issue sets them so, with no baseline)."""
        backend, setup = self.label.split(", ", 1)
        name = {"sqlite": "SQLite", "postgres": "Postgres"}.get(backend, backend)
        problems = self.server_errors + self.timeouts + len(self.other_errors)
        problems += len(self.stored_twice) + len(self.missing) + len(self.unannounced)
        return [
            Result(f"load, {setup}: read p99", name, self.read_p99_s * 1000, "ms", "", None,
                   READ_P99_TARGET_S * 1000, judged="value"),
            Result(f"load, {setup}: 5xx, timeouts, lost or doubled stores", name,
                   float(problems), "problems", "", None, 0.0, judged="value"),
        ]  # fmt: skip


def not_measured(backend: str, why: str) -> Result:
    """The load figure's row for a database it could not run on: unknown, not failed."""
    return Result("load figure", backend, None, "ms", "", None, READ_P99_TARGET_S * 1000,
                  judged="value", reason=why)  # fmt: skip


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def sweep_csv(name: str, seed: int) -> bytes:
    rng = random.Random(seed)
    lines = ["sweep,hardware,num_gpus,model,concurrency,ttft_p90_ms,tpot_p50_ms,output_tok_s"]
    peak = rng.uniform(4000, 40000)
    tpot = rng.uniform(8, 20)
    for p in range(POINTS_PER_SWEEP):
        conc = float(whole_concurrency(p, POINTS_PER_SWEEP))
        out = peak * conc / (conc + 32)
        lines.append(
            f"{name},H100,8,llama-3.1-70b,{conc:g},{80 * (1 + conc / 32):.3f},"
            f"{tpot * (1 + conc / 64):.3f},{out:.3f}"
        )
    return ("\n".join(lines) + "\n").encode()


async def _uploader(
    base_url: str, index: int, run: str, deadline: float, report: LoadReport
) -> None:
    http = Connection(base_url, CLIENT_TIMEOUT_S)
    n = 0
    try:
        while time.monotonic() < deadline:
            n += 1
            if n % SHARED_EVERY == 0:
                name = f"load-{run}-shared-{n // SHARED_EVERY}"
                body = sweep_csv(name, seed=n)
            else:
                name = f"load-{run}-u{index}-{n}"
                body = sweep_csv(name, seed=index * 1_000_000 + n)
            upload = http.post_file("/api/sweeps", "files", f"{name}.csv", body, "text/csv")
            answer = await _timed(upload, f"upload {name}", report)
            if answer is None:
                continue
            response, elapsed = answer
            report.upload_seconds.append(elapsed)
            report.uploads += 1
            if response.status_code >= 500:
                report.server_errors += 1
            elif response.status_code in (200, 201):
                for sweep in response.json()["sweeps"]:
                    report.answered.add(sweep["name"])
                    if sweep["created"]:
                        if sweep["name"] in report.created:
                            report.stored_twice.append(sweep["name"])  # created by two 201s
                        report.created[sweep["name"]] = sweep["id"]
            else:
                report.other_errors.append(f"upload {name}: {response.status_code}")
    finally:
        await http.close()


async def _reader(
    base_url: str, index: int, ids: list[int], deadline: float, report: LoadReport
) -> None:
    http = Connection(base_url, CLIENT_TIMEOUT_S)
    rng = random.Random(index)
    paths = [
        "/",
        "/api/sweeps",
        "/sweeps",
        *(f"/api/sweeps/{i}" for i in ids[:4]),
        *(f"/api/readoff?sweep={a}&sweep={b}" for a, b in zip(ids, ids[1:], strict=False)),
    ]
    try:
        while time.monotonic() < deadline:
            path = rng.choice(paths)
            answer = await _timed(http.get(path, BROWSER_HEADERS), f"GET {path}", report)
            if answer is None:
                continue
            response, elapsed = answer
            report.read_seconds.append(elapsed)
            page = path.split("?")[0].rstrip("0123456789")
            report.read_seconds_by_page.setdefault(page, []).append(elapsed)
            report.reads += 1
            if response.status_code >= 500:
                report.server_errors += 1
            elif response.status_code != 200:
                report.other_errors.append(f"GET {path}: {response.status_code}")
    finally:
        await http.close()


async def _timed(
    request: Awaitable[Response], what: str, report: LoadReport
) -> tuple[Response, float] | None:
    """The response and how long it took, or None once a timeout or a dropped connection is
    counted."""
    start = time.monotonic()
    try:
        response = await request
    except TimeoutError:
        report.timeouts += 1
        return None
    except TransportError as exc:
        report.other_errors.append(f"{what}: {exc}")
        return None
    return response, time.monotonic() - start


async def _drive(
    url: str, uploaders: int, readers: int, seconds: float, report: LoadReport
) -> None:
    first = Connection(url, CLIENT_TIMEOUT_S)
    listing = (await first.get("/api/sweeps?per_page=20")).json()
    await first.close()
    ids = [s["id"] for s in listing["sweeps"]] or [1]
    run = uuid.uuid4().hex[:8]
    deadline = time.monotonic() + seconds
    lag = asyncio.create_task(_loop_lag(deadline, report))
    await asyncio.gather(
        *(_uploader(url, i, run, deadline, report) for i in range(uploaders)),
        *(_reader(url, i, ids, deadline, report) for i in range(readers)),
    )
    await lag


async def _loop_lag(deadline: float, report: LoadReport) -> None:
    """How late the client's own event loop wakes a 10 ms sleep: a measure of the instrument.
    When it is busy, the latencies it reports include its own queueing, not only the server's."""
    while time.monotonic() < deadline:
        start = time.monotonic()
        await asyncio.sleep(0.01)
        report.client_lag_seconds.append(time.monotonic() - start - 0.01)


def _check_storage(database_url: str, report: LoadReport) -> None:
    engine = create_engine(database_url)
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT name, count(*) FROM sweep WHERE name LIKE 'load-%' GROUP BY name")
        ).all()
    engine.dispose()
    stored = {str(row[0]): int(row[1]) for row in rows}
    report.stored_twice += [name for name, n in stored.items() if n > 1]
    report.missing = sorted(set(report.created) - set(stored))
    report.unannounced = sorted(set(stored) - set(report.created))


def run_load(
    database_url: str,
    label: str,
    *,
    workers: int,
    uploaders: int = 8,
    readers: int = 32,
    seconds: float = 60,
    env: dict[str, str] | None = None,
) -> LoadReport:
    """Migrate and seed `database_url` (empty), serve it, load it, then check what was stored."""
    upgrade_to_head(database_url)
    report = LoadReport(label=label, seconds=seconds)
    env = {"PARETOSCOPE_SEED_ON_START": "true", **(env or {})}
    with running_server(database_url, workers=workers, env=env) as server:
        run_apart(_drive(server.url, uploaders, readers, seconds, report))
    _check_storage(database_url, report)
    return report


@contextmanager
def scratch_sqlite() -> Iterator[str]:
    folder = Path(tempfile.mkdtemp(prefix="paretoscope-load-"))
    yield f"sqlite:///{folder / 'load.db'}"


def postgres_admin_url() -> str | None:
    """The server to make scratch databases on: as set, else the one every other bench uses
    (bench.common.POSTGRES_ADMIN_URL) when it answers."""
    chosen = os.environ.get("PARETOSCOPE_BENCH_DATABASE_URL") or os.environ.get(
        "PARETOSCOPE_TEST_DATABASE_URL"
    )
    if chosen:
        return chosen
    engine = create_engine(POSTGRES_ADMIN_URL)
    try:
        with engine.connect():
            return POSTGRES_ADMIN_URL
    except Exception:  # no server: the Postgres load figure is skipped, as said
        return None
    finally:
        engine.dispose()


@contextmanager
def scratch_postgres(admin_url: str) -> Iterator[str]:
    """A database of our own on that server, dropped afterwards (never the admin URL's own)."""
    name = f"paretoscope_load_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def run(seconds: float = 60, uploaders: int = 8, readers: int = 32) -> list[LoadReport]:
    """Every configuration: SQLite and Postgres (when an admin URL is set), 1 and 2 workers."""
    reports = []
    admin = postgres_admin_url()
    for backend in ("sqlite", "postgres"):
        if backend == "postgres" and not admin:
            print("load postgres: skipped (no server; set PARETOSCOPE_BENCH_DATABASE_URL)")
            continue
        for workers in (1, 2):
            scratch = scratch_sqlite() if backend == "sqlite" else scratch_postgres(admin or "")
            with scratch as url:
                label = f"{backend}, {workers} worker{'s' if workers > 1 else ''}, "
                label += f"{uploaders} uploaders x {readers} readers, {seconds:g} s"
                report = run_load(
                    url, label, workers=workers, uploaders=uploaders, readers=readers,
                    seconds=seconds,
                )  # fmt: skip
            print("\n".join(report.lines()), flush=True)
            reports.append(report)
    return reports
