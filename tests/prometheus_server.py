"""Debian's Prometheus for tests/test_prometheus_live.py, started when the session begins if that
test is among its tests: Prometheus scrapes a new target only after its discovery first hands
the targets over, ~5 s after start (a fixed interval), and the serial pass spends those seconds
on the tests before it instead of waiting. The live test takes the process (take_early) or, run
alone, starts its own (launch)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
EXPORTER_PORT, PROMETHEUS_PORT = 9190, 9191
SCRAPE_S = 0.05
LIVE_TEST = "test_a_live_pull_matches_the_offline_snapshots"

_early: list[subprocess.Popen[bytes]] = []


def launch(folder: Path) -> subprocess.Popen[bytes]:
    """Prometheus scraping the exporter's port every SCRAPE_S, its data in `folder`."""
    config = folder / "prometheus.yml"
    config.write_text(
        f"global:\n  scrape_interval: {int(SCRAPE_S * 1000)}ms\n"
        f"  scrape_timeout: {int(SCRAPE_S * 900)}ms\n"
        "scrape_configs:\n  - job_name: replay\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{EXPORTER_PORT}']\n"
    )
    return subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={config}",
            f"--storage.tsdb.path={folder / 'data'}",
            f"--web.listen-address=127.0.0.1:{PROMETHEUS_PORT}",
            "--log.level=error",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def take_early() -> subprocess.Popen[bytes] | None:
    """The Prometheus the session started, now the caller's to stop; None if there is none
    (or it has exited: its port taken, say)."""
    process = _early.pop() if _early else None
    return process if process is not None and process.poll() is None else None


@pytest.fixture(scope="session", autouse=True)
def prometheus_started_early(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    if Path(PROMETHEUS).exists() and any(
        getattr(item, "originalname", "") == LIVE_TEST for item in request.session.items
    ):
        _early.append(launch(tmp_path_factory.mktemp("prometheus")))
    yield
    while _early:  # the live test did not run (or did not take it)
        process = _early.pop()
        process.terminate()
        process.wait(timeout=10)
