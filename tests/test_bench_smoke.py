"""Every bench module runs end to end at tiny sizes, so `make bench` cannot rot unnoticed.

Tiny sizes say nothing about speed: these tests check that each figure is measured, has its
baseline and renders in the one table, not that targets are met.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import polars as pl
import pytest
from sqlalchemy.engine import make_url

from bench import __main__ as bench_main
from bench import explore, wall_client
from bench.common import SMOKE, Result, backends, fresh_database, synthetic_sweeps_csv

PG_URL = os.environ.get("PARETOSCOPE_TEST_DATABASE_URL")


def _check_bench_results(results: list[Result]) -> None:
    assert results
    for r in results:
        assert r.value is not None and r.value >= 0, r
        assert r.baseline is not None and r.baseline > 0, r
        assert r.verdict in {"ok", "MISSED", "info"}, r
    lines = bench_main.table(results).splitlines()
    assert lines[0].split()[:3] == ["figure", "db", "value"]
    assert len(lines) == len(results) + 2


@pytest.mark.slow  # most modules start a real server or two: 2-7 s each
@pytest.mark.parametrize("name", list(bench_main.MODULES))
def test_each_bench_module_measures_every_figure_on_sqlite(name: str) -> None:
    with backends(None) as found:
        assert [b.name for b in found] == ["SQLite"]
        _check_bench_results(bench_main.MODULES[name].run(SMOKE, found))


@pytest.mark.slow  # a bench module on a scratch database of its own
@pytest.mark.skipif(not PG_URL, reason="PARETOSCOPE_TEST_DATABASE_URL is not set")
def test_a_bench_runs_on_a_scratch_postgres_database_and_drops_it() -> None:
    assert PG_URL
    admin = make_url(PG_URL).set(database="postgres").render_as_string(hide_password=False)
    with backends(admin) as found:
        postgres = [b for b in found if b.name == "Postgres"]
        assert postgres and postgres[0].url and f"bench_{os.getpid()}" in postgres[0].url
        # The picker's: one server (the read-off's restarts its server between rounds).
        results = bench_main.MODULES["picker"].run(SMOKE, postgres)
        _check_bench_results(results)
        assert {r.backend for r in results} == {"Postgres"}
    import sqlalchemy as sa

    engine = sa.create_engine(admin)
    with engine.connect() as conn:
        names = conn.execute(sa.text("SELECT datname FROM pg_database")).scalars().all()
    engine.dispose()
    assert f"bench_{os.getpid()}" not in names


def test_an_unreachable_postgres_makes_its_rows_unknown_not_failed() -> None:
    unreachable = "postgresql+psycopg://postgres@127.0.0.1:1/postgres"
    with backends(unreachable) as found:
        postgres = [b for b in found if b.name == "Postgres"]
        [row] = bench_main.MODULES["readoff"].run(SMOKE, postgres)
    assert (row.verdict, row.value) == ("unknown", None)
    assert row.reason and "no Postgres" in row.reason


@pytest.mark.serial  # two real servers, judged on ratios of wall times
def test_the_explore_page_cache_figure_is_met_with_the_cache_and_five_times_worse_without_it() -> (
    None
):
    # Without the page cache (and gzip at level 9 on every request) a page costs a whole render,
    # about 2x the read-off beside it: too close to the 2x target to miss it every time on a
    # loaded machine (CI saw 1.92x once). With the cache it is ~0.1x. So the test asserts what
    # the figure must show whatever the load: met with the cache, and far worse without it.
    without = {
        "PARETOSCOPE_GZIP_LEVEL": "9",
        "PARETOSCOPE_PAGE_CACHE_MB": "0",
        "PARETOSCOPE_HOVERS_INLINE_MAX_POINTS": "100000",
    }
    ratios: dict[str, float] = {}
    verdicts: dict[str, str] = {}
    with backends(None) as found:
        for name, env in (("with", {}), ("without", without)):
            with explore.serving(fresh_database(found[0], f"cache_{name}"), env) as bench:
                ids = bench.upload(synthetic_sweeps_csv(10, 512, seed=3))
                result, _, page = explore.cache_figure(
                    bench, ids, {}, "10 sweeps × 512 points", "SQLite", 3
                )
            assert (page.encoding, page.status) == ("gzip", 200)
            assert page.wire_bytes < len(page.body) // 2  # read compressed, and decoded
            assert result.ratio is not None
            ratios[name], verdicts[name] = result.ratio, result.verdict
    assert verdicts["with"] == "ok", ratios
    assert ratios["without"] >= 5 * ratios["with"], ratios


def test_a_floor_on_the_value_meets_a_row_whose_ratio_misses() -> None:
    def row(rate: float, healthz: float) -> Result:
        return Result("Explore", "SQLite", rate, "req/s", "/healthz", healthz, 1 / 20,
                      at_least=True, or_value_at_least=50.0)  # fmt: skip

    assert [row(60, 2000).verdict, row(40, 400).verdict, row(40, 1000).verdict] == [
        "ok",
        "ok",
        "MISSED",
    ]
    assert "≥ 0.05× or ≥ 50 req/s" in bench_main.table([row(40, 1000)])


def test_the_wall_clock_client_decodes_what_it_accepts_and_refuses_any_other_encoding() -> None:
    body = b"<html>" + b"x" * 5000
    assert wall_client.decode(gzip.compress(body, 4), "gzip") == body
    assert wall_client.decode(zlib.compress(body), "deflate") == body
    assert wall_client.decode(body, "identity") == body
    with pytest.raises(ValueError, match="zstd"):
        wall_client.decode(body, "zstd")
    assert wall_client.BROWSER_HEADERS["Accept-Encoding"] == "gzip, deflate, br"


def test_the_sessions_bench_file_has_its_shape_and_its_baseline_counts_what_the_app_counts(
    tmp_path: Path,
) -> None:
    from app.domain.point import Metric
    from app.domain.sessions import session_attainment
    from bench import sessions as bench_sessions

    _, requests = bench_sessions.write_sessions(tmp_path, 2_000, "shape")
    frame = pl.read_csv(requests)
    # 100 sessions of 20 turns; the first session of each of the 4 loads lacks its turn 0.
    assert frame.height == 2_000 - 4
    assert frame["session_id"].n_unique() == 100
    assert sorted(frame["turn_index"].unique().to_list()) == list(range(20))
    assert frame["ok"].null_count() == 0 and not frame["ok"].all()
    # The baseline's group-by (run as the bench runs it) against the app's own rule.
    out = subprocess.run(
        [sys.executable, "-c", bench_sessions.GROUP_BY.replace(
            'print(json.dumps({"s": time.perf_counter() - start, "rows": table.height}))',
            "print(table.sort('concurrency').write_json())",
        ), str(requests), str(requests)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    theirs = {r["concurrency"]: (r["count"], r["good"]) for r in json.loads(out.stdout)}
    samples = frame.rename({"concurrency": "point_id"}).with_columns(
        pl.col("session_id").cast(pl.String)
    )
    limits: list[tuple[Metric, float]] = [("ttft", bench_sessions.TTFT_LIMIT_MS)]
    ours = {k: (s.count, s.good) for k, s in session_attainment(samples, limits).items()}
    assert theirs == ours
    assert all(count == 24 for count, _ in ours.values())  # 25 sessions per load, 1 cut


@pytest.mark.slow  # a real server
def test_the_sessions_bench_checks_all_1_996_samples_are_stored_and_fails_a_run_that_stores_none(
    tmp_path: Path,
) -> None:
    from bench import sessions as bench_sessions
    from bench.server import running_server

    files = bench_sessions.write_sessions(tmp_path, 2_000, "stored")
    rows = bench_sessions.file_rows(files[1])
    assert rows == 1_996
    with backends(None) as found:
        url = fresh_database(found[0], "stored")
        with running_server(url, keep_log=False) as server:
            _, sweep_id = bench_sessions.stored_check(server, url, files, rows)
            assert bench_sessions.stored_samples(url, sweep_id) == 1_996
            # The same file again is found by its hash (200, nothing stored): not a figure.
            with pytest.raises(AssertionError, match="answered 200, not 201"):
                bench_sessions.stored_check(server, url, files, rows)
            # A file whose rows are not all stored is not a figure either.
            other = bench_sessions.write_sessions(tmp_path / "other", 2_000, "other")
            with pytest.raises(
                AssertionError, match="1,996 request samples stored of the file's 1,997 rows"
            ):
                bench_sessions.stored_check(server, url, other, rows + 1)
