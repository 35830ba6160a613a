"""/plan on SQLite and Postgres, read as parsed HTML: the table, the cheapest mark, the chart."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.numbers import fmt_usd
from app.domain.plan import HOURS_PER_MONTH
from app.store.models import PricingProfile
from tests.helpers import upload_ids

# A hostile name: it must reach the chart only as escaped JSON, never as markup or script.
HOSTILE = "</script><script>alert(1)</script>"
PAIR = (
    "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,requests_per_s\n"
    f'"{HOSTILE}",H100,1,8,20,1000,10\n'
    "large,H200,2,8,20,2500,25\n"
    "slow,H100,1,8,90,500,5\n"
    "norate,H100,1,8,20,500,\n"
).encode()
QUERY = {
    "picked": "1",
    "preset": "custom",
    "tpot_ms": "30",
    "percentile": "p50",
    "demand": "20",
    "demand_unit": "requests_per_s",
    "usd_per_gpu_hour": "2",
}


def plan_page(client: TestClient, **params: Any) -> BeautifulSoup:
    response = client.get("/plan", params=params)
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def test_the_plan_page_marks_the_cheapest_option_and_explains_the_failing_one(
    client: TestClient,
) -> None:
    small, large, slow, norate = upload_ids(client, ("pair.csv", PAIR))
    soup = plan_page(client, sweep=[small, large, slow, norate], **QUERY)
    rows = {int(tr["data-sweep"]): tr for tr in soup.select("#plan-table tbody tr")}
    assert list(rows) == [small, large, slow, norate]
    cells = {
        sid: [tr.select_one(f"td.{c}").get_text(" ", strip=True) for c in ("replicas", "gpus")]
        for sid, tr in rows.items()
    }
    # 20 req/s: small ⌈20/10⌉ = 2 replicas of 1 GPU, large ⌈20/25⌉ = 1 of 2 GPUs; both $2,920.
    assert cells == {
        small: ["2", "2"],
        large: ["1", "2"],
        slow: ["–", "–"],
        norate: ["–", "–"],
    }
    assert "cheapest" in rows[small]["class"]
    assert rows[small].select_one(".cheapest-mark").get_text(strip=True) == "★ cheapest"
    assert rows[large].select_one(".cheapest-mark") is None
    assert rows[small].select_one(".cost.cheapest").get_text(" ", strip=True).startswith("★ $2,920")
    assert rows[slow].select_one("td.status").get_text(" ", strip=True).startswith("fails SLO")
    assert "lightest load fails" in rows[slow].select_one(".reason").get_text()
    # Meeting the SLO without a measured request rate cannot be sized: unknown, with why.
    status = rows[norate].select_one("td.status").get_text(" ", strip=True)
    assert status.startswith("unknown")
    assert "request throughput was not measured there" in status
    banner = soup.select_one("#plan-cheapest").get_text(" ", strip=True)
    assert "$2,920/month" in banner and "2 replicas" in banner


def test_the_chart_reaches_the_page_only_as_escaped_json(client: TestClient) -> None:
    small, large, *_ = upload_ids(client, ("pair.csv", PAIR))
    response = client.get("/plan", params={"sweep": [small, large], **QUERY})
    assert HOSTILE not in response.text
    soup = BeautifulSoup(response.text, "html.parser")
    assert not soup.select("script:not([src]):not([type='application/json'])")
    source = soup.select_one("script#plan-figure")
    assert source["type"] == "application/json"
    assert soup.select_one("#plan-chart")["data-figure"] == "plan-figure"
    figure = json.loads(source.string)
    lines = [t for t in figure["data"] if t["mode"] == "lines"]
    assert [t["x"][:3] for t in lines] == [[2.0, 10.0, 20.0], [2.0, 25.0, 50.0]]
    assert lines[0]["name"].startswith(HOSTILE)  # intact after JSON decoding
    assert figure["layout"]["xaxis"]["type"] == "log"
    crossings = [li.get_text(" ", strip=True) for li in soup.select("#plan-crossovers li")]
    starts = [c.split(" req/s")[0] for c in crossings]
    assert starts == ["Above 20", "Above 25", "Above 40"]


def test_the_json_link_gives_the_same_plan(client: TestClient) -> None:
    small, large, *_ = upload_ids(client, ("pair.csv", PAIR))
    soup = plan_page(client, sweep=[small, large], **QUERY)
    href = soup.find("a", string="This plan as JSON")["href"]
    body = client.get(href).json()
    assert [(r["sweep_id"], r["replicas"], r["gpus"]) for r in body["results"]] == [
        (small, 2, 2),
        (large, 1, 2),
    ]
    assert body["cheapest"]["sweep_id"] == small


def test_an_htmx_update_swaps_the_view_and_pushes_the_named_demand(
    hx_client: TestClient,
) -> None:
    small, large, *_ = upload_ids(hx_client, ("pair.csv", PAIR))
    response = hx_client.get("/plan", params={"sweep": [small, large], **{**QUERY, "demand": "30"}})
    assert response.status_code == 200
    assert "<html" not in response.text
    soup = BeautifulSoup(response.text, "html.parser")
    assert soup.select_one("#plan > form#plan-form") is not None
    assert "requests_per_s=30" in response.headers["HX-Push-Url"]
    # 30 req/s: small needs 3 replicas ($4,380), large 2 ($5,840): small is cheapest.
    rows = {int(tr["data-sweep"]): tr for tr in soup.select("#plan-table tbody tr")}
    assert "cheapest" in rows[small]["class"]


def test_a_first_visit_plans_a_default_demand_and_bad_demand_is_a_422(
    client: TestClient,
) -> None:
    upload_ids(client, ("pair.csv", PAIR))
    soup = plan_page(client)
    assert soup.select_one("#d-value")["value"] == "10"
    assert soup.select_one("#d-unit option[selected]")["value"] == "requests_per_s"
    assert soup.select_one("nav a[href^='/plan?']") is not None
    bad = client.get("/plan", params={**QUERY, "demand": "-3"})
    assert bad.status_code == 422
    assert "requests_per_s" in bad.text
    unit = client.get("/plan", params={**QUERY, "demand_unit": "gpus"})
    assert unit.status_code == 422
    assert "demand_unit" in unit.text


def test_every_plan_definition_is_on_the_metrics_page(client: TestClient) -> None:
    soup = page_metrics(client)
    for anchor in (
        "plan-demand",
        "plan-goodput",
        "plan-replicas",
        "plan-utilization",
        "plan-cost",
        "plan-usd-per-mtok",
        "plan-power",
        "plan-crossover",
        "plan-status",
    ):
        assert soup.select_one(f"section#{anchor} code") is not None, anchor
    text = soup.select_one("section#plan-demand").get_text(" ", strip=True)
    assert "peak = average × peak_to_average" in text


def page_metrics(client: TestClient) -> BeautifulSoup:
    response = client.get("/metrics")
    assert response.status_code == 200
    return BeautifulSoup(response.text, "html.parser")


def test_a_plan_priced_by_an_all_in_ownership_set_costs_the_fleet_without_a_breakdown(
    client: TestClient, seeded: None, session: Session
) -> None:
    """InferenceX's ownership tiers are one all-in $/GPU-hour, no capex parts: the plan prices
    the fleet at it and lists no breakdown (it answered 500 before, found by issue 47's links)."""
    [small, *_] = upload_ids(client, ("pair.csv", PAIR))
    query = {**QUERY, "usd_per_gpu_hour": "", "price_set": "costh@2026-07-31"}
    soup = plan_page(client, sweep=[small], **query)
    [profile] = session.scalars(
        select(PricingProfile).where(
            PricingProfile.tier == "costh",
            PricingProfile.as_of == date(2026, 7, 31),
            PricingProfile.hardware == "H100",
        )
    )
    assert profile.kind == "ownership" and profile.capex_usd is None
    # 20 req/s at 10 per replica of 1 GPU: 2 GPUs, all month.
    expected = fmt_usd(float(profile.usd_per_gpu_hour) * 2 * HOURS_PER_MONTH)
    cost = soup.select_one(f"#plan-table tbody tr[data-sweep='{small}'] td.costs")
    assert cost is not None and expected in cost.get_text(" ", strip=True)
    assert "ownership breakdown" not in cost.get_text()
