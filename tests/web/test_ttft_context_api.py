"""/api/readoff's TTFT against prompt length (issue 50) from request samples."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.schemas.answers.ttft_context import MissesOut
from tests.helpers import soup, upload_ids
from tests.web.test_readoff_api import O9_POINTS, O9_REQUESTS
from tests.web.test_token_classes_api import class_readoff

# One load, five requests of growing prompts (tests/domain/test_prefill_fit.py's XS and YS).
CONTEXT_POINTS = (
    b"sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,ttft_p90_ms,output_tok_s\n"
    b"ctx,H100,1,4,10.0,20,1500,500\n"
)
CONTEXT_REQUESTS = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n"
    b"ctx,4,130,2130,101,1000,true\nctx,4,210,2210,101,2000,true\n"
    b"ctx,4,420,2420,101,4000,true\nctx,4,800,2800,101,8000,true\n"
    b"ctx,4,1650,3650,101,16000,true\nctx,4,,,,30000,false\n"
)


def test_the_readoff_fits_ttft_against_prompt_length_as_least_squares_by_hand(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("c.csv", CONTEXT_POINTS), ("c.requests.csv", CONTEXT_REQUESTS))
    params = {"sweep": sweep, "ttft_ms": 2000, "tpot_ms": 35, "percentile": "p90"}
    body = class_readoff(client, **params, tpot_percentile="p50")
    ctx = body["results"][0]["ttft_vs_context"]
    assert ctx["n"] == 5  # the failed request has no TTFT
    slope = 15_128_000 / 148_800_000  # Sxy / Sxx by hand
    intercept = 642 - 6_200 * slope
    assert ctx["ms_per_token"] == pytest.approx(slope, rel=1e-12)
    assert ctx["prefill_tok_s"] == pytest.approx(1000 / slope, rel=1e-12)
    assert ctx["ci_low"] < ctx["prefill_tok_s"] < ctx["ci_high"]
    assert ctx["crossing_input_tokens"] == pytest.approx((2000 - intercept) / slope, rel=1e-12)
    assert [(b["input_tokens_low"], b["n"]) for b in ctx["buckets"]] == [
        (512, 1),
        (1024, 1),
        (2048, 1),
        (4096, 1),
        (8192, 1),
    ]


def test_the_sweeps_json_gives_each_point_with_samples_its_prefill_rate(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("c.csv", CONTEXT_POINTS), ("c.requests.csv", CONTEXT_REQUESTS))
    [point] = client.get(f"/api/sweeps/{sweep}").json()["points"]
    ctx = point["ttft_vs_context"]
    assert ctx["prefill_tok_s"] == pytest.approx(148_800_000 / 15_128_000 * 1000, rel=1e-12)
    assert ctx["ttft_limit_ms"] is None and ctx["crossing_input_tokens"] is None


def test_a_points_missed_requests_name_the_limits_each_missed_as_oracle_o9(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("o9.csv", O9_POINTS), ("o9.requests.csv", O9_REQUESTS))
    readoff = class_readoff(client, sweep=sweep, ttft_ms=200, tpot_ms=50, mode="requests")
    [point] = client.get(f"/api/sweeps/{sweep}").json()["points"]
    assert readoff["results"][0]["status"] == "fail"
    params = {"sweep": sweep, "point_id": point["id"], "ttft_ms": 200, "tpot_ms": 50}
    response = client.get("/api/readoff/misses", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    MissesOut.model_validate(body)
    assert (body["issued"], body["missed"]) == (8, 4)
    # O9: r3 misses TTFT, r4 TPOT, r7 both, r8 failed; r5's one token has no TPOT.
    assert [(r["request"], r["missed"]) for r in body["requests"]] == [
        (3, ["ttft"]),
        (4, ["tpot"]),
        (7, ["ttft", "tpot"]),
        (8, ["failed"]),
    ]
    assert body["requests"][1]["tpot_ms"] == pytest.approx(60.0)
    other = client.get("/api/readoff/misses", params={**params, "point_id": 1})
    assert other.status_code == 404
    assert f"point 1 is not a point of sweep {sweep}" in other.text


def test_explores_misses_fragment_lists_them_at_the_pages_slo(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("o9.csv", O9_POINTS), ("o9.requests.csv", O9_REQUESTS))
    [point] = client.get(f"/api/sweeps/{sweep}").json()["points"]
    page_query = {"sweep": sweep, "picked": 1, "preset": "custom", "ttft_ms": 200, "tpot_ms": 50}
    fragment = soup(
        client.get(
            "/explore/misses", params={**page_query, "misses_sweep": sweep, "point_id": point["id"]}
        ),
        200,
    )
    assert fragment.select_one(".miss-count").get_text(strip=True) == "4 of 8 requests"
    rows = fragment.select("#misses-table tbody tr")
    assert [r.select_one(".missed").get_text(strip=True) for r in rows] == [
        "TTFT",
        "TPOT",
        "TTFT, TPOT",
        "failed",
    ]
    # Every O9 prompt is 10 tokens: no prefill rate, and the reason says why.
    fit = fragment.select_one(".prefill-fit").get_text(" ", strip=True)
    assert fit.startswith("every request has the same input length")
    refused = client.get("/explore/misses", params=page_query)
    assert refused.status_code == 422
