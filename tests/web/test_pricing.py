"""/api/pricing and /pricing: profiles with their hourly breakdown, validated, editable."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event
from sqlalchemy.orm import Session

from app.store import pricing as pricing_queries
from app.store.models import PricingProfile
from app.store.sweeps import NotFound

O3_OWNERSHIP = {
    "name": "Own H100 (O3)",
    "kind": "ownership",
    "hardware": "H100",
    "capex_usd": 40000,
    "life_years": 4,
    "cost_of_capital": 0.10,
    "power_kw": 1.0,
    "pue": 1.3,
    "usd_per_kwh": 0.08,
    "colo_usd_per_kw_month": 150,
    "other_opex_pct_per_year": 0,
    "utilization": 0.7,
}


pytestmark = pytest.mark.usefixtures("h100")  # every test prices an H100


def test_an_ownership_profile_answers_with_the_o3_breakdown(client: TestClient) -> None:
    response = client.post("/api/pricing", json=O3_OWNERSHIP)
    assert response.status_code == 201, response.text
    cost = response.json()["hourly_cost"]
    assert cost["capital_usd_per_hour"] == pytest.approx(1.440506, abs=5e-7)
    assert cost["power_usd_per_hour"] == pytest.approx(0.104, abs=1e-12)
    assert cost["colo_usd_per_hour"] == pytest.approx(0.205479, abs=5e-7)
    assert cost["total_usd_per_gpu_hour"] == pytest.approx(1.749985, abs=5e-7)
    assert cost["usd_per_useful_gpu_hour"] == pytest.approx(2.499979, abs=5e-7)


def test_a_rental_profile_round_trips_and_can_be_updated_and_deleted(
    client: TestClient, session: Session
) -> None:
    created = client.post(
        "/api/pricing",
        json={"name": "H100 spot", "kind": "rental", "hardware": "H100", "usd_per_gpu_hour": 2.0},
    ).json()
    assert created["hourly_cost"]["total_usd_per_gpu_hour"] == 2.0
    assert created["utilization"] == 1.0
    profile_id = created["id"]
    updated = client.put(
        f"/api/pricing/{profile_id}",
        json={"name": "H100 spot", "kind": "rental", "usd_per_gpu_hour": 2.5, "utilization": 0.5},
    ).json()
    assert updated["hourly_cost"]["usd_per_useful_gpu_hour"] == 5.0
    assert client.get(f"/api/pricing/{profile_id}").json()["usd_per_gpu_hour"] == 2.5
    assert client.delete(f"/api/pricing/{profile_id}").status_code == 204
    assert client.get(f"/api/pricing/{profile_id}").status_code == 404
    assert session.query(PricingProfile).count() == 0


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"name": "x", "kind": "rental"}, "needs usd_per_gpu_hour"),
        ({"name": "x", "kind": "rental", "usd_per_gpu_hour": -1}, "usd_per_gpu_hour"),
        ({"name": "x", "kind": "ownership", "capex_usd": 1}, "needs life_years"),
        ({**O3_OWNERSHIP, "utilization": 1.5}, "utilization"),
        ({**O3_OWNERSHIP, "pue": 0.5}, "pue"),
        ({**O3_OWNERSHIP, "hardware": "H999"}, "'H999' is not in the hardware catalog"),
        ({"name": "x", "kind": "lease", "usd_per_gpu_hour": 1}, "kind"),
    ],
)
def test_bad_profiles_are_refused_and_nothing_is_stored(
    client: TestClient, session: Session, body: dict[str, object], fragment: str
) -> None:
    response = client.post("/api/pricing", json=body)
    assert response.status_code == 422
    assert fragment in response.json()["detail"]
    assert session.query(PricingProfile).count() == 0


def test_break_even_prices_match_oracle_o14(client: TestClient) -> None:
    profile = client.post(
        "/api/pricing", json={"name": "r", "kind": "rental", "usd_per_gpu_hour": 2.0}
    ).json()
    result = client.get(
        f"/api/pricing/{profile['id']}/break-even",
        params={
            "output_tok_s_per_gpu": 2500,
            "input_tok_s_per_gpu": 2500,
            "output_to_input_ratio": 4,
        },
    ).json()
    assert result["usd_per_mtok_input"] == pytest.approx(0.044444, abs=5e-7)
    assert result["usd_per_mtok_output"] == pytest.approx(0.177778, abs=5e-7)


def test_the_page_lists_profiles_with_their_breakdown(client: TestClient) -> None:
    client.post("/api/pricing", json=O3_OWNERSHIP)
    page = BeautifulSoup(client.get("/pricing").text, "html.parser")
    cells = [td.text.strip() for td in page.select("#profiles-table tbody tr")[0].select("td")]
    assert cells[:10] == [
        "Own H100 (O3)",
        "ownership",
        "H100",
        "$1.44",
        "$0.10",
        "$0.21",
        "$0",
        "$1.75",
        "70 %",
        "$2.50",
    ]
    assert page.select_one("#hardware-table tbody td").text == "H100"


def test_the_page_form_creates_and_reports_errors(client: TestClient, session: Session) -> None:
    bad = client.post("/pricing", data={"name": "x", "kind": "rental", "usd_per_gpu_hour": ""})
    assert bad.status_code == 422
    errors = BeautifulSoup(bad.text, "html.parser").select("#profile-form .alert-error li")
    assert [e.text for e in errors] == ["a rental profile needs usd_per_gpu_hour"]
    ok = client.post(
        "/pricing",
        data={"name": "x", "kind": "rental", "usd_per_gpu_hour": "3.1", "hardware": "H100"},
        follow_redirects=False,
    )
    assert ok.status_code == 303
    assert session.query(PricingProfile).one().usd_per_gpu_hour == 3.1


def test_profiles_a_session_already_loaded_are_priced_without_asking_again(
    client: TestClient, session: Session, engine: Engine
) -> None:
    ids = [
        client.post("/api/pricing", json={**O3_OWNERSHIP, "name": f"Own {i}"}).json()["id"]
        for i in range(3)
    ]
    asked: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        asked.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        listed = pricing_queries.list_profiles(session)
        assert len(asked) == 1
        got = pricing_queries.get_profiles(session, [ids[2], ids[0], ids[2]])
        assert len(asked) == 1  # all three from the session's identity map
        assert [p.id for p in got] == [ids[2], ids[0], ids[2]]
        assert {p.id for p in listed} >= set(ids)
        with Session(engine) as fresh:  # nothing loaded: one query, in the order asked
            assert [p.id for p in pricing_queries.get_profiles(fresh, ids[::-1])] == ids[::-1]
            assert len(asked) == 2
            with pytest.raises(NotFound, match="pricing profile 999999 does not exist"):
                pricing_queries.get_profiles(fresh, [ids[0], 999999])
    finally:
        event.remove(engine, "before_cursor_execute", note)
