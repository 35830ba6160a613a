"""Issue 50 in Chromium: Explore's cost by token class, typed into the pricing fields at
1280×720, and read on a 390 px phone without the page scrolling sideways."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.browser.test_layout import settle, sideways
from tests.helpers import shoot
from tests.web.test_token_classes_api import AGENTIC_POINTS, AGENTIC_REQUESTS


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
