"""`paretoscope plan`: text and JSON output against a real database; bad input exits 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

PAIR = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,requests_per_s\n"
    b"small,H100,1,8,20,1000,10\n"
    b"large,H200,2,8,20,2500,25\n"
)
SLO = ("--tpot-ms", 30, "--percentile", "p50", "--usd-per-gpu-hour", 2)


@pytest.fixture
def imported_pair(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pair.csv"
    path.write_bytes(PAIR)
    assert cli("import", path) == 0
    capsys.readouterr()


@pytest.mark.usefixtures("imported_pair")
def test_plan_prints_each_fleet_and_the_cheapest(
    cli: Callable[..., int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli("plan", 1, 2, "--requests-per-s", 30, *SLO) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "demand: 30 req/s average, peak 30 (× 1), headroom 0 %"
    assert "[pass] sweep 1: small ★ cheapest" in out
    assert (
        "    3 replicas × 1 GPU = 3 GPUs; goodput 10 req/s per replica; utilisation "
        "100 % at peak, 100 % at average" in out
    )
    # 3 GPUs × $2 × 730 = $4,380; 30 req/s × (1000 ÷ 10 =) 100 output tokens = 3,000 tok/s
    # = 7,884 Mtok/month ⇒ $4,380 ÷ 7,884 = $0.5556/Mtok, shown in cents.
    assert "    $4,380/month, $0.56/Mtok at average · $2/GPU-hour ★" in out
    assert "cheapest: small · $2/GPU-hour, $4,380/month" in out


@pytest.mark.usefixtures("imported_pair")
def test_plan_json_has_the_api_fields(
    cli: Callable[..., int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli("plan", 1, 2, "--requests-per-s", 20, "--format", "json", *SLO) == 0
    body = json.loads(capsys.readouterr().out)
    assert [(r["sweep_id"], r["replicas"], r["gpus"]) for r in body["results"]] == [
        (1, 2, 2),
        (2, 1, 2),
    ]
    assert [c["demand"] for c in body["crossovers"]] == [20.0, 25.0, 40.0]


@pytest.mark.usefixtures("imported_pair")
def test_plan_refuses_bad_input_with_exit_status_2(
    cli: Callable[..., int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli("plan", 1, "--requests-per-s", 0) == 2
    assert "error: --requests-per-s: Input should be greater than 0" in capsys.readouterr().err
    assert cli("plan", 1, "--requests-per-s", 1, "--headroom", -1) == 2
    assert "--headroom" in capsys.readouterr().err
    assert cli("plan", 1, "--requests-per-s", 1, "--mode", "vibes") == 2
    assert "--mode" in capsys.readouterr().err
    assert cli("plan", 99, "--requests-per-s", 1) == 2
    assert "error: sweep 99 does not exist" in capsys.readouterr().err
    assert cli("plan", 1) == 2  # no demand: argparse requires one
    assert "one of the arguments --requests-per-s --output-tok-s --tokens-per-day" in (
        capsys.readouterr().err
    )


def test_the_cli_counts_per_decode_gpu_and_plans_prefill_and_decode_apart(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "disagg.csv"
    path.write_bytes(
        b"sweep,hardware,num_gpus,num_prefill_gpus,num_decode_gpus,concurrency,tpot_p50_ms,"
        b"output_tok_s,requests_per_s\n"
        b"disagg,H100,8,2,6,64,20,12000,6.0\n"
    )
    assert cli("import", path) == 0
    capsys.readouterr()
    assert cli("readoff", 1, "--accounting", "decode_gpu", *SLO) == 0
    header, row = capsys.readouterr().out.splitlines()[:2]
    cells = dict(zip(header.split(","), row.split(","), strict=False))
    # 12,000 tok/s ÷ 6 decode GPUs; $2/GPU-hour at 1,500 tok/s per GPU stays $0.37/Mtok.
    assert (cells["throughput_per"], float(cells["goodput_tok_s_per_gpu"])) == ("decode GPU", 2000)
    assert float(cells["usd_per_mtok [$2/GPU-hour]"]) == pytest.approx(2 / 5.4)
    assert cli("plan", 1, "--requests-per-s", 13, "--accounting", "decode_gpu", *SLO) == 0
    out = capsys.readouterr().out.splitlines()
    assert "    split: 2P + 6D per replica; fleet 6 prefill GPUs + 18 decode GPUs" in out
    assert "    goodput 2,000 tok/s per decode GPU" in out


def test_plan_sizes_concurrent_sessions_with_the_lower_end_fleet(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.web.test_sessions_api import POINTS, agentic_requests

    (tmp_path / "agents.csv").write_text(POINTS)
    (tmp_path / "agents.requests.csv").write_text(agentic_requests()[0])
    assert cli("import", tmp_path / "agents.csv", tmp_path / "agents.requests.csv") == 0
    capsys.readouterr()
    asked = ("--ttft-ms", 500, "--attainment", 0.8, "--usd-per-gpu-hour", 2)
    assert cli("plan", 1, "--concurrent-sessions", 40, *asked) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "demand: 40 concurrent sessions average, peak 40 (× 1), headroom 0 %"
    assert (
        "    3 replicas × 8 GPUs = 24 GPUs; goodput 16 concurrent sessions per replica; "
        "utilisation 83.3 % at peak, 83.3 % at average" in out
    )
    assert (
        "    sessions: 84.2 % [75.6 %, 90.2 %] of 95 sessions met every turn (target 80 %, "
        "5 cut sessions apart)" in out
    )
    assert "    at the interval's lower end: 8 sessions per replica, 5 replicas = 40 GPUs" in out
    assert cli("plan", 1, "--concurrent-sessions", 40, "--format", "json", *asked) == 0
    [r] = json.loads(capsys.readouterr().out)["results"]
    assert (r["replicas"], r["agents"]["replicas_conservative"]) == (3, 5)
