"""Issue 30 §5: TPOT of a one-token request is undefined. CDFs and TPOT percentiles from samples
leave it out and say how many; a per-request TPOT limit cannot fail it.

The real LLMPerf anyscale run (150 requests, all of 151 output tokens) with 14 of its requests
made one-token answers, as a server that stops at once would give them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.domain.metrics import percentile_linear
from tests.conftest import FIXTURES

SUMMARY = FIXTURES / "llmperf" / "summary_anyscale_70b.json"
INDIVIDUAL = FIXTURES / "llmperf" / "individual_anyscale_70b.json"
ONE_TOKEN = 14


def records() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(INDIVIDUAL.read_bytes())
    for row in rows[:ONE_TOKEN]:
        row["number_total_tokens"] -= row["number_output_tokens"] - 1
        row["number_output_tokens"] = 1
    return rows


def upload_one_token_run(client: TestClient) -> int:
    files = [
        ("files", (SUMMARY.name, SUMMARY.read_bytes(), "application/json")),
        ("files", (INDIVIDUAL.name, json.dumps(records()).encode(), "application/json")),
    ]
    response = client.post("/api/sweeps", files=files, data={"hardware": "A100", "num_gpus": "4"})
    assert response.status_code == 201, response.text
    return int(response.json()["sweeps"][0]["id"])


def tpots_ms() -> list[float]:
    """(E2EL − TTFT) ÷ (n − 1) of the 136 requests with more than one output token."""
    return [
        (r["end_to_end_latency_s"] - r["ttft_s"]) * 1000 / (r["number_output_tokens"] - 1)
        for r in records()
        if r["number_output_tokens"] > 1
    ]


def test_the_tpot_cdf_leaves_out_the_14_one_token_requests_and_says_so(
    client: TestClient,
) -> None:
    page = BeautifulSoup(client.get(f"/sweeps/{upload_one_token_run(client)}").text, "html.parser")
    figure = json.loads(page.select_one("#tpot-cdf-figure").string)
    [trace] = figure["data"]
    assert min(trace["x"]) == min(tpots_ms()) > 0
    assert trace["y"][0] == 1 / 136 and trace["y"][-1] == 1.0
    assert page.select_one("#tpot-cdf-figure-note").text == (
        "14 of 150 successful requests have one output token and so no TPOT (no token after "
        "the first): left out of this CDF"
    )
    # TTFT is defined for every request: all 150 are drawn, nothing is left out.
    ttft = json.loads(page.select_one("#ttft-cdf-figure").string)
    assert ttft["data"][0]["y"][0] == 1 / 150
    assert page.select_one("#ttft-cdf-figure-note") is None


def test_a_tpot_percentile_from_samples_is_over_the_136_requests_that_have_one(
    client: TestClient,
) -> None:
    sweep = upload_one_token_run(client)
    params = {"sweep": sweep, "tpot_ms": 100, "tpot_percentile": "p80", "points": True}
    [result] = client.get("/api/readoff", params=params).json()["results"]
    [check] = result["points"][0]["checks"]
    assert (check["source"], check["n_samples"], check["n_without_tpot"]) == ("samples", 136, 14)
    assert check["value_ms"] == pytest.approx(percentile_linear(tpots_ms(), 80.0))
    assert result["points"][0]["reason"].endswith(
        "(from 136 request samples; 14 one-token requests without a TPOT left out)"
    )


def test_a_one_token_request_cannot_fail_a_per_request_tpot_limit(client: TestClient) -> None:
    """Every multi-token request here has a TPOT above 1 ms; the 14 one-token requests have
    none, so a 1 ms TPOT limit judges them on their other limits (none): 14 of 150 good."""
    assert min(tpots_ms()) > 1.0
    sweep = upload_one_token_run(client)
    params = {"sweep": sweep, "tpot_ms": 1, "mode": "requests", "attainment": 0.05}
    [result] = client.get("/api/readoff", params={**params, "points": True}).json()["results"]
    assert result["points"][0]["attainment"] == 14 / 150
    assert "(14 of 150 requests good)" in result["points"][0]["reason"]
    assert result["note"].endswith(
        "A one-token request has no TPOT: it cannot fail a TPOT limit and is judged on its "
        "other limits."
    )
