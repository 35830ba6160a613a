"""`paretoscope production`: a scrape pair in, windows and efficiency printed, exit 1 below
--min-efficiency (for cron or CI), 2 on bad input with nothing stored."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.store.models import Deployment, ProductionWindow
from tests.factories import count, to_csv
from tests.prom_stream import make_stream
from tests.web.test_production_api import FRONTIER_ROWS, ORIGIN

STREAM = make_stream(n=1200, duration_s=600)


def scrape_pair(tmp_path: Path) -> list[Path]:
    paths = []
    for t in (0, 300):
        path = tmp_path / f"metrics-{t}.prom"
        path.write_text(STREAM.exposition(t, scraped_at=ORIGIN + t))
        paths.append(path)
    return paths


def test_a_scrape_pair_prints_its_window_and_exits_by_efficiency(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str], session: Session
) -> None:
    bench = tmp_path / "bench.csv"
    bench.write_bytes(to_csv(FRONTIER_ROWS))
    assert cli("import", bench) == 0
    capsys.readouterr()
    pair = scrape_pair(tmp_path)
    common = ("--num-gpus", 4, "--sweep", "bench", "--tpot-ms", 50, "--attainment", 0.5)
    mine = STREAM.finished(0, 300)
    per_gpu = STREAM.output_len[mine].sum() / 300 / 4
    # TPOT p50 lies in the 25–50 ms bucket: x in [20, 40), where the staircase frontier reads
    # 2000 to 500 tok/s/GPU; efficiency is that interval, never one interpolated value.
    lowest, efficiency = per_gpu / 2000.0, per_gpu / 500.0
    assert cli("production", *pair, *common, "--min-efficiency", efficiency + 0.01) == 1
    out = capsys.readouterr().out
    assert "frontier: sweep 1 (bench)" in out
    assert f"{lowest * 100:.1f}…{efficiency * 100:.1f} %" in out
    assert "pass" in out and "[efficiency below" in out
    # A floor inside the interval: maybe below, flagged, but not surely below: exit 0.
    assert cli("production", *pair, *common, "--min-efficiency", efficiency - 0.01) == 0
    assert "efficiency may be below" in capsys.readouterr().out
    assert cli("production", *pair, *common, "--format", "json", "--store", "chat") == 0
    assert count(session, ProductionWindow) == 1 and count(session, Deployment) == 1


def test_bad_scrapes_exit_2_naming_the_reason_and_store_nothing(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str], session: Session
) -> None:
    first, _ = scrape_pair(tmp_path)
    assert cli("production", first, "--store", "chat") == 2
    assert "two scrapes" in capsys.readouterr().err
    assert cli("production", first, first, "--times", "1,2,3") == 2
    assert "3 scrape times for 2 files" in capsys.readouterr().err
    assert cli("production", *scrape_pair(tmp_path), "--sweep", "nope") == 2
    assert "--sweep: no sweep has the id, tag or name 'nope'" in capsys.readouterr().err
    down = ("--prometheus-url", "http://127.0.0.1:9199", "--start", "0", "--end", "600")
    assert cli("production", *down) == 2
    assert "Prometheus at http://127.0.0.1:9199 is unreachable" in capsys.readouterr().err
    assert count(session, Deployment) == 0
