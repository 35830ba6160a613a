"""A split that changes along a sweep, in Chromium (issue 37): Explore per prefill GPU at
1280×720 hovers each frontier point with its own split and the read-off table names the
operating point's; the sweep page at 390 px says the split varies, without scrolling sideways."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.test_hover_numbers import hover_label
from tests.browser.test_layout import settle, sideways
from tests.helpers import shoot
from tests.web.test_split_along_sweep import VARIES, VARYING


def test_each_point_hovers_with_its_own_split_and_the_sweep_page_says_it_varies_on_a_phone(
    server: str, new_page: Any
) -> None:
    files = [("files", ("varying.csv", VARYING))]
    response = httpx.post(server + "/api/sweeps", files=files, timeout=60)
    assert response.status_code == 201, response.text
    [sweep] = [s["id"] for s in response.json()["sweeps"]]

    page = new_page({"width": 1280, "height": 720})
    page.goto(f"{server}/?sweep={sweep}&picked=1&tpot_ms=20&percentile=p50&accounting=prefill_gpu")
    settle(page)
    row = page.locator("#readoff-table tbody tr").first
    assert row.locator(".split").inner_text() == f"({VARIES})"
    # One operating point in every mode (issue 45): c = 32, at its own 8P + 8D.
    assert row.locator(".op-split").inner_text() == "8P + 8D"
    # The frontier line (trace 0) per prefill GPU: c = 64 at 8P + 8D, then c = 8 at 4P + 12D.
    first, second = hover_label(page, 0, 0), hover_label(page, 0, 1)
    assert "3,250 tok/s/prefill GPU" in first and first.endswith("split 8P + 8D")
    assert "3,000 tok/s/prefill GPU" in second and second.endswith("split 4P + 12D")
    shoot(page, "split-along-sweep-explore-1280")
    assert page.problems == []

    phone = new_page({"width": 390, "height": 844})
    phone.goto(f"{server}/sweeps/{sweep}")
    settle(phone)
    serving = phone.locator("#meta-serving dd")
    assert serving.is_visible()
    assert serving.inner_text().startswith(f"disaggregated: {VARIES}")
    assert sideways(phone) <= 0
    shoot(phone, "split-along-sweep-sweep-390")
    assert phone.problems == []
