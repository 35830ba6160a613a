"""Issue 37 in Chromium: Explore counted per decode GPU at 1280×720 (axis, table, split), and
Compare at 390 px saying that two systems of 16 GPUs differ in their split, without scrolling
sideways."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.browser.test_layout import settle, sideways
from tests.helpers import shoot
from tests.web.test_accounting_api import PAIR


def test_explore_counts_per_decode_gpu_and_compare_says_the_split_differs_on_a_phone(
    server: str, new_page: Any
) -> None:
    files = [("files", ("pair.csv", PAIR))]
    response = httpx.post(server + "/api/sweeps", files=files, timeout=60)
    assert response.status_code == 201, response.text
    ids = {s["name"]: s["id"] for s in response.json()["sweeps"]}
    disagg, agg = ids["disagg 8P+8D"], ids["agg 16"]
    query = f"sweep={disagg}&sweep={agg}&picked=1&tpot_ms=20&percentile=p50"

    page = new_page({"width": 1280, "height": 720})
    page.goto(f"{server}/?{query}")
    settle(page)
    page.click("#axes-more > summary")  # the axes fold away (issue 47)
    page.select_option("#a-accounting", "decode_gpu")
    page.wait_for_url(re.compile(r"accounting=decode_gpu"))
    settle(page)
    title = page.locator("#pareto-chart .g-ytitle").text_content() or ""
    assert "Output tok/s per decode GPU" in title
    assert "tok/s/decode GPU" in page.inner_text("#readoff-table thead")
    assert "(8P + 8D)" in page.inner_text("#readoff-table tbody")
    shoot(page, "accounting-explore-1280")
    assert page.problems == []

    phone = new_page({"width": 390, "height": 844})
    phone.goto(f"{server}/compare?sweep={agg}&sweep={disagg}&picked=1&tpot_ms=20&percentile=p50")
    settle(phone)
    caveat = phone.locator("p.caveat[data-kind='split']")
    assert caveat.is_visible()
    assert "Both have 16 GPUs in total" in caveat.inner_text()
    assert sideways(phone) <= 0
    shoot(phone, "accounting-compare-390")
    assert phone.problems == []
