"""The sweep page's "their figure beside ours" table and harness provenance in Chromium
(issue 51): at 1280×720 and at 390 px, readable without scrolling the page sideways."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.browser.test_layout import settle, sideways
from tests.helpers import shoot, shoot_element

ENDPOINTS_FILE = (
    Path(__file__).parent.parent
    / "fixtures"
    / "mlperf"
    / "endpoints_result_summary_VR-NVL72_deepseek-r1_Server_v6.1.json"
)


def test_their_figure_beside_ours_and_the_harness_show_on_desktop_and_phone(
    server: str, new_page: Any
) -> None:
    files = [("files", (ENDPOINTS_FILE.name, ENDPOINTS_FILE.read_bytes()))]
    fields = {"hardware": "RUBIN", "num_gpus": "72"}
    response = httpx.post(server + "/api/sweeps", files=files, data=fields, timeout=60)
    assert response.status_code in (200, 201), response.text
    sweep = response.json()["sweeps"][0]["id"]
    for size, name in (
        ({"width": 1280, "height": 720}, "1280"),
        ({"width": 390, "height": 844}, "390"),
    ):
        page = new_page(size)
        page.goto(f"{server}/sweeps/{sweep}")
        settle(page)
        harness = page.locator("#meta-harness dd")
        assert harness.inner_text() == "MLCommons endpoints 0.1.0 · independent harness"
        table = page.locator("#stated-table")
        table.scroll_into_view_if_needed()
        assert table.is_visible()
        first = page.locator("#stated-table tbody tr").first
        assert first.locator(".difference").inner_text() == "-16.6 %"
        assert "legacy window" in first.locator(".rule").inner_text()
        shoot(page, f"stated-figures-sweep-{name}", full_page=False)
        shoot_element(page.locator("#stated-figures"), f"stated-figures-table-{name}")
        assert sideways(page) <= 0
        assert page.problems == []
