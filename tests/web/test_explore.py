"""Explore (/): seeded frontiers and read-offs, SLO changes through htmx, URL state, JSON twin."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.services.seed import seed
from tests.factories import post_files
from tests.web.test_readoff_api import O11


@pytest.fixture
def seeded(session: Session) -> None:
    seed(session)
    session.commit()


def soup(text: str) -> BeautifulSoup:
    return BeautifulSoup(text, "html.parser")


def figure(page: BeautifulSoup) -> dict[str, Any]:
    return json.loads(page.select_one("#pareto-figure").string)


def test_a_fresh_visit_shows_seeded_frontiers_with_the_chat_preset(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/").text)
    rows = page.select("#readoff-table tbody tr")
    # The largest comparable group: the six demo Llama 3.1 70B 1k/1k systems.
    names = [tr.select_one("td a").text for tr in rows]
    assert len(names) == 6
    assert all(n.startswith("Demo · Llama 3.1 70B") for n in names)
    assert page.select_one("#slo-preset option[selected]")["value"] == "chat-interactive"
    assert page.select_one("#slo-ttft")["value"] == "500.0"
    fig = figure(page)
    frontiers = [t for t in fig["data"] if t["mode"] == "lines+markers"]
    assert len(frontiers) == 6
    assert all(len(t["x"]) == len(t["y"]) >= 1 for t in frontiers)
    assert fig["layout"]["shapes"][0]["x1"] == pytest.approx(25.0)  # 1000 / 40 ms
    assert "$/Mtok" in page.select_one("#readoff-table thead").text


def test_the_table_shows_the_same_numbers_as_the_readoff_api(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/?sweep=2&sweep=3&picked=1&ttft_ms=500&tpot_ms=40&preset=custom").text)
    shown = {
        int(tr["data-sweep"]): tr.select_one("td.goodput").text
        for tr in page.select("#readoff-table tbody tr")
    }
    api = client.get("/api/readoff", params={"sweep": [2, 3], "ttft_ms": 500, "tpot_ms": 40})
    for result in api.json()["results"]:
        expected = result["goodput_tok_s_per_gpu"]
        assert shown[result["sweep_id"]] == (f"{expected:,.1f}" if expected is not None else "–")


def test_changing_the_slo_through_htmx_swaps_the_view_and_pushes_the_url(
    hx_client: TestClient,
) -> None:
    [sweep] = [s["id"] for s in post_files(hx_client, ("o11.csv", O11)).json()["sweeps"]]
    params = {"sweep": sweep, "picked": 1, "preset": "custom", "ttft_ms": 300, "tpot_ms": 35}
    response = hx_client.get("/", params=params)
    assert "<html" not in response.text
    view = soup(response.text)
    assert view.select_one("#explore") is not None
    assert view.select_one("#readoff-table td.goodput").text == "3,200.0"
    assert response.headers["HX-Push-Url"] == (
        f"/?ttft_ms=300.0&tpot_ms=35.0&sweep={sweep}&picked=1&preset=custom"
    )
    looser = hx_client.get("/", params={**params, "tpot_ms": 45})
    assert soup(looser.text).select_one("#readoff-table td.goodput").text == "4,800.0"


def test_choosing_a_preset_applies_its_limits(client: TestClient, seeded: None) -> None:
    page = soup(
        client.get(
            "/",
            params={
                "picked": 1,
                "preset": "reasoning",
                "applied_preset": "chat-interactive",
                "ttft_ms": 500,
                "tpot_ms": 40,
            },
        ).text
    )
    assert page.select_one("#slo-ttft")["value"] == "1500.0"
    assert page.select_one("#slo-tpot")["value"] == "15.0"
    assert page.select_one("#slo-preset option[selected]")["value"] == "reasoning"


def test_editing_a_limit_makes_the_preset_custom(client: TestClient, seeded: None) -> None:
    params = {
        "picked": 1,
        "preset": "reasoning",
        "applied_preset": "reasoning",
        "ttft_ms": 900,
        "tpot_ms": 15,
    }
    page = soup(client.get("/", params=params).text)
    assert page.select_one("#slo-preset option[selected]")["value"] == "custom"
    assert page.select_one("#slo-ttft")["value"] == "900.0"


def test_unticking_every_series_shows_what_to_do(client: TestClient, seeded: None) -> None:
    page = soup(client.get("/?picked=1&preset=custom").text)
    assert "No series selected" in page.select_one(".results .empty").text
    assert page.select_one("#pareto-chart") is None


def test_an_empty_database_points_to_the_upload_page(client: TestClient) -> None:
    empty = soup(client.get("/").text).select_one(".results .empty")
    assert empty.select_one('a[href="/upload"]') is not None


def test_a_price_set_prices_each_gpu_with_its_own_profile(client: TestClient, seeded: None) -> None:
    params = {"sweep": [2, 4], "picked": 1, "price_set": "costr@2026-09-08"}
    api = client.get("/api/explore", params=params).json()
    assert api["price_columns"][0]["label"] == "InferenceX 3-year rental · Sep 2026"
    page = soup(client.get("/", params=params).text)
    cells = [tr.select_one("td.cost").text for tr in page.select("#readoff-table tbody tr")]
    by_id = {r["sweep_id"]: r for r in api["results"]}
    for sweep_id, cell in zip([2, 4], cells, strict=True):
        cost = next(c for c in by_id[sweep_id]["costs"] if c["usd_per_mtok"] is not None)
        assert cell == f"${cost['usd_per_mtok']:,.4f}"
        hardware = by_id[sweep_id]["hardware"]
        assert cost["name"].startswith(hardware)


def test_the_json_twin_carries_the_figure_and_results(client: TestClient, seeded: None) -> None:
    api = client.get("/api/explore", params={"sweep": 2, "picked": 1, "tpot_ms": 40}).json()
    assert api["selected"] == [2]
    assert api["results"][0]["sweep_id"] == 2
    assert api["figure"]["data"][0]["name"] == api["results"][0]["name"]


def test_a_malformed_parameter_is_a_clear_error_page(client: TestClient) -> None:
    response = client.get("/?tpot_ms=fast")
    assert response.status_code == 422
    assert "tpot_ms" in soup(response.text).select_one("#error").text


def test_a_claim_far_beyond_the_measurements_does_not_squash_the_chart(
    client: TestClient, seeded: None
) -> None:
    params = {"sweep": [2, 3], "picked": 1, "claims": "examples"}
    fig = client.get("/api/explore", params=params).json()["figure"]
    claims = [t for t in fig["data"] if t.get("meta") == "claim"]
    assert claims, "the O6 worked-example claims are shown when examples are asked for"
    measured_x = [x for t in fig["data"] if t.get("meta") != "claim" for x in t["x"] if x]
    assert fig["layout"]["xaxis"]["range"][1] == pytest.approx(max(measured_x) * 1.15)
    arrows = [a["text"] for a in fig["layout"]["annotations"] if "off the chart" in a["text"]]
    assert any("3,000 tok/s per user → off the chart (3,000 tok/s/user)" in a for a in arrows)
    assert any("3,000 tok/s for the system → off the chart (3,000 tok/s/GPU)" in a for a in arrows)
