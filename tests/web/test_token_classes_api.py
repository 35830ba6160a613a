"""/api/readoff's token classes (issue 50) on sweeps uploaded with cached input tokens."""

from __future__ import annotations

import math
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.schemas.answers.readoff import ReadoffOut
from app.store.models import PricingProfile
from tests.factories import post_files
from tests.helpers import soup, upload_ids

# Two loads on 2 GPUs; total − output = input throughput. The requests give cached tokens.
AGENTIC_POINTS = (
    b"sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,ttft_p90_ms,output_tok_s,"
    b"total_tok_s\n"
    b"agentic,H100,2,4,10.0,20,300,2000,20000\n"
    b"agentic,H100,2,8,10.0,30,450,3000,30000\n"
)
AGENTIC_REQUESTS = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok,cached_input_tokens\n"
    b"agentic,4,100,2000,100,9000,true,8100\n"
    b"agentic,4,120,2100,100,9000,true,8200\n"
    b"agentic,4,110,2050,100,9000,true,\n"
    b"agentic,8,200,3000,100,9000,true,7000\n"
    b"agentic,8,210,3100,100,9000,true,7300\n"
)
PRICES = {"usd_per_mtok_input": 1.0, "usd_per_mtok_cached_input": 0.1, "usd_per_mtok_output": 1.0}


def class_readoff(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/readoff", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    ReadoffOut.model_validate(body)  # every key documented
    return body


def test_the_operating_points_cached_share_is_its_requests_cached_over_input_tokens(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("a.csv", AGENTIC_POINTS), ("a.requests.csv", AGENTIC_REQUESTS))
    body = class_readoff(
        client, sweep=sweep, tpot_ms=35, tpot_percentile="p50", usd_per_gpu_hour=2.0, **PRICES
    )
    classes = body["results"][0]["token_classes"]
    # The operating point is concurrency 8: (7000 + 7300) / 18000 of its input was cached.
    assert classes["cached_input_share"] == 14300 / 18000
    assert classes["cached_input_source"] == "client"
    tok = classes["tok_s_per_gpu"]
    assert tok["output"] == 1500.0
    assert tok["uncached_input"] + tok["cached_input"] == pytest.approx(13500.0, rel=1e-15)
    assert tok["cached_input"] == pytest.approx(13500.0 * 14300 / 18000, rel=1e-15)
    revenue = classes["revenue_usd_per_gpu_hour"]
    by_hand = (tok["uncached_input"] * 1.0 + tok["cached_input"] * 0.1 + 1500 * 1.0) * 0.0036
    assert math.isclose(classes["revenue_total_usd_per_gpu_hour"], by_hand, rel_tol=1e-9)
    assert math.isclose(sum(revenue.values()), by_hand, rel_tol=1e-9)
    assert classes["blended_usd_per_mtok"] == pytest.approx(by_hand / (15000 * 0.0036))
    [even] = classes["break_even"]
    assert even["label"] == "$2/GPU-hour"
    scale = 2.0 / by_hand
    assert even["usd_per_mtok"]["cached_input"] == pytest.approx(0.1 * scale, rel=1e-12)
    assert even["usd_per_mtok"]["output"] == pytest.approx(scale, rel=1e-12)
    assert math.isclose(sum(even["gpu_usd_per_hour"].values()), 2.0, rel_tol=1e-9)
    assert "in proportion to their revenue" in classes["split_rule"]


def test_every_points_class_revenue_adds_up_to_its_total(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("a.csv", AGENTIC_POINTS), ("a.requests.csv", AGENTIC_REQUESTS))
    body = class_readoff(
        client, sweep=sweep, tpot_ms=35, tpot_percentile="p50", points=True, **PRICES
    )
    points = body["results"][0]["token_classes"]["points"]
    # The first load: the third request reports no cached tokens and is left out.
    assert points[0]["cached_input_share"] == 16300 / 18000
    for point in points:
        tok, revenue = point["tok_s_per_gpu"], point["revenue_usd_per_gpu_hour"]
        prices = {"uncached_input": 1.0, "cached_input": 0.1, "output": 1.0}
        total = sum(tok[k] * 0.0036 * prices[k] for k in prices)
        assert math.isclose(point["revenue_total_usd_per_gpu_hour"], total, rel_tol=1e-9)
        assert math.isclose(sum(revenue.values()), total, rel_tol=1e-9)


def test_a_cached_price_on_a_sweep_without_cached_tokens_is_unknown_with_the_reason(
    client: TestClient,
) -> None:
    plain = AGENTIC_POINTS.replace(b"agentic", b"plain")
    [sweep] = upload_ids(client, ("p.csv", plain))
    classes = class_readoff(client, sweep=sweep, tpot_ms=35, tpot_percentile="p50", **PRICES)[
        "results"
    ][0]["token_classes"]
    assert classes["cached_input_share"] is None
    assert classes["tok_s_per_gpu"] is None
    assert classes["revenue_reason"] == "the file reports no cached input tokens"
    # Without a cached price the input is one class, billed once at the input price.
    two = {"usd_per_mtok_input": 1.0, "usd_per_mtok_output": 4.0}
    classes = class_readoff(client, sweep=sweep, tpot_ms=35, tpot_percentile="p50", **two)[
        "results"
    ][0]["token_classes"]
    assert classes["tok_s_per_gpu"] == {
        "uncached_input": 13500.0,
        "cached_input": 0.0,
        "output": 1500.0,
    }
    assert classes["revenue_total_usd_per_gpu_hour"] == pytest.approx((13500 + 4 * 1500) * 0.0036)


def test_cached_tokens_above_the_input_length_are_refused_naming_the_row(
    client: TestClient,
) -> None:
    bad = AGENTIC_REQUESTS.replace(b"9000,true,7300", b"9000,true,9300")
    response = post_files(client, ("a.csv", AGENTIC_POINTS), ("a.requests.csv", bad))
    assert response.status_code == 422, response.text
    text = response.text
    assert "a.requests.csv" in text and "cached_input_tokens" in text
    assert "is above input_len" in text and "row 6" in text
    assert client.get("/api/sweeps").json()["sweeps"] == []


def test_a_negative_api_price_is_refused(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("a.csv", AGENTIC_POINTS))
    response = client.get("/api/readoff", params={"sweep": sweep, "usd_per_mtok_output": -1})
    assert response.status_code == 422
    assert "usd_per_mtok_output" in response.text


def test_explore_shows_cost_by_token_class_and_its_json_twin_agrees(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("a.csv", AGENTIC_POINTS), ("a.requests.csv", AGENTIC_REQUESTS))
    params = {
        "sweep": sweep,
        "picked": 1,
        "preset": "custom",
        "tpot_ms": 35,
        "tpot_percentile": "p50",
        "usd_per_gpu_hour": 2,
        **PRICES,
    }
    page = soup(client.get("/", params=params), 200)
    row = page.select_one("#token-classes tbody tr")
    assert row is not None
    assert row.select_one(".cached-share").get_text(strip=True) == "79.4 %"
    assert row.select_one(".cached-source").get_text(strip=True) == (
        "reported by the client (per-request usage)"
    )
    twin = client.get("/api/explore", params=params).json()["results"][0]["token_classes"]
    assert twin["cached_input_share"] == 14300 / 18000
    # 2,775 uncached × $1 + 10,725 cached × $0.10 + 1,500 output × $1 per 15,000 tokens.
    assert twin["blended_usd_per_mtok"] == pytest.approx(5347.5 / 15000, rel=1e-12)
    assert row.select_one(".blended").get_text(strip=True) == "$0.36"
    assert page.select_one("#p-cached")["value"] == "0.1"


def test_a_points_own_cached_tokens_and_theoretical_rate_are_checked_and_named(
    client: TestClient,
) -> None:
    head = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,total_tok_s,input_len,"
    good = head + b"cached_input_tokens\nx,H100,1,4,20,100,1000,900,720\n"
    [sweep] = upload_ids(client, ("x.csv", good))
    classes = class_readoff(client, sweep=sweep, tpot_ms=35, tpot_percentile="p50")["results"][0][
        "token_classes"
    ]
    assert (classes["cached_input_share"], classes["cached_input_source"]) == (0.8, "client")
    assert classes["cached_input_from"] == "the point's cached_input_tokens ÷ input_len"
    bad = head + b"cached_input_tokens\ny,H100,1,4,20,100,1000,900,950\n"
    response = post_files(client, ("y.csv", bad))
    assert response.status_code == 422, response.text
    assert "cached_input_tokens 950 is above input_len 900" in response.text
    rate = head + b"theoretical_cache_hit_rate\nz,H100,1,4,20,100,1000,900,1.5\n"
    response = post_files(client, ("z.csv", rate))
    assert response.status_code == 422, response.text
    assert "theoretical_cache_hit_rate 1.5 is not a fraction" in response.text


def test_exported_requests_carry_cached_tokens_and_import_back_as_the_same_sweep(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("a.csv", AGENTIC_POINTS), ("a.requests.csv", AGENTIC_REQUESTS))
    text = client.get("/api/export/requests.csv", params={"sweep": sweep}).text
    lines = text.splitlines()
    assert lines[0].endswith(",ok,session_id,turn_index,cached_input_tokens")
    assert lines[1].endswith(",true,,,8100") and lines[3].endswith(",true,,,")
    points = client.get("/api/export/sweeps.csv", params={"sweep": sweep}).content
    again = post_files(client, ("p.csv", points), ("r.requests.csv", text.encode()))
    assert again.status_code == 200, again.text
    assert [s["created"] for s in again.json()["sweeps"]] == [False]


def test_a_price_profile_carrying_class_prices_prices_the_mix_when_the_query_gives_none(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("a.csv", AGENTIC_POINTS), ("a.requests.csv", AGENTIC_REQUESTS))
    profile = {"name": "H100 API", "kind": "rental", "usd_per_gpu_hour": 2.0}
    created = client.post("/api/pricing", json={**profile, **PRICES})
    assert created.status_code in (200, 201), created.text
    assert created.json()["usd_per_mtok_cached_input"] == 0.1
    profile_id = created.json()["id"]
    body = class_readoff(client, sweep=sweep, tpot_ms=35, tpot_percentile="p50", pricing=profile_id)
    classes = body["results"][0]["token_classes"]
    assert classes["api_prices_from"] == "H100 API"
    assert classes["api_prices"] == {"uncached_input": 1.0, "cached_input": 0.1, "output": 1.0}
    [even] = classes["break_even"]
    scale = 2.0 / (5347.5 * 0.0036)
    assert even["usd_per_mtok"]["output"] == pytest.approx(scale, rel=1e-12)
    # The query's own prices win over the profile's.
    own = class_readoff(
        client,
        sweep=sweep,
        tpot_ms=35,
        tpot_percentile="p50",
        pricing=profile_id,
        usd_per_mtok_input=2.0,
        usd_per_mtok_cached_input=0.5,
        usd_per_mtok_output=8.0,
    )["results"][0]["token_classes"]
    assert own["api_prices_from"] == "query"
    assert own["api_prices"]["output"] == 8.0


def test_the_pricing_page_form_stores_class_prices(client: TestClient, session: Session) -> None:
    form = {"name": "api", "kind": "rental", "usd_per_gpu_hour": "2", "usd_per_mtok_output": "4"}
    ok = client.post("/pricing", data={**form, "usd_per_mtok_cached_input": "0.1"})
    assert ok.status_code in (200, 303), ok.text
    stored = session.query(PricingProfile).one()
    assert (stored.usd_per_mtok_input, stored.usd_per_mtok_cached_input) == (None, 0.1)
    assert stored.usd_per_mtok_output == 4.0
    page = soup(client.get("/pricing"), 200)
    label = page.find("input", attrs={"name": "usd_per_mtok_cached_input"}).parent
    assert label.get_text(strip=True) == "API price, cached input ($/Mtok)"
