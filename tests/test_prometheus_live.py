"""A real Prometheus (Debian's package) scrapes a small exporter replaying the synthetic stream;
the live pull, computed by the server with increase() and histogram_quantile(), matches the
offline snapshots of the same stream, and an unreachable server is a clear error."""

from __future__ import annotations

import math
import os
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from app.domain.prom_text import parse_exposition
from app.domain.prom_window import windows
from app.ingest.prometheus import PullError, pull
from tests.prom_stream import make_stream
from tests.prometheus_server import (
    EXPORTER_PORT,
    PROMETHEUS,
    PROMETHEUS_PORT,
    SCRAPE_S,
    launch,
    take_early,
)

GRID_S = 0.25  # the exporter's state changes only on this grid (wall seconds)
SPEED = 150.0  # stream seconds per wall second
WINDOW_S = 1.5
STREAM = make_stream(n=3000, duration_s=900)


class Replay:
    """The stream as /metrics at wall time t: its state at the last grid time, sped up."""

    def __init__(self) -> None:
        self.t0 = time.time()

    def stream_time(self, wall_s: float) -> float:
        return math.floor((wall_s - self.t0) / GRID_S) * GRID_S * SPEED

    def text(self, wall_s: float, scraped_at: float | None = None) -> str:
        return STREAM.exposition(self.stream_time(wall_s), scraped_at=scraped_at)


@pytest.fixture
def live_prometheus(tmp_path: Path) -> Iterator[tuple[str, Replay]]:
    if not Path(PROMETHEUS).exists():
        if os.environ.get("CI") or os.environ.get("PARETOSCOPE_REQUIRE_PROMETHEUS") == "1":
            pytest.fail("prometheus is not installed (apt-get install prometheus)")
        pytest.skip("prometheus is not installed")
    replay = Replay()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = replay.text(time.time()).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    exporter = ThreadingHTTPServer(("127.0.0.1", EXPORTER_PORT), Handler)
    threading.Thread(target=exporter.serve_forever, daemon=True).start()
    # Started with the session (tests/prometheus_server.py) when the session runs this test.
    server = take_early() or launch(tmp_path)
    url = f"http://127.0.0.1:{PROMETHEUS_PORT}"
    try:
        probe = f"{url}/api/v1/query?query=vllm:num_requests_running"
        for _ in range(150):  # ready and scraping: a sample is stored
            try:
                with urllib.request.urlopen(probe, timeout=1) as answer:
                    if b'"value"' in answer.read():
                        break
            except OSError:
                pass
            time.sleep(0.1)
        replay.t0 = time.time()  # the stream starts now that Prometheus scrapes it
        yield url, replay
    finally:
        server.terminate()
        server.wait(timeout=10)
        exporter.shutdown()
        exporter.server_close()


@pytest.mark.serial
def test_a_live_pull_matches_the_offline_snapshots(live_prometheus: tuple[str, Replay]) -> None:
    url, replay = live_prometheus
    # Window edges sit mid-grid, so the last sample before an edge holds the edge's state;
    # the first starts once the stream has run a while (its counters are past zero).
    start = replay.t0 + 2 * GRID_S + GRID_S / 2
    count = 2
    end = start + count * WINDOW_S
    time.sleep(max(0.0, end + 2 * SCRAPE_S - time.time()))
    got = pull(url, {"model_name": "m"}, start, end, num_gpus=2, window_s=WINDOW_S, timeout_s=20)
    assert got.windows.engine == "vllm" and not got.windows.refused
    assert len(got.windows.points) == count
    for live in got.windows.points:
        edges = [
            parse_exposition(replay.text(t), scraped_at_s=t) for t in (live.start_s, live.end_s)
        ]
        (offline,) = windows(edges, num_gpus=2, window_s=WINDOW_S).points
        # increase() extrapolates the sampled span to the window's edges: up to 2 scrape
        # intervals' share of the window.
        bound = WINDOW_S / (WINDOW_S - 2 * SCRAPE_S) + 1e-9
        for live_value, true in ((live.requests, offline.requests),
                                 (live.output_tokens, offline.output_tokens)):  # fmt: skip
            assert true <= live_value <= true * bound
        # Counts from increase() are estimates, and the report says so; the mean is
        # increase(_sum) ÷ the count, both extrapolated alike.
        assert live.extrapolated and not offline.extrapolated
        for measure in ("ttft", "tpot", "e2el"):
            live_mean, offline_mean = live.mean(measure)[0], offline.mean(measure)[0]
            assert live_mean == pytest.approx(offline_mean, rel=1e-6), measure
            for q in (0.5, 0.9):
                here, there = live.percentile(measure, q), offline.percentile(measure, q)
                assert here.bucket_ms == there.bucket_ms, (measure, q)
                # PromQL's histogram_quantile over the same increases: our rule, exactly.
                promql = got.promql_percentiles[live.end_s][measure][q]
                assert promql == pytest.approx(here.value_ms, rel=1e-9)
    with pytest.raises(PullError, match="no vLLM or SGLang series"):
        pull(url, {"model_name": "x"}, start, end, num_gpus=1, window_s=WINDOW_S, timeout_s=5)


def test_an_unreachable_prometheus_is_a_clear_error() -> None:
    with pytest.raises(PullError, match="unreachable"):
        pull("http://127.0.0.1:9199", {}, 0, 300, num_gpus=1, window_s=300, timeout_s=2)
    with pytest.raises(PullError, match="not an http"):
        pull("file:///etc/passwd", {}, 0, 300, num_gpus=1, window_s=300, timeout_s=2)
