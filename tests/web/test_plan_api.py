"""/api/plan on SQLite and Postgres: exact fleet sizes, prices, power, three states, crossovers."""

from __future__ import annotations

import math
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.store.models import Hardware
from tests.conftest import FIXTURES
from tests.helpers import upload_ids
from tests.web.test_pricing import O3_OWNERSHIP
from tests.web.test_readoff_api import O9_POINTS, O9_REQUESTS, O11

# O11 at p90 TPOT ≤ 35 ms, p90 TTFT ≤ 300 ms: the operating point is concurrency 16,
# 3.2 req/s (3,200 tok/s/GPU on 8 GPUs); output length = 25,600 tok/s ÷ 3.2 req/s = 8,000.
O11_SLO = {"tpot_ms": 35, "ttft_ms": 300}


def get_plan(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/plan", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_plan_sizes_prices_and_powers_the_fleet_at_the_readoff_operating_point(
    client: TestClient, session: Session
) -> None:
    session.add(Hardware(key="H100", name="H100", allin_kw=1.6))
    session.commit()
    [sweep] = upload_ids(client, ("o11.csv", O11))
    owned = client.post("/api/pricing", json=O3_OWNERSHIP).json()["id"]
    body = get_plan(
        client,
        sweep=sweep,
        **O11_SLO,
        requests_per_s=10,
        peak_to_average=2,
        headroom=0.25,
        pricing=owned,
        usd_per_gpu_hour=2,
    )
    [r] = body["results"]
    assert (r["status"], r["reason"]) == ("pass", None)
    assert r["operating_point"]["concurrency"] == 16
    assert r["goodput_requests_per_s_per_replica"] == 3.2
    assert r["output_tokens_per_request"] == 8000.0
    # Peak 20 req/s × 1.25 = 25 ⇒ ⌈25 ÷ 3.2⌉ = ⌈7.8125⌉ = 8 replicas of 8 GPUs.
    assert (r["replicas"], r["gpus"]) == (8, 64)
    assert r["utilization_peak"] == pytest.approx(20 / 25.6)  # 0.78125
    assert r["utilization_average"] == pytest.approx(10 / 25.6)  # 0.390625
    # 64 GPUs × 1.6 kW = 102.4 kW; × 730 h = 74.752 MWh/month.
    assert r["kw"] == pytest.approx(102.4)
    assert r["mwh_per_month"] == pytest.approx(74.752)
    ownership, inline = r["costs"]
    # O3 per GPU-hour: capital 1.440506 + power 0.104 + colo 0.205479 = 1.749985; × 64 × 730.
    assert ownership["profile_id"] == owned
    assert ownership["kind"] == "ownership"
    assert ownership["usd_per_month"] == pytest.approx(81_759.32, abs=0.01)
    breakdown = ownership["breakdown_usd_per_month"]
    assert breakdown["capital_usd_per_month"] == pytest.approx(67_300.44, abs=0.01)
    assert breakdown["power_usd_per_month"] == pytest.approx(4_858.88)
    assert breakdown["colo_usd_per_month"] == pytest.approx(9_600.0)
    assert breakdown["opex_usd_per_month"] == 0.0
    # Inline $2/GPU-hour × 64 × 730 = $93,440. Average output 10 × 8,000 = 80,000 tok/s
    # = 210,240 Mtok/month ⇒ $93,440 ÷ 210,240 = $0.444444/Mtok.
    assert (inline["profile_id"], inline["usd_per_month"]) == (None, 93_440.0)
    assert inline["usd_per_mtok_average"] == pytest.approx(4 / 9)
    assert ownership["usd_per_mtok_average"] == pytest.approx(81_759.318124 / 210_240)
    # The cheaper price is ownership; it is the cheapest option that meets the SLO.
    assert (ownership["cheapest"], inline["cheapest"], r["cheapest"]) == (True, False, True)
    assert body["cheapest"]["profile_id"] == owned
    assert body["cheapest"]["usd_per_month"] == pytest.approx(81_759.32, abs=0.01)
    assert body["demand"] == {
        "unit": "requests_per_s",
        "average": 10.0,
        "peak": 20.0,
        "peak_to_average": 2.0,
        "headroom": 0.25,
        "sized_for": 25.0,
        "hours_per_month": 730.0,
    }


def test_the_operating_point_and_goodput_equal_the_readoffs_for_the_same_query(
    client: TestClient,
) -> None:
    [o11] = upload_ids(client, ("o11.csv", O11))
    [o9] = upload_ids(client, ("o9.csv", O9_POINTS), ("o9.requests.csv", O9_REQUESTS))
    queries = [
        {"sweep": o11, **O11_SLO, "interpolation": "linear"},
        {"sweep": o11, "tpot_ms": 30, "percentile": "p50", "stat": "p90"},
        {"sweep": o9, "ttft_ms": 200, "tpot_ms": 50, "mode": "requests", "attainment": 0.5},
    ]
    for query in queries:
        readoff = client.get("/api/readoff", params=query).json()["results"][0]
        planned = get_plan(client, **query, requests_per_s=3.5)["results"][0]
        for key in ("operating_point", "goodput_tok_s_per_gpu", "goodput_requests_per_s"):
            assert planned[key] == readoff[key], (query, key)
        assert planned["goodput_requests_per_s_per_replica"] == readoff["goodput_requests_per_s"]
        assert planned["replicas"] == math.ceil(3.5 / readoff["goodput_requests_per_s"])


def test_per_request_goodput_sizes_the_fleet_from_good_requests_only(client: TestClient) -> None:
    # O9: 4 of 8 requests meet TTFT ≤ 200 ms and TPOT ≤ 50 ms in 4 s ⇒ 1.0 good req/s per
    # 1-GPU replica; 3.5 req/s ⇒ 4 replicas. Attainment 50 % < 90 % is a measured fail.
    [o9] = upload_ids(client, ("o9.csv", O9_POINTS), ("o9.requests.csv", O9_REQUESTS))
    slo = {"sweep": o9, "ttft_ms": 200, "tpot_ms": 50, "mode": "requests"}
    loose = get_plan(client, **slo, attainment=0.5, requests_per_s=3.5, usd_per_gpu_hour=1)
    [r] = loose["results"]
    assert (r["status"], r["replicas"], r["gpus"]) == ("pass", 4, 4)
    assert r["costs"][0]["usd_per_month"] == 4 * 730.0
    # The point has no request throughput or lengths, so there is no $/Mtok, and it says why.
    assert r["costs"][0]["usd_per_mtok_average"] is None
    assert r["costs"][0]["reason"] == "output tokens per request not measured: no $/Mtok"
    [strict] = get_plan(client, **slo, requests_per_s=3.5)["results"]
    assert strict["status"] == "fail"
    assert strict["reason"].startswith("no point meets the SLO: lightest load fails attainment 50")
    assert strict["replicas"] is None and strict["gpus"] is None


def test_an_unmeasured_slo_statistic_is_unknown_not_fail(client: TestClient) -> None:
    [o11] = upload_ids(client, ("o11.csv", O11))
    # O11 has no E2EL at all: every point is unknown, so the system is unknown, with why.
    [r] = get_plan(client, sweep=o11, e2el_ms=1000, requests_per_s=1)["results"]
    assert r["status"] == "unknown"
    assert r["reason"] == (
        "4 points unknown: p90 E2EL not measured: the file has no E2EL percentile;"
        " upload per-request data"
    )
    # Per-request mode without samples is unknown too.
    [r] = get_plan(client, sweep=o11, tpot_ms=35, mode="requests", requests_per_s=1)["results"]
    assert (r["status"], r["reason"]) == ("unknown", "4 points unknown: no request samples")
    # Every point measured and failing is a fail.
    [r] = get_plan(client, sweep=o11, tpot_ms=10, requests_per_s=1)["results"]
    assert r["status"] == "fail"
    assert r["reason"].startswith("no point meets the SLO: lightest load fails")


def test_token_demand_uses_the_measured_lengths_or_says_they_are_missing(
    client: TestClient,
) -> None:
    [o11] = upload_ids(client, ("o11.csv", O11))
    # 80,000 output tok/s at 8,000 tokens per request is 10 req/s: ⌈10 ÷ 3.2⌉ = 4 replicas.
    [r] = get_plan(client, sweep=o11, **O11_SLO, output_tok_s=80_000)["results"]
    assert (r["status"], r["replicas"]) == ("pass", 4)
    assert r["goodput_per_replica"] == pytest.approx(25_600.0)  # output tok/s per replica
    assert r["demand_requests_per_s_average"] == pytest.approx(10.0)
    # tokens_per_day needs input lengths too; O11 has no input length or total throughput.
    [r] = get_plan(client, sweep=o11, **O11_SLO, tokens_per_day=1e9)["results"]
    assert r["status"] == "unknown"
    assert r["reason"] == (
        "meets the SLO, but input and output lengths per request not measured at the "
        "operating point, needed for tokens_per_day demand"
    )


def test_tokens_per_day_counts_input_and_output_tokens(client: TestClient) -> None:
    csv = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,requests_per_s,"
        b"input_len,output_len\n"
        b"lens,H100,2,8,20,2000,10,1000,200\n"
    )
    [sweep] = upload_ids(client, ("lens.csv", csv))
    # 10 req/s × 1,200 tokens × 86,400 s = 1.0368e9 tokens/day per replica; 5e9/day ⇒ ⌈4.82⌉.
    [r] = get_plan(client, sweep=sweep, tpot_ms=50, percentile="p50", tokens_per_day=5e9)["results"]
    assert r["goodput_per_replica"] == pytest.approx(1.0368e9)
    assert (r["replicas"], r["gpus"]) == (5, 10)
    assert r["utilization_average"] == pytest.approx(5e9 / (5 * 1.0368e9))


def test_a_disaggregated_sweep_is_planned_as_whole_deployments(client: TestClient) -> None:
    csv = (
        b"sweep,hardware,num_gpus,num_prefill_gpus,num_decode_gpus,concurrency,tpot_p50_ms,"
        b"output_tok_s,requests_per_s\n"
        b"disagg,H100,8,2,6,64,20,12000,6.0\n"
    )
    [sweep] = upload_ids(client, ("disagg.csv", csv))
    params = {"tpot_ms": 25, "percentile": "p50", "requests_per_s": 13, "usd_per_gpu_hour": 2}
    [r] = get_plan(client, sweep=sweep, accounting="decode_gpu", **params)["results"]
    # ⌈13 ÷ 6⌉ = 3 deployments of 2 prefill + 6 decode GPUs = 24 GPUs; 2 × 24 × 730 = 35,040.
    assert (r["num_prefill_gpus"], r["num_decode_gpus"], r["num_gpus"]) == (2, 6, 8)
    assert (r["replicas"], r["gpus"]) == (3, 24)
    assert r["costs"][0]["usd_per_month"] == 35_040.0
    # The fleet's prefill and decode GPUs apart; goodput restated per decode GPU (12,000 ÷ 6).
    assert (r["fleet_prefill_gpus"], r["fleet_decode_gpus"]) == (6, 18)
    assert (r["throughput_per"], r["goodput_tok_s_per_unit"]) == ("decode GPU", 2000.0)


# Two sweeps whose ratio matches tests/domain/test_plan.py's hand-built crossover case:
# A serves 10 req/s per 1-GPU replica ($2 × 730 = $1,460/month), B 25 req/s per 2-GPU replica
# ($2,920/month). At 20 req/s the chart runs 2 … 200 and the cheapest flips at 20, 25 and 40.
CROSSOVER = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,requests_per_s\n"
    b"small,H100,1,8,20,1000,10\n"
    b"large,H200,2,8,20,2500,25\n"
)


def test_crossovers_report_where_the_cheapest_option_changes(client: TestClient) -> None:
    small, large = upload_ids(client, ("pair.csv", CROSSOVER))
    body = get_plan(
        client,
        sweep=[small, large],
        tpot_ms=30,
        percentile="p50",
        requests_per_s=20,
        usd_per_gpu_hour=2,
    )
    assert body["chart_range"] == {"low": 2.0, "high": 200.0}
    flips = [
        (c["demand"], c["cheapest_below"]["sweep_id"], c["cheapest_above"]["sweep_id"])
        for c in body["crossovers"]
    ]
    assert flips == [(20.0, small, large), (25.0, large, small), (40.0, small, large)]
    assert [c["demand_multiple"] for c in body["crossovers"]] == [1.0, 1.25, 2.0]
    # Just above 20 req/s: small needs 3 replicas ($4,380), large 1 ($2,920).
    first = body["crossovers"][0]
    assert first["cheapest_below"]["usd_per_month"] == 4_380.0
    assert first["cheapest_above"]["usd_per_month"] == 2_920.0
    # At 20 req/s both cost $2,920: the tie goes to the first listed system.
    assert body["cheapest"]["sweep_id"] == small
    assert [r["cheapest"] for r in body["results"]] == [True, False]
    # The chart: one step line per option, from 2 to 200.
    lines = [t for t in body["figure"]["data"] if t["mode"] == "lines"]
    assert len(lines) == 2
    assert all(t["line"]["shape"] == "hv" for t in lines)
    assert lines[0]["x"][:4] == [2.0, 10.0, 20.0, 30.0]
    assert lines[0]["y"][:4] == [1460.0, 2920.0, 4380.0, 5840.0]


def test_a_plan_on_real_vllm_results_matches_the_readoff(client: TestClient) -> None:
    # The four fixed-rate runs form one sweep (the unlimited-rate run is another).
    files = sorted((FIXTURES / "vllm").glob("stellalee_*.0qps-*.json"))
    assert len(files) == 4
    [sweep] = upload_ids(
        client, *((f.name, f.read_bytes()) for f in files), hardware="H100", num_gpus=1
    )
    query = {"sweep": sweep, "tpot_ms": 50, "ttft_ms": 1000, "percentile": "p99"}
    readoff = client.get("/api/readoff", params=query).json()["results"][0]
    [r] = get_plan(client, **query, output_tok_s=5000, usd_per_gpu_hour=2.5)["results"]
    assert r["status"] == "pass" and readoff["meets_slo"] is True
    assert r["operating_point"] == readoff["operating_point"]
    per_replica = readoff["goodput_requests_per_s"] * r["output_tokens_per_request"]
    assert r["goodput_per_replica"] == pytest.approx(per_replica)
    assert r["replicas"] == math.ceil(5000 / per_replica)
    assert r["costs"][0]["usd_per_month"] == pytest.approx(2.5 * r["gpus"] * 730)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {},
            "give one demand: requests_per_s, output_tok_s, tokens_per_day or concurrent_sessions",
        ),
        ({"requests_per_s": 1, "output_tok_s": 5}, "give one demand, not"),
        ({"requests_per_s": 1, "peak_to_average": 0.5}, "peak_to_average"),
        ({"requests_per_s": -1}, "requests_per_s"),
        ({"requests_per_s": 1, "headroom": -0.1}, "headroom"),
    ],
)
def test_bad_demand_is_a_422_naming_the_field(
    client: TestClient, params: dict[str, Any], message: str
) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    response = client.get("/api/plan", params={"sweep": sweep, "tpot_ms": 35, **params})
    assert response.status_code == 422
    assert message in response.text


def test_an_unknown_sweep_is_a_404(client: TestClient) -> None:
    response = client.get("/api/plan", params={"sweep": 999, "requests_per_s": 1})
    assert response.status_code == 404
    assert "sweep 999 does not exist" in response.text
