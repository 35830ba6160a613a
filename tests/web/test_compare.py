"""/compare and /api/compare: each ratio is the quotient of two read-offs at one interactivity."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import post_files

# Frontiers (x = 1000 / p50 TPOT, y = output tok/s ÷ 1 GPU):
# A: (20, 5000) (40, 4000) (50, 2000); B: (25, 2500) (40, 2000) (100, 500)
TWO = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,output_tok_s\n"
    b"A,H100,1,64,50,60,200,5000\nA,H100,1,16,25,30,150,4000\nA,H100,1,4,20,24,100,2000\n"
    b"B,H200,1,64,40,48,200,2500\nB,H200,1,16,25,30,150,2000\nB,H200,1,4,10,12,100,500\n"
)
FAR = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    b"C,H100,1,1,2,100\nC,H100,1,2,4,180\n"
)


def two_ids(client: TestClient, data: bytes) -> list[int]:
    return [s["id"] for s in post_files(client, ("two.csv", data)).json()["sweeps"]]


def compare_api(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/compare", params={"picked": 1, "preset": "custom", **params})
    assert response.status_code == 200, response.text
    return response.json()


def test_ratios_are_the_quotient_of_the_staircase_read_offs(client: TestClient) -> None:
    a, b = two_ids(client, TWO)
    [pair] = compare_api(client, sweep=[b, a])["pairs"]  # B is the baseline
    assert (pair["a"]["name"], pair["b"]["name"]) == ("A", "B")
    assert pair["shared_range_tok_s_user"] == [25.0, 50.0]
    at = {round(p["x_tok_s_user"], 6): p for p in pair["curve"]}
    # x = 25: A reads 4000 (its point at 40), B reads 2500 → 1.6
    assert at[25.0]["a_tok_s_per_gpu"] == 4000.0
    assert at[25.0]["b_tok_s_per_gpu"] == 2500.0
    assert at[25.0]["throughput_ratio"] == 1.6
    # x = 40: both have a point → 4000 / 2000
    assert at[40.0]["throughput_ratio"] == 2.0
    # x = 50: A 2000 (its point at 50), B 500 (its point at 100)
    assert at[50.0]["throughput_ratio"] == 4.0
    # x = 25 is where B's range ends and x = 50 where A's does: flagged on the curve, and the
    # headline is read strictly inside the shared range only.
    assert at[25.0]["at_range_end"] == ["B"]
    assert at[50.0]["at_range_end"] == ["A"]
    assert at[40.0]["at_range_end"] == []
    headlines = {h["x_tok_s_user"]: h["throughput_ratio"] for h in pair["headlines"]}
    assert headlines == {35.0: 2.0}
    assert pair["headlines"][0]["at_range_end"] == []


def test_linear_ratios_match_linear_read_offs(client: TestClient) -> None:
    a, b = two_ids(client, TWO)
    [pair] = compare_api(client, sweep=[b, a], interpolation="linear")["pairs"]
    at = {round(p["x_tok_s_user"], 6): p for p in pair["curve"]}
    # x = 40 is a point of both: no interpolation needed
    assert at[40.0]["throughput_ratio"] == 2.0
    # x = 35: A 5000 + (15/20)(4000 − 5000) = 4250; B 2500 + (10/15)(2000 − 2500) = 2166.67
    headline = {h["x_tok_s_user"]: h["throughput_ratio"] for h in pair["headlines"]}
    assert headline[35.0] == pytest.approx(4250.0 / (2500 - 500 * 10 / 15))


def test_cost_ratios_price_each_system_with_its_own_gpu(client: TestClient) -> None:
    a, b = two_ids(client, TWO)
    for hw, price in (("H100", 2.0), ("H200", 3.0)):
        client.post("/api/pricing", json={"name": hw, "kind": "rental", "usd_per_gpu_hour": price})
    [pair] = compare_api(client, sweep=[b, a], usd_per_gpu_hour=2.5)["pairs"]
    at = {round(p["x_tok_s_user"], 6): p for p in pair["curve"]}
    # One inline price for both: the cost ratio is the inverse throughput ratio.
    assert at[40.0]["cost_ratios"] == [pytest.approx(0.5)]


def test_the_read_off_ratio_at_the_slo_is_the_goodput_quotient(client: TestClient) -> None:
    a, b = two_ids(client, TWO)
    [pair] = compare_api(client, sweep=[b, a], tpot_ms=30, ttft_ms=150)["pairs"]
    at_slo = pair["at_slo"]
    assert at_slo["a_goodput_tok_s_per_gpu"] == 4000.0
    assert at_slo["b_goodput_tok_s_per_gpu"] == 2000.0
    assert at_slo["throughput_ratio"] == 2.0


def test_sweeps_that_do_not_overlap_have_no_ratio_and_the_reason(client: TestClient) -> None:
    a, _ = two_ids(client, TWO)
    [c] = two_ids(client, FAR)
    [pair] = compare_api(client, sweep=[a, c])["pairs"]
    assert pair["curve"] == []
    assert pair["headlines"] == []
    assert pair["reason"] == (
        "no shared interactivity range: A covers [250, 500], B covers [20, 50] tok/s/user"
    )
    page = BeautifulSoup(
        client.get("/compare", params={"sweep": [a, c], "picked": 1}).text, "html.parser"
    )
    assert "no shared interactivity range" in page.select_one(".no-overlap").text


def test_the_page_states_the_headline_at_several_operating_points(client: TestClient) -> None:
    a, b = two_ids(client, TWO)
    page = BeautifulSoup(
        client.get("/compare", params={"sweep": [b, a], "picked": 1, "tpot_ms": 30}).text,
        "html.parser",
    )
    rows = page.select("#headlines .headline-table tbody tr")
    assert rows[0].select_one("td").text.startswith("At your SLO")
    assert [r.select_one("td.ratio").text for r in rows[1:]] == ["2×"]
    assert page.select(".range-end-caveat") == []
    assert page.select_one("#ratio-figure") is not None


def test_one_system_alone_asks_for_another(client: TestClient) -> None:
    a, _ = two_ids(client, TWO)
    page = BeautifulSoup(
        client.get("/compare", params={"sweep": a, "picked": 1}).text, "html.parser"
    )
    assert "Pick two or more systems" in page.select_one(".results .empty").text


def test_sensitivity_steps_through_the_measured_tpot_values(client: TestClient) -> None:
    a, b = two_ids(client, TWO)
    figure = compare_api(client, sweep=[b, a], ttft_ms=1000)["figures"]["sensitivity"]
    by_name = {t["name"]: t for t in figure["data"]}
    # p90 TPOT values measured across both sweeps: 12 24 30 48 60
    assert by_name["A"]["x"] == [12.0, 24.0, 30.0, 48.0, 60.0]
    assert by_name["A"]["y"] == [None, 2000.0, 4000.0, 4000.0, 5000.0]
    assert by_name["B"]["y"] == [500.0, 500.0, 2000.0, 2500.0, 2500.0]


def test_sensitivity_in_per_request_mode_agrees_with_the_read_off(client: TestClient) -> None:
    from tests.web.test_readoff_api import O9_POINTS, O9_REQUESTS

    [sweep] = [
        s["id"]
        for s in post_files(client, ("o9.csv", O9_POINTS), ("o9.r.csv", O9_REQUESTS)).json()[
            "sweeps"
        ]
    ]
    params = {
        "sweep": sweep,
        "picked": 1,
        "preset": "custom",
        "mode": "requests",
        "attainment": 0.5,
        "ttft_ms": 200,
    }
    figure = client.get("/api/explore", params=params).json()["sensitivity"]
    [trace] = figure["data"]
    # Per-request TPOTs (ms) of the 6 successful requests with more than one output token:
    # 30 40 30 60 40 80 (the one-token request has none, and meets every TPOT limit)
    assert trace["x"][0] == 30.0 and trace["x"][-1] == 80.0
    for limit, goodput in zip(trace["x"], trace["y"], strict=True):
        readoff = client.get(
            "/api/readoff",
            params={
                "sweep": sweep,
                "mode": "requests",
                "attainment": 0.5,
                "ttft_ms": 200,
                "tpot_ms": limit,
            },
        ).json()["results"][0]
        assert goodput == readoff["goodput_tok_s_per_gpu"]
    # At TPOT ≤ 80 ms only TTFT fails r3 and r7: 100+100+100+1+51 tokens in 4 s
    assert trace["y"][-1] == 88.0


def test_a_goodput_at_a_sweeps_heaviest_load_is_marked_as_a_range_end(client: TestClient) -> None:
    a, b = two_ids(client, TWO)
    [pair] = compare_api(client, sweep=[b, a], tpot_ms=100)["pairs"]
    # Every point passes p90 TPOT ≤ 100 ms: both goodputs are their heaviest load (concurrency 64).
    assert pair["at_slo"]["throughput_ratio"] == 2.0  # 5000 ÷ 2500
    assert pair["at_slo"]["at_range_end"] == ["A", "B"]
    page = BeautifulSoup(
        client.get("/compare", params={"sweep": [b, a], "picked": 1, "tpot_ms": 100}).text,
        "html.parser",
    )
    caveat = page.select_one("#headlines tr.at-slo .range-end-caveat")
    assert caveat is not None
    assert "heaviest measured load of A and B" in caveat.text
    tight = compare_api(client, sweep=[b, a], tpot_ms=30, ttft_ms=150)["pairs"][0]
    assert tight["at_slo"]["at_range_end"] == []


def test_an_empty_sensitivity_chart_says_which_limit_empties_it(client: TestClient) -> None:
    a, b = two_ids(client, TWO)
    page = BeautifulSoup(
        client.get(
            "/compare", params={"sweep": [b, a], "picked": 1, "preset": "custom", "ttft_ms": 50}
        ).text,
        "html.parser",
    )
    assert page.select_one("#sensitivity .empty-reason").text == (
        "Nothing to draw: no sweep meets the SLO at any TPOT limit under the other limits "
        "(p90 TTFT ≤ 50 ms): those points fail or are unknown; see the read-off table for each "
        "sweep's reason."
    )
    assert "p90 TPOT limit tightens" in page.select_one("#sensitivity h2").text


def test_the_metrics_page_states_the_sample_quantile_method(client: TestClient) -> None:
    definitions = {d["id"]: d for d in client.get("/api/metrics").json()["definitions"]}
    method = definitions["sample-percentiles"]
    assert (
        "Linear interpolation between closest ranks, numpy.percentile's default" in (method["text"])
    )
    assert "p75 and p99.9 included" in method["text"]
    assert "49 % and 50 %" in definitions["slo-percentile"]["text"]
    page = BeautifulSoup(client.get("/metrics").text, "html.parser")
    assert page.select_one("#sample-percentiles") is not None
