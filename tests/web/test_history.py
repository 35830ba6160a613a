"""/history: one configuration's goodput and $/Mtok by date; repeated runs as a min–max spread."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import post_files

HEAD = (
    b"sweep,hardware,num_gpus,model,engine,precision,isl,osl,measured_at,concurrency,"
    b"tpot_p50_ms,tpot_p90_ms,output_tok_s\n"
)
# Same configuration measured twice; the second run repeats concurrency 16 three times.
RUNS = HEAD + (
    b"june,H100,8,llama-70b,vllm,fp8,1024,1024,2026-06-01,8,20,25,8000\n"
    b"june,H100,8,llama-70b,vllm,fp8,1024,1024,2026-06-01,16,30,36,12000\n"
    b"sept,H100,8,llama-70b,vllm,fp8,1024,1024,2026-09-15,8,18,22,9600\n"
    b"sept,H100,8,llama-70b,vllm,fp8,1024,1024,2026-09-15,16,26,31,15200\n"
    b"sept,H100,8,llama-70b,vllm,fp8,1024,1024,2026-09-15,16,27,33,14400\n"
    b"sept,H100,8,llama-70b,vllm,fp8,1024,1024,2026-09-15,16,25,30,16000\n"
    b"other,B200,8,llama-70b,vllm,fp8,1024,1024,2026-07-01,8,10,12,20000\n"
)


def history(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/history", params={"picked": 1, "preset": "custom", **params})
    assert response.status_code == 200, response.text
    return response.json()


def test_sweeps_of_one_configuration_trend_by_measured_date(client: TestClient) -> None:
    post_files(client, ("runs.csv", RUNS))
    body = history(client, hardware="H100", tpot_ms=35, usd_per_gpu_hour=2)
    [config] = body["configurations"]
    assert config["label"] == "8×H100 · llama-70b · vllm · fp8 · 1024/1024"
    assert [(s["name"], s["date"], s["date_source"]) for s in config["sweeps"]] == [
        ("june", "2026-06-01", "measured"),
        ("sept", "2026-09-15", "measured"),
    ]
    # p90 TPOT ≤ 35 ms: june passes at 8 only (8000 / 8 GPUs); sept's three runs at 16 all pass:
    # its goodput is their geometric mean, (1900 · 1800 · 2000)^(1/3) per GPU, best run 2000.
    gm = (1900.0 * 1800.0 * 2000.0) ** (1 / 3)
    goodputs = [s["goodput_tok_s_per_gpu"] for s in config["sweeps"]]
    assert goodputs == [1000.0, pytest.approx(gm)]
    assert config["sweeps"][1]["best_run_tok_s_per_gpu"] == 2000.0
    costs = [s["costs"][0] for s in config["sweeps"]]
    assert costs == [2 * 1e6 / (3600 * 1000.0), pytest.approx(2 * 1e6 / (3600 * gm))]
    trace = body["figure"]["data"][0]
    assert (trace["x"], trace["y"]) == (["2026-06-01", "2026-09-15"], [1000.0, pytest.approx(gm)])


def test_repeated_runs_are_a_spread_not_an_average(client: TestClient) -> None:
    post_files(client, ("runs.csv", RUNS))
    body = history(client, hardware="H100", tpot_ms=100)
    june, sept = body["configurations"][0]["sweeps"]
    assert june["repeated_runs"] == []
    [spread] = sept["repeated_runs"]
    assert spread["load"] == 16
    assert spread["runs"] == 3
    assert spread["tok_s_per_gpu"] == [1800.0, 2000.0]
    assert spread["interactivity_tok_s_user"] == [1000 / 27, 1000 / 25]


def test_each_configuration_is_its_own_line(client: TestClient) -> None:
    post_files(client, ("runs.csv", RUNS))
    body = history(client, tpot_ms=100)
    labels = [c["label"] for c in body["configurations"]]
    assert labels == [
        "8×H100 · llama-70b · vllm · fp8 · 1024/1024",
        "8×B200 · llama-70b · vllm · fp8 · 1024/1024",
    ]


def test_the_page_lists_dates_goodput_and_spreads(client: TestClient) -> None:
    post_files(client, ("runs.csv", RUNS))
    page = BeautifulSoup(
        client.get(
            "/history", params={"hardware": "H100", "tpot_ms": 100, "picked": 1, "preset": "custom"}
        ).text,
        "html.parser",
    )
    rows = page.select(".history-table tbody tr")
    assert [r.select_one("td").text.strip() for r in rows] == ["2026-06-01", "2026-09-15"]
    # Sept: the geometric mean of its three runs at 16, (1900 · 1800 · 2000)^(1/3) = 1,898.
    assert [r.select_one("td.goodput").text for r in rows] == ["1,500", "1,898"]
    assert "load 16: 3 runs, 1,800–2,000 tok/s/GPU" in rows[1].select_one("td.spread").text


def test_explore_draws_repeated_runs_as_a_box(client: TestClient) -> None:
    [_, sept, _] = [s["id"] for s in post_files(client, ("runs.csv", RUNS)).json()["sweeps"]]
    figure = client.get("/api/explore", params={"sweep": sept, "picked": 1}).json()["figure"]
    [box] = [t for t in figure["data"] if t.get("fill") == "toself"]
    assert box["y"] == [1800.0, 1800.0, 2000.0, 2000.0, 1800.0]
    assert box["text"].startswith("3 runs at load 16")


def test_history_shows_unknown_beside_the_sweep_with_its_reason(client: TestClient) -> None:
    from tests.web.test_readoff_api import upload_vllm

    sweep = upload_vllm(client)
    page = BeautifulSoup(
        client.get(
            "/history",
            params={"sweep": sweep, "picked": 1, "preset": "custom", "ttft_ms": 500},
        ).text,
        "html.parser",
    )
    cell = page.select_one(".history-table tbody tr td.verdict")
    assert cell["data-status"] == "unknown"
    assert cell.contents[0].strip() == "unknown"
    assert "p90 TTFT not measured: the file has TTFT at p50, p95, p99" in cell.text
