"""The selection follows the user (issue 47 item 3): the chosen sweeps, the SLO, the prices and
the accounting carry across Explore, Compare, Plan and History through the nav and the pages'
own links, in the URL, so a link reproduces the view; and the sidebars' long lists read whole
(item 5): presets, price sets and profiles grouped, numbers as typed."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.views.choices import input_value
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.helpers import soup
from tests.web.test_own_prices import LLMPERF, NO_A100, PRICE_SET, priced
from tests.web.test_readoff_api import O11

__all__ = ["priced"]  # the fixture, used by name

PAGES = {"explore": "/", "compare": "/compare", "plan": "/plan", "history": "/history"}
# Pages that take the selection along and hand it back (Sweeps marks the chosen sweeps, a
# claim's audit reads the SLO and prices).
TAKEN_ALONG = {"sweeps": "/sweeps", "claims": "/claims"}


def nav_query(page: BeautifulSoup, path: str) -> dict[str, list[str]]:
    """The query string the main nav's link to `path` carries."""
    link = page.select_one(f"#main-nav a[href^='{path}?']")
    assert link is not None, f"the nav's link to {path} carries nothing"
    split = urlsplit(str(link["href"]))
    assert split.path == path
    return parse_qs(split.query)


def form_sweeps(page: BeautifulSoup) -> list[str]:
    return [str(box["value"]) for box in page.select("form.controls input[name=sweep][checked]")]


def test_every_page_links_its_neighbours_with_the_sweeps_slo_prices_and_accounting(
    client: TestClient, seeded: None
) -> None:
    chosen = {
        "sweep": ["3", "1"],
        "picked": "1",
        "preset": "custom",
        "ttft_ms": "800",
        "tpot_ms": "30",
        "tpot_percentile": "p90",
        "price_set": "costh@2026-07-31",
        "usd_per_gpu_hour": "2.5",
        "pricing": ["3"],
        "accounting": "node",
        "interactivity": "e2e",  # the x axis is chosen once (issue 49)
        "e2e_percentile": "95",
        "logx": "1",  # Explore's own: stays there
    }
    expected = {k: v if isinstance(v, list) else [v] for k, v in chosen.items() if k != "logx"}
    for name, path in PAGES.items():
        page = soup(client.get(path, params=chosen).text)
        for target in [*PAGES.values(), *TAKEN_ALONG.values()]:
            assert nav_query(page, target) == expected, (name, target)
        # Pages the selection does not concern link plainly.
        assert page.select_one("#main-nav a[href='/upload']") is not None
        assert page.select_one("#p-set option[selected]")["value"] == "costh@2026-07-31"  # type: ignore[index]
        if name != "history":  # History charts every sweep; it keeps the chosen ones hidden
            assert sorted(form_sweeps(page)) == ["1", "3"]


def test_a_preset_is_carried_by_its_key_and_the_defaults_filled_in_are_carried_too(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/", params={"preset": "reasoning"}).text)
    carried = nav_query(page, "/compare")
    assert carried["preset"] == ["reasoning"]
    assert "ttft_ms" not in carried and "tpot_ms" not in carried  # the key says them
    assert "price_set" not in carried  # a link naming a preset names its prices: none here
    # The home page's defaults (the chat preset, the price set, the sweeps) were what the page
    # showed: they go along.
    home = nav_query(soup(client.get("/").text), "/plan")
    assert (home["preset"], home["price_set"]) == (["chat-interactive"], ["costr@2026-09-08"])
    assert len(carried["sweep"]) == len(home["sweep"]) == 6
    compare = soup(
        client.get("/compare?" + page.select_one("#compare-these")["href"].split("?")[1]).text
    )  # type: ignore[union-attr]
    assert compare.select_one("#slo-preset option[selected]")["value"] == "reasoning"  # type: ignore[index]
    assert len(form_sweeps(compare)) == 6  # not Compare's own default of two

    # "none" as the price set stays none: the nav does not bring the default set back.
    cleared = soup(client.get("/", params={"preset": "reasoning", "picked": "1", "sweep": 1}).text)
    assert "price_set" not in nav_query(cleared, "/plan")
    plan = soup(client.get("/plan", params=nav_query(cleared, "/plan")).text)
    assert plan.select_one("#p-set option[selected]") is None  # "none", the first entry


def test_explore_offers_compare_and_plan_for_its_sweeps_and_plan_ticks_only_those(
    client: TestClient, seeded: None
) -> None:
    explore = soup(client.get("/", params={"sweep": [2, 5], "picked": 1}).text)
    compare_link = explore.select_one("#compare-these")
    plan_link = explore.select_one("#plan-these")
    assert compare_link is not None and plan_link is not None
    assert str(compare_link["href"]).startswith("/compare?sweep=2&sweep=5&picked=1")
    plan = soup(client.get(str(plan_link["href"])).text)
    assert form_sweeps(plan) == ["2", "5"]  # Plan ticked every system before
    unticked = plan.select("#systems-more input[name=sweep]")
    assert unticked and not any(box.has_attr("checked") for box in unticked)
    assert plan.select_one("#compare-these") is not None
    compare = soup(client.get(str(compare_link["href"])).text)
    assert compare.select_one("#plan-these") is not None
    # Nothing chosen, nothing to offer.
    none = soup(client.get("/", params={"picked": 1}).text)
    assert none.select_one("#compare-these") is None


def test_an_htmx_update_swaps_the_nav_with_the_new_selection(
    client: TestClient, seeded: None
) -> None:
    headers = {"HX-Request": "true"}
    for path in PAGES.values():
        answer = client.get(
            path, params={"sweep": [4], "picked": 1, "ttft_ms": 321}, headers=headers
        )
        part = soup(answer.text)
        nav = part.select_one("nav#main-nav[hx-swap-oob=true]")
        assert nav is not None, path
        assert nav_query(part, "/compare")["ttft_ms"] == ["321"]
        assert nav_query(part, "/compare")["sweep"] == ["4"]
        current = nav.select_one("a[aria-current=page]")
        assert current is not None and str(current["href"]).startswith(
            path + "?" if path != "/" else "/?"
        )


def test_history_keeps_the_chosen_sweeps_through_its_own_form(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/history", params={"sweep": [2, 3], "picked": 1}).text)
    kept = page.select("#explore-form input[type=hidden][name=sweep]")
    assert [str(i["value"]) for i in kept] == ["2", "3"]
    assert nav_query(page, "/")["sweep"] == ["2", "3"]


@pytest.mark.usefixtures("priced")
def test_compare_says_a_gpu_without_a_price_once_for_every_pair(client: TestClient) -> None:
    h100 = [
        post_files(client, ("o11.csv", O11.replace(b"o11,", f"{n},".encode()))).json()["sweeps"][0][
            "id"
        ]
        for n in ("first", "second")
    ]
    files = [(n, (FIXTURES / "llmperf" / n).read_bytes()) for n in LLMPERF]
    [a100] = post_files(client, *files, hardware="A100", num_gpus=4).json()["sweeps"]
    params = {"sweep": [a100["id"], *h100], "picked": 1, "preset": "custom", "price_set": PRICE_SET}
    page = soup(client.get("/compare", params={**params, "ttft_ms": 1000, "tpot_ms": 100}).text)
    cells = page.select("#headlines tr.at-slo td.cost-ratio")
    assert len(cells) == 2  # the A100 against each H100
    assert [c.get_text(" ", strip=True) for c in cells] == ["– 1", "– 1"]
    assert [li.get_text() for li in page.select("#compare-cost-notes li")] == [NO_A100]


def test_presets_and_profiles_are_grouped_and_numbers_read_as_typed(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/", params={"preset": "mlperf-llama2-70b", "pricing": [3]}).text)
    groups = [g["label"] for g in page.select("#slo-preset optgroup")]
    assert groups[0] == "Use cases" and "MLPerf Server" in groups
    chosen = page.select_one("#slo-preset option[selected]")
    assert chosen is not None and chosen.get_text() == "llama2-70b"
    assert chosen["title"] == "MLPerf Server · llama2-70b"
    assert page.select_one("#p-set optgroup")["label"] == "InferenceX"  # type: ignore[index]
    profile_groups = [g["label"] for g in page.select("#p-profiles optgroup")]
    assert {"H100", "A100 80GB", "L40S"} <= set(profile_groups)
    assert len(profile_groups) == len(set(profile_groups))  # one group per GPU
    h100 = page.select("#p-profiles optgroup[label=H100] option")
    assert h100 and not any(o.get_text().startswith("H100") for o in h100)
    # The chosen profile is ticked below the list, which no longer offers it.
    assert page.select_one("#p-profile-3[checked]") is not None
    assert page.select_one("#p-profiles option[value='3']") is None
    # One entry per percentile: the default's entry sends "" and reads as the percentile.
    ttft = page.select("#slo-ttft-pct option")
    assert [o.get_text() for o in ttft] == ["p50", "p75", "p90", "p95", "p99", "p99.9"]
    for limit in ("ttft", "tpot", "e2el"):
        assert "default" not in page.select_one(f"#slo-{limit}-pct").get_text()  # type: ignore[union-attr]
    assert (input_value(500.0), input_value(0.9), input_value(None), input_value(12.5)) == (
        "500",
        "0.9",
        "",
        "12.5",
    )
