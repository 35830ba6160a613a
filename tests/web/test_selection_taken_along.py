"""Sweeps and Claims take the selection along (issue 47 item 3): the nav of Explore, Compare,
Plan and History links them with the sweeps, SLO, prices and accounting; Sweeps marks the chosen
sweeps and keeps the selection through its filters and pages, a claim's audit reads the SLO and
prices, and both hand everything back through their own nav, so Explore returns as it was."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers import soup
from tests.web.test_selection_follows import PAGES, form_sweeps, nav_query

# As Explore's nav writes it: two sweeps, a named preset (its limits follow from its key), a
# price set, the user's own $/GPU-hour and an accounting unit.
CHOSEN = {
    "sweep": ["3", "1"],
    "picked": ["1"],
    "preset": ["summarisation-rag"],
    "price_set": ["costh@2026-07-31"],
    "usd_per_gpu_hour": ["2.5"],
    "accounting": ["node"],
}
SETTINGS = {k: v for k, v in CHOSEN.items() if k not in ("sweep", "picked")}


def taken_from_explore(client: TestClient, path: str) -> BeautifulSoup:
    """The page the Explore nav's link to `path` opens."""
    explore = soup(client.get("/", params=CHOSEN).text)
    link = explore.select_one(f"#main-nav a[href^='{path}?']")
    assert link is not None
    assert parse_qs(urlsplit(str(link["href"])).query) == CHOSEN
    return soup(client.get(str(link["href"])), 200)


def test_sweeps_marks_the_chosen_sweeps_and_its_nav_hands_the_selection_back(
    client: TestClient, seeded: None
) -> None:
    page = taken_from_explore(client, "/sweeps")
    chosen = page.select("#sweeps-table tbody tr.chosen")
    assert sorted(str(row["data-sweep"]) for row in chosen) == ["1", "3"]
    assert all(row.select_one(".chosen-mark") is not None for row in chosen)
    unmarked = page.select("#sweeps-table tbody tr:not(.chosen)")
    assert unmarked and all(row.select_one(".chosen-mark") is None for row in unmarked)
    note = page.select_one("#chosen-note")
    assert note is not None and note.get_text(strip=True) == (
        "2 sweeps chosen on Explore, marked ✓: the nav takes them back with your SLO and prices"
    )
    for path in [*PAGES.values(), "/sweeps", "/claims"]:
        assert nav_query(page, path) == CHOSEN, path
    # Back on Explore: the same sweeps ticked, the same preset and prices.
    explore = soup(
        client.get("/?" + urlsplit(str(page.select_one("#main-nav a[href^='/?']")["href"])).query),
        200,
    )  # type: ignore[index]
    assert sorted(form_sweeps(explore)) == ["1", "3"]
    assert explore.select_one("#slo-preset option[selected]")["value"] == "summarisation-rag"  # type: ignore[index]
    assert explore.select_one("#p-set option[selected]")["value"] == "costh@2026-07-31"  # type: ignore[index]
    assert explore.select_one("#p-inline")["value"] == "2.5"  # type: ignore[index]


def test_sweeps_keeps_the_selection_through_its_filters_pages_and_sweep_links(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/sweeps", params={**CHOSEN, "per_page": 2}), 200)
    hidden = [
        (str(i["name"]), str(i["value"])) for i in page.select("form.filters input[type=hidden]")
    ]
    assert sorted(hidden) == sorted((k, v) for k, vs in CHOSEN.items() for v in vs)
    following = page.select_one(".pager a")
    assert following is not None
    query = parse_qs(urlsplit(str(following["href"])).query)
    assert query == {"page": ["2"], "per_page": ["2"], **CHOSEN}
    assert parse_qs(urlsplit(str(following["hx-get"])).query) == query
    link = page.select_one("#sweeps-table tbody tr td a")
    assert link is not None and parse_qs(urlsplit(str(link["href"])).query) == CHOSEN
    detail = soup(client.get(str(link["href"])), 200)
    assert nav_query(detail, "/") == CHOSEN
    # The filters' htmx answer (the table alone) marks the chosen sweeps too.
    table = soup(
        client.get("/sweeps", params={**CHOSEN, "q": "demo"}, headers={"HX-Request": "true"}), 200
    )
    assert table.select_one("#sweeps-table") is not None
    marked = sorted(str(r["data-sweep"]) for r in table.select("tr.chosen"))
    shown = {str(r["data-sweep"]) for r in table.select("tbody tr")}
    assert marked == sorted({"1", "3"} & shown)


def test_claims_audits_read_the_carried_slo_and_prices_and_the_nav_hands_all_back(
    client: TestClient, seeded: None
) -> None:
    page = taken_from_explore(client, "/claims")
    assert nav_query(page, "/") == CHOSEN
    links = page.select("#claims-table tbody tr td:first-child > a")
    assert links
    for link in links:
        assert parse_qs(urlsplit(str(link["href"])).query) == SETTINGS
    assert page.select_one("#carried-note") is not None
    audit = soup(client.get(str(links[0]["href"])), 200)
    assert nav_query(audit, "/") == SETTINGS  # the audit's sweeps are its own
    heading = audit.select_one("#at-slo h2")
    assert heading is not None and "(preset summarisation-rag)" in heading.get_text()
    form = audit.select_one("#at-slo form")
    assert form is not None
    assert form.select_one("input[name=ttft_ms]")["value"] == "15000"  # type: ignore[index]
    assert form.select_one("input[name=usd_per_gpu_hour]")["value"] == "2.5"  # type: ignore[index]
    # The form keeps the price set it has no field for.
    assert form.select_one("input[type=hidden][name=price_set]")["value"] == "costh@2026-07-31"  # type: ignore[index]
    claim_id = str(links[0]["href"]).split("?")[0].rsplit("/", 1)[1]
    twin = client.get(f"/api/claims/{claim_id}/audit", params=SETTINGS).json()
    slo = twin["at_slo"]["readoff"]["slo"]
    assert (slo["ttft_ms"], slo["tpot_ms"]) == (15000.0, 150.0)  # the preset's
    labels = [c["label"] for c in twin["at_slo"]["readoff"]["price_columns"]]
    assert labels == ["InferenceX owning (hyperscaler) · Jul 2026", "$2.5/GPU-hour"]


def test_a_page_reached_plainly_carries_nothing(client: TestClient, seeded: None) -> None:
    for path in ("/sweeps", "/claims"):
        page = soup(client.get(path), 200)
        assert page.select_one(f"#main-nav a[href='{path}']") is not None
        assert page.select_one("#main-nav a[href='/']") is not None
        assert page.select_one("#chosen-note, #carried-note") is None
    # A value Explore would refuse is not handed on.
    page = soup(client.get("/sweeps", params={"sweep": "x", "ttft_ms": "-1"}), 200)
    assert page.select_one("#main-nav a[href='/']") is not None
