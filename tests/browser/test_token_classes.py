"""Issue 50 in Chromium: Explore's cost by token class, typed into the pricing fields at
1280×720, and read on a 390 px phone without the page scrolling sideways."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.browser.test_layout import settle, sideways
from tests.helpers import shoot
from tests.web.test_readoff_api import O9_POINTS, O9_REQUESTS
from tests.web.test_token_classes_api import AGENTIC_POINTS, AGENTIC_REQUESTS
from tests.web.test_ttft_context_api import CONTEXT_POINTS, CONTEXT_REQUESTS


def test_explore_prices_tokens_by_class_from_the_pricing_fields_on_a_laptop_and_a_phone(
    server: str, new_page: Any
) -> None:
    name = b"cached-prefix-browser"
    files = [
        ("files", ("c.csv", AGENTIC_POINTS.replace(b"agentic", name))),
        ("files", ("c.requests.csv", AGENTIC_REQUESTS.replace(b"agentic", name))),
    ]
    response = httpx.post(server + "/api/sweeps", files=files, timeout=60)
    assert response.status_code == 201, response.text
    [sweep] = [s["id"] for s in response.json()["sweeps"]]
    query = (
        f"sweep={sweep}&picked=1&preset=custom&tpot_ms=35&tpot_percentile=p50&usd_per_gpu_hour=2"
    )

    page = new_page({"width": 1280, "height": 720})
    page.goto(f"{server}/?{query}")
    settle(page)
    # The sweep reports cached tokens: the share and its source show before any API price.
    row = page.locator("#token-classes tbody tr").first
    assert row.locator(".cached-share").inner_text() == "79.4 %"
    assert "reported by the client" in row.locator(".cached-source").inner_text()
    page.click("#pricing-classes > summary")  # the class prices are folded until set
    typed = (
        ("#p-in", "1", "input"),
        ("#p-cached", "0.1", "cached_input"),
        ("#p-out", "1", "output"),
    )
    for field, value, name in typed:
        # Each edit waits for the page the one before brought (htmx swaps the form).
        page.fill(field, value)
        page.press(field, "Enter")
        page.wait_for_url(re.compile(rf"usd_per_mtok_{name}={re.escape(value)}"))
        settle(page)
        page.wait_for_load_state("networkidle")
    row = page.locator("#token-classes tbody tr").first
    assert row.locator(".blended").inner_text() == "$0.36"
    assert "cached input $0.10/Mtok" in page.inner_text("#token-classes-title + p")
    assert row.locator(".break-even").inner_text().count("·") == 2
    shoot(page, "token-classes-explore-1280")
    assert page.problems == []

    phone = new_page({"width": 390, "height": 844})
    phone.goto(page.url)
    settle(phone)
    table = phone.locator("#token-classes")
    table.scroll_into_view_if_needed()
    assert table.is_visible()
    assert phone.locator("#token-classes tbody tr .blended").first.inner_text() == "$0.36"
    assert sideways(phone) <= 0
    shoot(phone, "token-classes-explore-390")
    assert phone.problems == []


def test_clicking_a_point_lists_the_requests_that_missed_the_slo_on_a_laptop_and_a_phone(
    server: str, new_page: Any
) -> None:
    name = b"o9-misses-browser"
    files = [
        ("files", ("m.csv", O9_POINTS.replace(b"o9", name))),
        ("files", ("m.requests.csv", O9_REQUESTS.replace(b"o9", name))),
    ]
    response = httpx.post(server + "/api/sweeps", files=files, timeout=60)
    assert response.status_code == 201, response.text
    [sweep] = [s["id"] for s in response.json()["sweeps"]]
    query = f"sweep={sweep}&picked=1&preset=custom&ttft_ms=200&tpot_ms=50&percentile=p50"
    for viewport, shot in (
        ({"width": 1280, "height": 720}, "misses-explore-1280"),
        ({"width": 390, "height": 844}, "misses-explore-390"),
    ):
        page = new_page(viewport)
        page.goto(f"{server}/?{query}")
        settle(page)
        marker = page.locator("#pareto-chart .scatterlayer .trace .points path").first
        marker.scroll_into_view_if_needed()
        box = marker.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector("#misses-table")
        missed = page.locator("#misses-table tbody .missed").all_inner_texts()
        assert missed == ["TTFT", "TPOT", "TTFT, TPOT", "failed"]
        assert page.locator("#misses .miss-count").inner_text() == "4 of 8 requests"
        assert sideways(page) <= 0
        shoot(page, shot)
        assert page.problems == []


def test_clicking_a_point_shows_ttft_against_prompt_length_and_the_prefill_rate(
    server: str, new_page: Any
) -> None:
    name = b"ctx-prefill-browser"
    files = [
        ("files", ("p.csv", CONTEXT_POINTS.replace(b"ctx,", name + b","))),
        ("files", ("p.requests.csv", CONTEXT_REQUESTS.replace(b"ctx,", name + b","))),
    ]
    response = httpx.post(server + "/api/sweeps", files=files, timeout=60)
    assert response.status_code == 201, response.text
    [sweep] = [s["id"] for s in response.json()["sweeps"]]
    query = f"sweep={sweep}&picked=1&preset=custom&ttft_ms=1000&tpot_ms=35&percentile=p50"
    for viewport, shot in (
        ({"width": 1280, "height": 720}, "ttft-context-1280"),
        ({"width": 390, "height": 844}, "ttft-context-390"),
    ):
        page = new_page(viewport)
        page.goto(f"{server}/?{query}")
        settle(page)
        marker = page.locator("#pareto-chart .scatterlayer .trace .points path").first
        marker.scroll_into_view_if_needed()
        box = marker.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector("#ttft-buckets")
        # 1000 ÷ (15,128,000 ÷ 148,800,000) ms per token = 9,836 tok/s (least squares by hand).
        assert page.locator(".prefill-rate").inner_text() == "9,836 tok/s"
        assert page.locator("#ttft-buckets tbody tr").count() == 5
        # (1000 − 11.67) ÷ 0.10167 = 9,721 tokens.
        assert page.locator(".crossing").inner_text() == "9,721 tokens"
        assert sideways(page) <= 0
        shoot(page, shot)
        assert page.problems == []
