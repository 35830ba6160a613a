"""A few seconds of the load figure (`make bench`), so its harness and guarantees cannot rot:
no 5xx, no client timeout, every 201 stored exactly once, nothing stored without a 201."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager

import pytest

from bench import load

PG_URL = os.environ.get("PARETOSCOPE_TEST_DATABASE_URL")


def _scratch(backend: str) -> AbstractContextManager[str]:
    if backend == "sqlite":
        return load.scratch_sqlite()
    assert PG_URL
    return load.scratch_postgres(PG_URL)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def scratch_url(request: pytest.FixtureRequest) -> Iterator[str]:
    with _scratch(request.param) as url:
        yield url


@pytest.mark.serial  # a client timeout is one of its checks: a core of its own
def test_concurrent_uploads_and_reads_get_no_5xx_and_store_every_201_exactly_once(
    scratch_url: str,
) -> None:
    report = load.run_load(scratch_url, "smoke", workers=1, uploaders=3, readers=6, seconds=3)
    detail = "\n".join(report.lines())
    assert report.uploads > 0 and report.reads > 0, detail
    assert report.server_errors == 0, detail
    assert report.timeouts == 0, detail
    assert report.other_errors == [], detail
    assert report.created, detail  # some uploads were new
    assert report.stored_twice == [], detail
    assert report.missing == [], detail
    assert report.unannounced == [], detail


def test_the_report_fails_a_run_with_a_server_error() -> None:
    report = load.LoadReport(label="x", seconds=1, reads=1, read_seconds=[0.1])
    assert report.ok
    report.server_errors = 1
    assert not report.ok
    assert "FAIL" in report.lines()[0]


@pytest.mark.serial  # a client timeout is one of its checks: a core of its own
def test_more_clients_than_threads_and_connections_do_not_stall_the_server() -> None:
    """Two threads and four pooled connections per worker against ten clients: requests queue
    for a session on the event loop instead of holding a connection while waiting for a thread."""
    with load.scratch_sqlite() as url:
        report = load.run_load(
            url, "tiny pool", workers=1, uploaders=2, readers=8, seconds=3,
            env={"PARETOSCOPE_THREADS": "2"},
        )  # fmt: skip
    detail = "\n".join(report.lines())
    assert report.timeouts == 0, detail
    assert report.server_errors == 0, detail
    assert report.reads > 20, detail


def test_the_load_verdicts_join_the_one_bench_table_and_miss_on_any_problem() -> None:
    from bench import __main__ as bench_main

    report = load.LoadReport(label="postgres, 2 workers, 60 s", seconds=60, reads=3)
    report.read_seconds = [0.1, 0.2, 2.5]
    report.missing = ["sweep-7"]
    p99, problems = report.results()
    assert (p99.figure, p99.backend, p99.value) == (
        "load, 2 workers, 60 s: read p99",
        "Postgres",
        2500,
    )
    assert (p99.verdict, problems.value, problems.verdict) == ("MISSED", 1, "MISSED")
    report.read_seconds, report.missing = [0.1], []
    assert [r.verdict for r in report.results()] == ["ok", "ok"]
    rows = bench_main.table(report.results()).splitlines()[2:]
    assert [row.split()[-1] for row in rows] == ["ok", "ok"]
    assert "≤ 2000 ms" in rows[0] and "0 problems" in rows[1]


def test_a_database_the_load_figure_could_not_run_on_is_unknown_not_failed() -> None:
    row = load.not_measured("Postgres", "no Postgres server answered")
    assert (row.verdict, row.value, row.reason) == ("unknown", None, "no Postgres server answered")
