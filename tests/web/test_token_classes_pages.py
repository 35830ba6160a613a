"""Cost by token class on Compare and Plan and their JSON twins, the class prices carried across
pages, and InferenceX-app#943's example reproduced from a fixture of its own mix (issue 50)."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.schemas.answers.compare import CompareAnswer
from app.schemas.answers.plan import PlanOut
from tests.helpers import soup, upload_ids

PR943 = Path(__file__).resolve().parent.parent / "fixtures" / "canonical" / "pr943_agentic_b200.csv"
# InferenceX-app#943's normalized API prices: $1/M uncached input and output, $0.10/M cached.
NORMALIZED = {
    "usd_per_mtok_input": 1.0,
    "usd_per_mtok_cached_input": 0.1,
    "usd_per_mtok_output": 1.0,
}
SLO = {"preset": "custom", "tpot_ms": 60, "tpot_percentile": "p50", "ttft_ms": 500}
SECOND = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p90_ms,output_tok_s,total_tok_s,"
    b"prefix_cache_hit_rate\n"
    b"second-b200,B200,8,16,40,300,2400,8000,0.5\n"
)


def pr943_sweep(client: TestClient) -> int:
    [sweep] = upload_ids(client, (PR943.name, PR943.read_bytes()))
    return sweep


def classes_of(client: TestClient, sweep: int, **prices: float) -> dict[str, Any]:
    params: dict[str, Any] = {"sweep": sweep, "tpot_ms": 60, "tpot_percentile": "p50", **prices}
    response = client.get("/api/readoff", params=params)
    assert response.status_code == 200, response.text
    classes: dict[str, Any] = response.json()["results"][0]["token_classes"]
    return classes


def test_the_pr943_fixture_reproduces_its_tokens_per_dollar_to_half_a_percent(
    client: TestClient,
) -> None:
    classes = classes_of(client, pr943_sweep(client), **NORMALIZED)
    assert (classes["cached_input_share"], classes["cached_input_source"]) == (0.9, "measured")
    assert classes["tok_s_per_gpu"]["output"] == 200.0
    assert classes["tok_s_per_gpu"]["cached_input"] == pytest.approx(720.0, rel=1e-12)
    assert classes["tok_s_per_gpu"]["uncached_input"] == pytest.approx(80.0, rel=1e-12)
    # #943's test: toBeCloseTo(1.2672) $/GPU-hour at its normalized prices.
    assert classes["revenue_total_usd_per_gpu_hour"] == pytest.approx(1.2672, abs=1e-10)
    # Its Total Tokens per $1: 3,600,000 tokens an hour ÷ $1.2672 = 2,840,909 tokens.
    assert classes["tokens_per_usd"] == pytest.approx(2_840_909, rel=0.005)
    assert math.isclose(classes["tokens_per_usd"], 3_600_000 / 1.2672, rel_tol=1e-12)
    # Cached tokens billed once: all input at $1/M would be 1,000,000 tokens per $1.
    assert classes["tokens_per_usd"] > 2.8 * 1_000_000


def test_the_pr943_fixture_at_its_second_price_list_earns_its_stated_revenue(
    client: TestClient,
) -> None:
    prices = {
        "usd_per_mtok_input": 2.0,
        "usd_per_mtok_cached_input": 0.2,
        "usd_per_mtok_output": 10.0,
    }
    classes = classes_of(client, pr943_sweep(client), **prices)
    # 80 fresh input tok/s at $2/M, 720 cached at $0.2/M, 200 output at $10/M (#943's test).
    assert classes["revenue_total_usd_per_gpu_hour"] == pytest.approx(8.2944, abs=1e-10)
    revenue = classes["revenue_usd_per_gpu_hour"]
    assert math.isclose(sum(revenue.values()), 8.2944, rel_tol=1e-9)


def both_sweeps(client: TestClient) -> list[int]:
    [second] = upload_ids(client, ("second.csv", SECOND))
    return [pr943_sweep(client), second]


def test_compare_shows_each_systems_cost_by_token_class_and_its_twin_agrees(
    client: TestClient,
) -> None:
    sweeps = both_sweeps(client)
    params = {"sweep": sweeps, "picked": 1, **SLO, "usd_per_gpu_hour": 2, **NORMALIZED}
    page = soup(client.get("/compare", params=params), 200)
    rows = page.select("#compare-classes #token-classes tbody tr")
    assert [r["data-sweep"] for r in rows] == [str(s) for s in sweeps]
    assert [r.select_one(".cached-share").get_text(strip=True) for r in rows] == ["90 %", "50 %"]
    assert rows[0].select_one(".tokens-per-usd").get_text(strip=True) == "2,840,909"
    body = client.get("/api/compare", params=params).json()
    CompareAnswer.model_validate(body)
    twin = {c["sweep_id"]: c for c in body["token_classes"]}
    assert twin[sweeps[0]]["revenue_total_usd_per_gpu_hour"] == pytest.approx(1.2672, abs=1e-10)
    # The second, per GPU: 700 input tok/s, half cached, and 300 output: 350 × $1 + 350 × $0.10
    # + 300 × $1 = $685 per Mtok-second ⇒ 685 × 3,600 ÷ 10⁶ = $2.466 an hour.
    assert twin[sweeps[1]]["revenue_total_usd_per_gpu_hour"] == pytest.approx(2.466, rel=1e-12)
    [even] = twin[sweeps[0]]["break_even"]
    assert even["usd_per_mtok"]["output"] == pytest.approx(2.0 / 1.2672, rel=1e-12)


def test_plan_shows_each_systems_cost_by_token_class_and_api_plan_agrees(
    client: TestClient,
) -> None:
    sweeps = both_sweeps(client)
    page_params = {"sweep": sweeps, "picked": 1, **SLO, "usd_per_gpu_hour": 2, **NORMALIZED}
    page = soup(client.get("/plan", params=page_params), 200)
    rows = page.select("#plan-classes #token-classes tbody tr")
    assert [r["data-sweep"] for r in rows] == [str(s) for s in sweeps]
    assert rows[0].select_one(".blended").get_text(strip=True) == "$0.35"
    api = {
        "sweep": sweeps,
        "requests_per_s": 1,
        "tpot_ms": 60,
        "tpot_percentile": "p50",
        "usd_per_gpu_hour": 2,
        **NORMALIZED,
    }
    body = client.get("/api/plan", params=api).json()
    PlanOut.model_validate(body)
    twin = {c["sweep_id"]: c for c in body["token_classes"]}
    # 1.2672 $/GPU-hour over 3.6 Mtok: $0.352 per Mtok of the mix.
    assert twin[sweeps[0]]["blended_usd_per_mtok"] == pytest.approx(0.352, rel=1e-12)
    assert twin[sweeps[0]]["api_prices_from"] == "query"


def test_the_class_prices_follow_the_user_from_explore_to_compare_and_plan(
    client: TestClient,
) -> None:
    sweeps = both_sweeps(client)
    params = {"sweep": sweeps, "picked": 1, **SLO, **NORMALIZED}
    page = soup(client.get("/", params=params), 200)
    for link in ("#compare-these", "#plan-these"):
        query = parse_qs(urlsplit(page.select_one(link)["href"]).query)
        assert query["usd_per_mtok_input"] == ["1"]
        assert query["usd_per_mtok_cached_input"] == ["0.1"]
        assert query["usd_per_mtok_output"] == ["1"]
    compare = soup(client.get("/compare", params=params), 200)
    assert compare.select_one("#p-cached")["value"] == "0.1"
    back = parse_qs(urlsplit(compare.select_one("#plan-these")["href"]).query)
    assert back["usd_per_mtok_cached_input"] == ["0.1"]
    plan = soup(client.get("/plan", params=params), 200)
    assert plan.select_one("#p-out")["value"] == "1"


def test_compare_without_class_prices_or_cached_input_has_no_class_table(
    client: TestClient,
) -> None:
    plain = SECOND.replace(b",prefix_cache_hit_rate", b"").replace(b",0.5\n", b"\n")
    [a] = upload_ids(client, ("a.csv", plain))
    [b] = upload_ids(client, ("b.csv", plain.replace(b"second-b200", b"third-b200")))
    params = {"sweep": [a, b], "picked": 1, **SLO, "usd_per_gpu_hour": 2}
    assert client.get("/api/compare", params=params).json()["token_classes"] == []
    assert soup(client.get("/compare", params=params), 200).select_one("#compare-classes") is None


def test_compares_exports_carry_the_class_prices_and_their_columns(client: TestClient) -> None:
    sweeps = both_sweeps(client)
    params = {"sweep": sweeps, "picked": 1, **SLO, "usd_per_gpu_hour": 2, **NORMALIZED}
    page = soup(client.get("/compare", params=params), 200)
    csv_link = next(a["href"] for a in page.select("a") if a.get_text() == "read-off CSV")
    assert "usd_per_mtok_cached_input=0.1" in csv_link
    rows = list(csv.DictReader(io.StringIO(client.get(csv_link).text)))
    first = next(r for r in rows if "pr943" in r["sweep"])
    assert float(first["tokens_per_usd"]) == pytest.approx(3_600_000 / 1.2672, rel=1e-9)
    report = client.get("/report", params={"view": "compare", **params})
    assert report.status_code == 200
    shown = soup(report.text).select("#compare-classes #token-classes tbody tr")
    assert [r["data-sweep"] for r in shown] == [str(s) for s in sweeps]
