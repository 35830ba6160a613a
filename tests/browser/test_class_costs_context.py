"""Issue 50 in Chromium at 1280×720 and on a 390 px phone: cost by token class on Compare and
Plan (the class prices carried from Explore), and a sweep page's TTFT against prompt length,
whose clicked bucket lists the requests that missed the SLO."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.test_layout import settle, sideways
from tests.helpers import shoot
from tests.web.test_token_classes_pages import PR943, SECOND
from tests.web.test_ttft_context_page import POINTS, REQUESTS

VIEWPORTS = (("1280", {"width": 1280, "height": 720}), ("390", {"width": 390, "height": 844}))
PRICES = "usd_per_mtok_input=1&usd_per_mtok_cached_input=0.1&usd_per_mtok_output=1"


def own_model(points: bytes, model: bytes) -> bytes:
    """The points with a model of their own: a sweep without one joins the unnamed group,
    which other pages' default selection (the largest model/ISL/OSL group) must not pick."""
    head, *rows = points.rstrip(b"\n").split(b"\n")
    return b"\n".join([b"model," + head, *(model + b"," + r for r in rows)]) + b"\n"


def post_to_server(server: str, *files: tuple[str, bytes]) -> list[int]:
    response = httpx.post(server + "/api/sweeps", files=[("files", f) for f in files], timeout=60)
    assert response.status_code == 201, response.text
    return [s["id"] for s in response.json()["sweeps"]]


def test_compare_and_plan_show_cost_by_token_class_carried_from_explore(
    server: str, new_page: Any
) -> None:
    [first] = post_to_server(
        server,
        ("a.csv", own_model(PR943.read_bytes().replace(b"pr943-", b"browser-943-"), b"m943")),
    )
    [second] = post_to_server(
        server, ("b.csv", own_model(SECOND.replace(b"second-b200", b"browser-second"), b"m943b"))
    )
    slo = "preset=custom&tpot_ms=60&tpot_percentile=p50&ttft_ms=500&usd_per_gpu_hour=2"
    query = f"sweep={first}&sweep={second}&picked=1&{slo}&{PRICES}"
    for width, viewport in VIEWPORTS:
        page = new_page(viewport)
        page.goto(f"{server}/?{query}")
        settle(page)
        # From Explore to Compare by its link: the class prices go along.
        page.click("#compare-these")
        page.wait_for_selector("#compare-classes")
        settle(page)
        rows = page.locator("#compare-classes #token-classes tbody tr")
        assert rows.count() == 2
        assert rows.first.locator(".tokens-per-usd").inner_text() == "2,840,909"
        assert rows.nth(1).locator(".cached-share").inner_text() == "50 %"
        page.locator("#compare-classes").scroll_into_view_if_needed()
        assert sideways(page) <= 0
        shoot(page, f"token-classes-compare-{width}", full_page=False)
        assert page.problems == []
        # And on to Plan, the prices still set.
        page.click("#plan-these")
        page.wait_for_selector("#plan-classes")
        settle(page)
        plan_rows = page.locator("#plan-classes #token-classes tbody tr")
        assert plan_rows.first.locator(".blended").inner_text() == "$0.35"
        assert page.input_value("#p-cached") == "0.1"
        page.locator("#plan-classes").scroll_into_view_if_needed()
        assert sideways(page) <= 0
        shoot(page, f"token-classes-plan-{width}", full_page=False)
        assert page.problems == []


def test_a_sweep_pages_ttft_against_prompt_length_lists_a_clicked_buckets_misses(
    server: str, new_page: Any
) -> None:
    name = b"browser-long-ctx"
    [sweep] = post_to_server(
        server,
        ("l.csv", own_model(POINTS.replace(b"long-ctx", name), b"mlong")),
        ("l.requests.csv", REQUESTS.replace(b"long-ctx", name)),
    )
    for width, viewport in VIEWPORTS:
        page = new_page(viewport)
        page.goto(f"{server}/sweeps/{sweep}?ttft_ms=500&tpot_ms=30")
        settle(page)
        chart = page.locator("#context-figure-chart")
        page.locator("#ttft-context").scroll_into_view_if_needed()
        shoot(page, f"ttft-context-chart-{width}", full_page=False)
        assert chart.locator(".scatterlayer .trace").count() == 4  # two loads, two fits
        # The heaviest load's longest-prompt bucket (16,000 tokens, TTFT 1,700 ms).
        marker = chart.locator(".scatterlayer .trace").nth(2).locator(".points path").last
        box = marker.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.click(x, y)
        page.wait_for_selector("#sweep-misses-table")
        cells = page.locator("#sweep-misses-table tbody tr td").all_inner_texts()
        assert cells[0] == "3" and cells[-1] == "TTFT"
        assert "prompts of 8,192–16,384 tokens" in page.inner_text("#sweep-misses h3")
        assert sideways(page) <= 0
        page.locator("#sweep-misses").scroll_into_view_if_needed()
        shoot(page, f"ttft-context-sweep-{width}", full_page=False)
        # The turns chart: the cold first turn's bucket at the heaviest load.
        turns = page.locator("#turns-figure-chart")
        turns.scroll_into_view_if_needed()
        cold = turns.locator(".scatterlayer .trace").first.locator(".points path").first
        box = cold.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.click(x, y)
        page.locator("#sweep-misses h3", has_text="turn 0").wait_for()
        assert page.locator("#sweep-misses-table tbody .missed").all_inner_texts() == ["TPOT"]
        assert sideways(page) <= 0
        page.locator("#sweep-misses").scroll_into_view_if_needed()
        shoot(page, f"ttft-turns-sweep-{width}", full_page=False)
        assert page.problems == []
