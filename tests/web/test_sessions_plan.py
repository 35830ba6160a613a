"""Plan sized in concurrent sessions (issue 49): replicas for N agents at the SLO and the
session-attainment target, with the fleet the Wilson interval's lower end sizes, hand-counted
on tests.web.test_sessions_api's agentic fixture."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.helpers import soup
from tests.web.test_sessions_api import stored_agentic

# TTFT ≤ 500 ms at p90, 80 % of sessions: at concurrency 16, 80 of 95 judged sessions met every
# turn (84.2 %, Wilson 95 % [75.6 %, 90.2 %]); at 8, 100 of 100 (lower end 96.3 %).
SLO = "ttft_ms=500&attainment=0.8&usd_per_gpu_hour=2"


def test_plan_sizes_forty_agents_from_the_sessions_with_the_interval(
    client: TestClient, seeded: None
) -> None:
    ids = stored_agentic(client)
    url = f"/api/plan?sweep={ids['agents']}&concurrent_sessions=40&headroom=0.25&{SLO}"
    body = client.get(url).json()
    assert body["demand"]["unit"] == "concurrent_sessions"
    assert body["demand"]["sized_for"] == 50.0
    [r] = body["results"]
    # 16 sessions per replica: ⌈40 × 1.25 ÷ 16⌉ = 4 replicas of 8 GPUs.
    assert (r["status"], r["goodput_per_replica"], r["replicas"], r["gpus"]) == ("pass", 16, 4, 32)
    assert r["utilization_peak"] == 40 / 64
    agents = r["agents"]
    assert agents["target"] == 0.8
    assert (agents["count"], agents["cut"]) == (95, 5)
    assert agents["attainment"] == 80 / 95
    assert agents["attainment_low"] == pytest.approx(0.7557039468613879, abs=1e-12)
    assert agents["attainment_high"] == pytest.approx(0.9019148375589726, abs=1e-12)
    # The lower end meets 80 % only at 8 sessions: ⌈50 ÷ 8⌉ = 7 replicas, 56 GPUs.
    assert agents["concurrent_sessions_per_replica_conservative"] == 8
    assert (agents["replicas_conservative"], agents["gpus_conservative"]) == (7, 56)
    # 32 GPUs × $2 × 730 h; each session sends 15 ÷ 16 req/s at that load, of 100 tokens.
    assert r["usd_per_month"] == 32 * 2 * 730
    assert r["demand_requests_per_s_average"] == 40 * 15 / 16
    [cost] = r["costs"]
    tokens_per_month = 37.5 * 100 * 730 * 3600
    assert cost["usd_per_mtok_average"] == pytest.approx(46_720 / tokens_per_month * 1e6)
    assert r["kw"] == pytest.approx(32 * 1.73)
    assert body["cheapest"]["sweep_id"] == ids["agents"]


def test_a_session_target_no_load_meets_fails_and_a_fixed_length_run_is_unknown(
    client: TestClient, seeded: None
) -> None:
    ids = stored_agentic(client)
    sweeps = f"sweep={ids['agents']}&sweep={ids['plain']}&allow_different=1"
    body = client.get(f"/api/plan?{sweeps}&concurrent_sessions=10&ttft_ms=100").json()
    agents, plain = body["results"]
    assert (agents["status"], agents["reason"]) == ("fail", "no load level has 90% of sessions met")
    assert agents["replicas"] is None and agents["agents"] is None
    assert plain["status"] == "unknown"
    assert plain["reason"] == (
        "not a multi-turn run: concurrent sessions are sized only from request samples that "
        "carry session ids"
    )
    assert body["cheapest"] is None


def test_the_plan_page_sizes_in_concurrent_sessions_and_links_its_json(
    client: TestClient, seeded: None
) -> None:
    ids = stored_agentic(client)
    page = soup(
        client.get(
            f"/plan?sweep={ids['agents']}&picked=1&demand=40&demand_unit=concurrent_sessions"
            f"&preset=custom&{SLO}"
        ).text
    )
    selected = page.select_one("#d-unit option[selected]")
    assert selected is not None and selected["value"] == "concurrent_sessions"
    assert (
        page.select_one("#plan-summary h2")
        .get_text(" ", strip=True)
        .startswith("Fleet for 40 concurrent sessions on average")
    )
    row = page.select_one("#plan-table tr.plan-row")
    assert row.select_one("td.replicas").contents[0].strip() == "3"
    assert row.select_one(".agents-attainment").get_text(" ", strip=True) == (
        "84.2 % of 95 sessions met every turn [75.6 %, 90.2 %], 5 cut sessions apart · target 80 %"
    )
    assert row.select_one(".replicas-conservative").get_text(" ", strip=True) == (
        "5 (40 GPUs) if the interval's lower end must meet the target: 8 sessions each"
    )
    link = page.find("a", string="This plan as JSON")["href"]
    assert "concurrent_sessions=40" in link
    assert client.get(link).json()["results"][0]["replicas"] == 3
