"""/api/readoff and /api/frontier: exact numbers on sweeps uploaded through the API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.schemas.bounds import MAX_SWEEPS_ASKED
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.helpers import upload_ids

# Oracle O11: p90 TPOT ≤ 35 ms and p90 TTFT ≤ 300 ms; tok/s/GPU = output_tok_s / 8.
O11 = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,output_tok_s,"
    b"requests_per_s\n"
    b"o11,H100,8,8,18,20,150,16000,2.0\n"
    b"o11,H100,8,16,25,28,180,25600,3.2\n"
    b"o11,H100,8,32,38,42,260,38400,4.8\n"
    b"o11,H100,8,64,60,70,600,48000,6.0\n"
)

# Oracle O9: 7 successful requests and 1 failure in 4.0 s on one GPU.
O9_POINTS = (
    b"sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,output_tok_s\n"
    b"o9,H100,1,8,4.0,40,88.0\n"
)
O9_REQUESTS = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n"
    b"o9,8,120,3090,100,10,true\n"
    b"o9,8,180,4140,100,10,true\n"
    b"o9,8,250,3220,100,10,true\n"
    b"o9,8,100,6040,100,10,true\n"
    b"o9,8,190,190,1,10,true\n"
    b"o9,8,150,2150,51,10,true\n"
    b"o9,8,300,8220,100,10,true\n"
    b"o9,8,,,,10,false\n"
)


def readoff(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/readoff", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_o11_goodput_is_the_best_measured_point_and_the_estimate_interpolates(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    body = readoff(client, sweep=sweep, tpot_ms=35, ttft_ms=300, interpolation="linear")
    [result] = body["results"]
    assert result["meets_slo"] is True
    assert result["reason"] is None
    assert result["goodput_tok_s_per_gpu"] == 3200.0
    assert result["goodput_requests_per_s"] == 3.2
    assert result["operating_point"]["concurrency"] == 16
    assert result["operating_point"]["interactivity_tok_s_user"] == pytest.approx(1000 / 25)
    assert result["estimate"]["tok_s_per_gpu"] == pytest.approx(4000.0)
    assert result["estimate"]["load"] == pytest.approx(24.0)
    assert result["estimate"]["label"] == "interpolated"
    assert body["slo"]["description"] == "p90 TTFT ≤ 300 ms, p90 TPOT ≤ 35 ms"


def test_staircase_gives_no_estimate_and_loglinear_is_geometric(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    plain = readoff(client, sweep=sweep, tpot_ms=35, ttft_ms=300)["results"][0]
    assert plain["estimate"] is None
    geo = readoff(client, sweep=sweep, tpot_ms=35, ttft_ms=300, interpolation="loglinear")
    assert geo["results"][0]["estimate"]["tok_s_per_gpu"] == pytest.approx(
        3200 * (4800 / 3200) ** 0.5
    )


def test_a_limit_equal_to_the_measured_percentile_passes(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    result = readoff(client, sweep=sweep, tpot_ms=42, ttft_ms=260)["results"][0]
    assert result["goodput_tok_s_per_gpu"] == 4800.0
    assert result["operating_point"]["concurrency"] == 32


def test_min_tok_s_user_is_a_tpot_limit_of_1000_over_it(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    body = readoff(client, sweep=sweep, min_tok_s_user=25)  # TPOT ≤ 40 ms
    assert body["slo"]["tpot_ms"] == 40.0
    assert body["results"][0]["goodput_tok_s_per_gpu"] == 3200.0


def test_a_missing_percentile_makes_points_unknown_never_passing(client: TestClient) -> None:
    data = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,tpot_p90_ms,output_tok_s\n"
        b"gap,H100,1,1,10,12,100\ngap,H100,1,2,11,13,180\n"
    )
    [sweep] = upload_ids(client, ("gap.csv", data))
    result = readoff(client, sweep=sweep, tpot_ms=50, ttft_ms=1000, points=True)["results"][0]
    assert result["status"] == "unknown"
    assert result["meets_slo"] is None
    assert result["goodput_tok_s_per_gpu"] is None
    assert result["reason"] == (
        "2 points unknown: p90 TTFT not measured: the file has no TTFT percentile; "
        "upload per-request data"
    )
    assert [p["status"] for p in result["points"]] == ["unknown", "unknown"]
    # Without a TTFT limit nothing unmeasured is checked.
    assert readoff(client, sweep=sweep, tpot_ms=50)["results"][0]["goodput_tok_s_per_gpu"] == 180


def test_a_sweep_where_no_point_passes_says_why(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    result = readoff(client, sweep=sweep, ttft_ms=100)["results"][0]
    assert result["status"] == "fail" and result["meets_slo"] is False
    assert (
        result["reason"] == "no point meets the SLO: lightest load fails p90 TTFT 150 ms > 100 ms"
    )
    assert result["costs"] == []


def test_non_monotone_sweeps_take_the_best_passing_point_not_the_last(client: TestClient) -> None:
    data = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,tpot_p90_ms,output_tok_s\n"
        b"wobble,H100,2,4,10,12,1000\nwobble,H100,2,8,12,14,1800\n"
        b"wobble,H100,2,16,13,15,1500\nwobble,H100,2,32,30,40,2500\n"
    )
    [sweep] = upload_ids(client, ("wobble.csv", data))
    result = readoff(client, sweep=sweep, tpot_ms=20)["results"][0]
    assert result["goodput_tok_s_per_gpu"] == 900.0
    assert result["operating_point"]["concurrency"] == 8
    frontier = client.get("/api/frontier", params={"sweep": sweep}).json()["sweeps"][0]
    assert [p["concurrency"] for p in frontier["frontier"]] == [32, 8, 4]
    assert [p["concurrency"] for p in frontier["dominated"]] == [16]
    assert frontier["frontier"][0]["x"] == pytest.approx(1000 / 30)
    assert frontier["frontier"][0]["y"] == 1250.0


def test_o9_per_request_mode_counts_failures_as_misses(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("o9.csv", O9_POINTS), ("o9.requests.csv", O9_REQUESTS))
    params = {"sweep": sweep, "ttft_ms": 200, "tpot_ms": 50, "mode": "requests", "points": True}
    strict = readoff(client, **params)["results"][0]
    assert strict["meets_slo"] is False
    assert strict["points"][0]["attainment"] == 0.5
    assert strict["reason"].startswith("no point meets the SLO: lightest load fails attainment 50")
    loose = readoff(client, **params, attainment=0.5)["results"][0]
    assert loose["meets_slo"] is True
    assert loose["goodput_tok_s_per_gpu"] == pytest.approx(63.0)
    assert loose["goodput_requests_per_s"] == pytest.approx(1.0)


def test_per_request_mode_without_samples_is_unknown(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    result = readoff(client, sweep=sweep, tpot_ms=35, mode="requests")["results"][0]
    assert result["status"] == "unknown" and result["meets_slo"] is None
    assert result["reason"] == "4 points unknown: no request samples"


def test_costs_under_rental_and_ownership_profiles_and_an_inline_price(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    rental = client.post(
        "/api/pricing", json={"name": "r", "kind": "rental", "usd_per_gpu_hour": 2.0}
    ).json()
    owned = client.post(
        "/api/pricing",
        json={
            "name": "o",
            "kind": "ownership",
            "capex_usd": 40000,
            "life_years": 4,
            "cost_of_capital": 0.1,
            "power_kw": 1.0,
            "pue": 1.3,
            "usd_per_kwh": 0.08,
            "colo_usd_per_kw_month": 150,
            "utilization": 0.7,
        },
    ).json()
    body = readoff(
        client,
        sweep=sweep,
        tpot_ms=35,
        ttft_ms=300,
        pricing=[rental["id"], owned["id"]],
        usd_per_gpu_hour=1.3,
    )
    costs = body["results"][0]["costs"]
    assert [c["profile_id"] for c in costs] == [rental["id"], owned["id"], None]
    # $/Mtok = hourly × 1e6 / (3600 × 3200 × utilization)
    assert costs[0]["usd_per_mtok"] == pytest.approx(2.0 * 1e6 / (3600 * 3200))
    assert costs[1]["usd_per_mtok"] == pytest.approx(1.749985 * 1e6 / (3600 * 3200 * 0.7), rel=1e-6)
    assert costs[2]["usd_per_mtok"] == pytest.approx(1.3 * 1e6 / (3600 * 3200))


def test_a_profile_for_other_hardware_prices_nothing(client: TestClient, session: Any) -> None:
    from app.store.models import Hardware

    session.add(Hardware(key="B200", name="B200"))
    session.commit()
    [sweep] = upload_ids(client, ("o11.csv", O11))
    other = client.post(
        "/api/pricing",
        json={"name": "b", "kind": "rental", "hardware": "B200", "usd_per_gpu_hour": 3},
    ).json()
    [result] = readoff(client, sweep=sweep, tpot_ms=35, pricing=other["id"])["results"]
    assert result["costs"] == []  # the B200 price is not this H100 sweep's
    [cell] = result["price_cells"]
    assert (cell["usd_per_gpu_hour"], cell["usd_per_mtok"]) == (None, None)
    assert cell["reason"] == "no H100 price in this profile (it prices B200): enter $/GPU-hour"


def test_the_total_basis_uses_total_throughput(client: TestClient) -> None:
    data = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,tpot_p90_ms,output_tok_s,total_tok_s\n"
        b"t,H100,2,4,10,12,1000,9000\n"
    )
    [sweep] = upload_ids(client, ("t.csv", data))
    for basis, expected in (("output", 500.0), ("total", 4500.0), ("input", 4000.0)):
        result = readoff(client, sweep=sweep, tpot_ms=20, basis=basis)["results"][0]
        assert result["goodput_tok_s_per_gpu"] == expected


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"sweep": 999}, "sweep 999 does not exist"),
        ({}, "sweep"),
        ({"sweep": "abc"}, "sweep"),
        ({"sweep": 1, "tpot_ms": -5}, "tpot_ms"),
        ({"sweep": 1, "percentile": "p42"}, "percentile"),
        ({"sweep": 1, "tpot_ms": 40, "min_tok_s_user": 25}, "not both"),
        ({"sweep": 1, "pricing": 12345}, "pricing profile 12345 does not exist"),
        ({"sweep": 1, "price_set": "costr@1999-01-01"}, "price set costr@1999-01-01 does not"),
        ({"sweep": 1, "tpot_percentile": "p100"}, "tpot_percentile"),
        ({"sweep": 1, "attainment": 1.5}, "attainment"),
        ({"sweep": 1, "interpolation": "cubic"}, "interpolation"),
    ],
)
def test_bad_parameters_are_a_clear_4xx(
    client: TestClient, params: dict[str, Any], fragment: str
) -> None:
    upload_ids(client, ("o11.csv", O11))
    response = client.get("/api/readoff", params=params)
    assert 400 <= response.status_code < 500
    assert fragment in response.json()["detail"]


def test_tokens_per_mw_use_the_catalogs_all_in_power(client: TestClient, session: Any) -> None:
    from app.store.models import Hardware

    session.add(Hardware(key="H100", name="H100", allin_kw=1.6))
    session.commit()
    [sweep] = upload_ids(client, ("o11.csv", O11))
    result = readoff(client, sweep=sweep, tpot_ms=35, ttft_ms=300)["results"][0]
    assert result["tok_s_per_mw"] == pytest.approx(3200 * 1000 / 1.6)


# --- Issue 12: a percentile per limit, percentiles from samples, three states -----------------

VLLM = FIXTURES / "vllm"
STELLALEE = sorted(VLLM.glob("stellalee_openai-*qps-*.json"))


def upload_vllm(client: TestClient) -> int:
    files = [(p.name, p.read_bytes()) for p in STELLALEE if "infqps" not in p.name]
    response = post_files(client, *files, hardware="RTX4090", num_gpus=1)
    assert response.status_code == 201, response.text
    [sweep] = response.json()["sweeps"]
    return int(sweep["id"])


def test_a_vllm_file_without_p90_is_unknown_at_the_default_slo_not_failing(
    client: TestClient,
) -> None:
    sweep = upload_vllm(client)
    body = readoff(client, sweep=sweep, ttft_ms=500, tpot_ms=25, points=True)
    [result] = body["results"]
    assert body["slo"]["description"] == "p90 TTFT ≤ 500 ms, p90 TPOT ≤ 25 ms"
    assert result["status"] == "unknown"
    assert result["meets_slo"] is None
    assert result["goodput_tok_s_per_gpu"] is None
    assert result["reason"] == (
        "4 points unknown: p90 TTFT not measured: the file has TTFT at p50, p95, p99; check one "
        "of those, or upload per-request data; p90 TPOT not measured: the file has TPOT at p50, "
        "p95, p99; check one of those, or upload per-request data"
    )
    assert {p["status"] for p in result["points"]} == {"unknown"}


def test_a_vllm_file_gets_a_goodput_at_p99_ttft_and_median_tpot(client: TestClient) -> None:
    sweep = upload_vllm(client)
    params = {"ttft_percentile": "p99", "tpot_percentile": "p50", "points": True}
    body = readoff(client, sweep=sweep, ttft_ms=400, tpot_ms=20, **params)
    [result] = body["results"]
    assert body["slo"]["description"] == "p99 TTFT ≤ 400 ms, p50 TPOT ≤ 20 ms"
    assert (body["slo"]["ttft_percentile"], body["slo"]["tpot_percentile"]) == ("p99", "p50")
    assert body["slo"]["e2el_percentile"] == "p90"  # the default for a limit naming none
    # p99 TTFT 296.18, 315.02, 341.25, 409.36 ms; p50 TPOT 16.36, 16.95, 18.42, 23.87 ms:
    # 1, 2 and 4 req/s pass; 8 req/s fails both limits.
    assert [p["status"] for p in result["points"]] == ["pass", "pass", "pass", "fail"]
    assert result["status"] == "pass" and result["meets_slo"] is True
    assert result["goodput_tok_s_per_gpu"] == pytest.approx(365.80041687999716)
    assert result["operating_point"]["request_rate"] == 4.0
    # Fréchet with mixed percentiles: [max(0, 0.99 + 0.5 − 1), min(0.99, 0.5)] = [0.49, 0.5].
    assert result["joint_attainment_bounds"] == pytest.approx([0.49, 0.5])
    check = result["points"][2]["checks"][0]
    assert check == {
        "metric": "ttft",
        "percentile": "p99",
        "value_ms": pytest.approx(341.2537079000798),
        "limit_ms": 400.0,
        "status": "pass",
        "source": "stored",
        "n_samples": None,
        "n_without_tpot": 0,
        "bound": None,
    }


def test_percentiles_the_file_lacks_come_from_request_samples(client: TestClient) -> None:
    """O10: TTFTs [100, 120, 150, 180, 190, 250, 300] ms of 7 successes, linear interpolation."""
    [sweep] = upload_ids(client, ("o9.csv", O9_POINTS), ("o9.requests.csv", O9_REQUESTS))
    result = readoff(client, sweep=sweep, ttft_ms=200, tpot_ms=50, points=True)["results"][0]
    assert result["status"] == "fail" and result["meets_slo"] is False
    assert result["points"][0]["reason"] == (
        "p90 TTFT 270 ms > 200 ms (from 7 request samples); "
        "p90 TPOT 70 ms > 50 ms (from 6 request samples; 1 one-token request without a "
        "TPOT left out)"
    )
    # p75: index 4.5 → 190 + 0.5·60 = 220; p99.9: index 5.994 → 250 + 0.994·50 = 299.7.
    p75 = readoff(client, sweep=sweep, ttft_ms=220, percentile="p75", points=True)["results"][0]
    assert p75["status"] == "pass"
    assert p75["points"][0]["checks"][0]["value_ms"] == pytest.approx(220.0)
    assert p75["points"][0]["checks"][0]["source"] == "samples"
    assert p75["points"][0]["checks"][0]["n_samples"] == 7
    tail = readoff(client, sweep=sweep, ttft_ms=299, ttft_percentile="p99.9", points=True)
    assert tail["results"][0]["points"][0]["checks"][0]["value_ms"] == pytest.approx(299.7)
    assert tail["results"][0]["status"] == "fail"
    # Stored columns answer where they exist: the file's p50 TPOT is 40 ms.
    stored = readoff(client, sweep=sweep, tpot_ms=40, tpot_percentile="p50", points=True)
    check = stored["results"][0]["points"][0]["checks"][0]
    assert (check["value_ms"], check["source"], check["status"]) == (40.0, "stored", "pass")
    assert stored["results"][0]["goodput_tok_s_per_gpu"] == 88.0


def test_llmperf_samples_reproduce_the_tools_own_p75_ttft(client: TestClient) -> None:
    """LLMPerf's summary has p75 TTFT (pandas linear quantile); the columns stop at p50/90/95/99."""
    names = ("summary_anyscale_70b.json", "individual_anyscale_70b.json")
    files = [(n, (FIXTURES / "llmperf" / n).read_bytes()) for n in names]
    response = post_files(client, *files, hardware="A100", num_gpus=4)
    assert response.status_code == 201, response.text
    [sweep] = [s["id"] for s in response.json()["sweeps"]]
    summary = json.loads(files[0][1])
    body = readoff(client, sweep=sweep, ttft_ms=1000, percentile="p75", points=True)
    check = body["results"][0]["points"][0]["checks"][0]
    # The file's own p75 answers before its 150 request samples (which give the same value).
    assert check["source"] == "stored" and check["n_samples"] is None
    assert check["value_ms"] == summary["results_ttft_s_quantiles_p75"] * 1000
    assert check["value_ms"] == pytest.approx(297.314017250045)
    # p80 is not stored: the samples answer it, between the stored p75 and p90.
    body = readoff(client, sweep=sweep, ttft_ms=1000, percentile="p80", points=True)
    check = body["results"][0]["points"][0]["checks"][0]
    assert check["source"] == "samples" and check["n_samples"] == 150
    p90 = summary["results_ttft_s_quantiles_p90"] * 1000
    assert 297.314017250045 <= check["value_ms"] <= p90


def test_percentiles_outside_p50_to_p99_9_are_refused_in_words(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("o11.csv", O11))
    for bad in ("p100", "p49", "p99.99", "90", "median"):
        response = client.get("/api/readoff", params={"sweep": sweep, "ttft_percentile": bad})
        assert response.status_code == 422, bad
        assert response.json()["errors"] == [
            {"field": "ttft_percentile", "message": "percentiles go from p50 to p99.9, e.g. p99"}
        ]
    response = client.get("/api/readoff", params={"sweep": sweep, "percentile": "p12x"})
    assert response.json()["detail"] == "percentile: percentiles go from p50 to p99.9, e.g. p99"


def test_explores_form_names_a_bad_percentile_in_words_not_a_pattern(client: TestClient) -> None:
    response = client.get("/", params={"preset": "custom", "ttft_ms": 500, "tpot_percentile": "p9"})
    assert response.status_code == 422
    page = BeautifulSoup(response.text, "html.parser")
    text = " ".join(page.get_text(" ").split())
    assert "tpot_percentile: percentiles go from p50 to p99.9, e.g. p99" in text
    assert "pattern" not in text and "[0-9]" not in text


def test_a_read_off_or_export_naming_more_sweeps_than_allowed_is_refused_naming_the_field(
    client: TestClient,
) -> None:
    too_many = {"sweep": list(range(1, MAX_SWEEPS_ASKED + 2))}
    for path in ("/api/readoff", "/api/export/sweeps.csv", "/api/plan"):
        response = client.get(path, params=too_many)
        assert response.status_code == 422, path
        [error] = response.json()["errors"]
        assert error["field"] == "sweep"
        assert f"at most {MAX_SWEEPS_ASKED} items" in error["message"]
