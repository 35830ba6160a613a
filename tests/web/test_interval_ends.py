"""Issue 30 §5: an interval end that cannot be given comes with its reason, never a bare null;
repeated runs get a t interval on the log scale (method "t-log"), whose ends stay positive."""

from __future__ import annotations

import math

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.domain.intervals import log_t_interval, ratio_interval
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.oracles import t_interval

T_975_1 = 12.706204736174696  # t(0.975) with one degree of freedom (two runs)
# The real SGLang offline run at 4096/1024 holds two runs at the same load (rate ∞).
OFFLINE = FIXTURES / "sglang" / "datacrunch_llama_3_3_70b_offline_output.jsonl"
RUN_TOK_S = (1654.9938601765348, 1652.8614806713933)  # output tok/s of the two runs, 8 GPUs


def test_two_very_different_runs_keep_a_positive_interval_on_the_log_scale() -> None:
    # The plain t interval: 1,050 ± 12.7062 · 1,343.5 / √2 = [−11,020.6, 13,120.6], below 0.
    plain = t_interval([100.0, 2000.0])
    assert plain.low == pytest.approx(1050 - T_975_1 * 1900 / math.sqrt(2) / math.sqrt(2))
    assert plain.low is not None and plain.low < 0
    # On the log scale: ln 100 and ln 2000, s = ln 20 / √2, half = 12.7062 · ln 20 / 2.
    iv = log_t_interval([100.0, 2000.0], 0.95, 2000.0)
    half = T_975_1 * math.log(20) / 2
    centre = (math.log(100) + math.log(2000)) / 2
    assert iv.method == "t-log" and iv.n == 2 and iv.unit == "runs"
    assert iv.low == pytest.approx(math.exp(centre - half), rel=1e-9)
    assert iv.high == pytest.approx(math.exp(centre + half), rel=1e-9)
    assert iv.low == pytest.approx(2.42626510e-06, rel=1e-6) and iv.low > 0


def test_a_run_at_zero_gives_no_log_interval_and_says_why() -> None:
    iv = log_t_interval([0.0, 1500.0], 0.95, 1500.0)
    assert (iv.low, iv.high, iv.method) == (None, None, None)
    assert iv.reason == "a run is at 0: no interval on the log scale, which needs all > 0"


def test_a_ratio_whose_side_reaches_zero_says_so_rather_than_a_bare_no_interval() -> None:
    crossing = t_interval([100.0, 2000.0], 0.95, 2000.0)  # known, but below 0
    other = log_t_interval([1000.0, 1100.0], 0.95, 1100.0)
    ratio = ratio_interval(crossing, other)
    assert (ratio.low, ratio.high) == (None, None)
    assert ratio.reason == "an interval end is at or below 0: no ratio interval on the log scale"


def upload_offline(client: TestClient) -> int:
    response = post_files(client, (OFFLINE.name, OFFLINE.read_bytes()), hardware="H100", num_gpus=8)
    assert response.status_code == 201, response.text
    [sweep] = [
        s["id"]
        for s in response.json()["sweeps"]
        if s["name"].startswith("sglang.bench_serving · random 4096/1024")
    ]
    return int(sweep)


def test_the_real_two_run_sweep_reads_a_t_log_interval_in_the_json_and_on_explore(
    client: TestClient,
) -> None:
    sweep = upload_offline(client)
    params = {"sweep": sweep, "ttft_ms": 200000, "ttft_percentile": "p50", "usd_per_gpu_hour": 2}
    [result] = client.get("/api/readoff", params=params).json()["results"]
    goodput = result["intervals"]["goodput_tok_s_per_gpu"]
    per_gpu = [v / 8 for v in RUN_TOK_S]
    logs = [math.log(v) for v in per_gpu]
    centre, half = sum(logs) / 2, T_975_1 * abs(logs[0] - logs[1]) / 2
    # The goodput shown is the two runs' geometric mean, the interval's centre; the best run
    # is kept beside it.
    assert result["goodput_tok_s_per_gpu"] == pytest.approx(math.exp(centre), rel=1e-12)
    assert result["best_run_tok_s_per_gpu"] == RUN_TOK_S[0] / 8
    assert goodput["ci_method"] == "t-log" and goodput["ci_reason"] is None
    assert goodput["ci_low"] == pytest.approx(math.exp(centre - half), rel=1e-9)
    assert goodput["ci_high"] == pytest.approx(math.exp(centre + half), rel=1e-9)
    # $/Mtok = 2 · 10⁶ / 3600 / goodput: its ends are those of the goodput, swapped.
    [cost] = result["costs"]
    assert cost["ci_method"] == "t-log"
    assert cost["ci_high"] == pytest.approx(2e6 / 3600 / math.exp(centre - half), rel=1e-9)
    page = BeautifulSoup(
        client.get("/", params={**params, "picked": 1, "preset": "custom"}).text, "html.parser"
    )
    ci = page.select_one("#readoff-table td.goodput-ci small.ci")
    assert ci is not None
    assert ci["title"].endswith(
        "(t interval on the log scale (geometric mean) over 2 repeated runs)"
    )
