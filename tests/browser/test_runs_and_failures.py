"""Issue 45 in Chromium at 1280×720 and 390 px: Explore's answer strip says a sweep whose two
runs disagree is "borderline" ("1 of 2 runs meets the SLO"), ranks it below the settled pass,
and says "3 of 10 failed" beside the old vLLM file's verdict, every word on screen.

Screenshots go to test-artifacts/runs-failures-<width>.png.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx

from tests.browser.test_layout import LAPTOP, PHONE, settle, sideways
from tests.helpers import shoot
from tests.web.test_runs_and_failures import (
    BORDERLINE,
    CHAT,
    ten_requests_three_empty,
    two_run_folder,
)


def stored_ids(base: str, files: list[tuple[str, bytes]]) -> list[int]:
    response = httpx.post(
        f"{base}/api/sweeps",
        files=[("files", (name, data, "application/json")) for name, data in files],
        data={"hardware": "H100", "num_gpus": "1"},
        timeout=60,
    )
    assert response.status_code == 201, response.text
    return [int(s["id"]) for s in response.json()["sweeps"]]


def on_screen(page: Any, selector: str) -> bool:
    """Whether the element is drawn, with its left and right edges inside the window."""
    box = page.locator(selector).bounding_box()
    width = page.viewport_size["width"]
    return (
        box is not None and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= width
    )


def test_the_strip_shows_borderline_runs_and_failed_requests_on_a_laptop_and_a_phone(
    page: Any, new_page: Any
) -> None:
    unsettled, settled = stored_ids(page.base, two_run_folder())
    [failing] = stored_ids(page.base, [("old.json", ten_requests_three_empty())])
    query = urlencode({"sweep": [unsettled, settled, failing]} | CHAT, doseq=True)
    for viewport in (LAPTOP, PHONE):
        view = new_page(viewport)
        view.goto(f"{page.base}/?{query}")
        settle(view)
        order = view.eval_on_selector_all(
            "#answer-table tbody tr", "rows => rows.map(r => Number(r.dataset.sweep))"
        )
        assert order == [settled, unsettled, failing]
        mixed = f'#answer-table tr[data-sweep="{unsettled}"] td.verdict'
        assert view.locator(mixed).get_attribute("class") == "verdict borderline"
        assert view.locator(mixed).inner_text().startswith("borderline")
        reason = view.locator(f"{mixed} .verdict-reason")
        assert reason.get_attribute("title") == BORDERLINE
        # The strip clamps a reason to two lines: its start is what shows.
        assert reason.inner_text().startswith("1 of 2 runs meets the SLO")
        failed = f'#answer-table tr[data-sweep="{failing}"] td.verdict .failed-requests'
        assert view.locator(failed).inner_text() == "3 of 10 failed"
        for selector in (mixed, f"{mixed} .verdict-reason", failed):
            assert on_screen(view, selector), (viewport, selector)
        # The read-off table says it too.
        table = f'#readoff-table tr[data-sweep="{failing}"] td.verdict .failed-requests'
        assert view.locator(table).inner_text() == "3 of 10 failed"
        assert sideways(view) == 0
        view.locator("#answer-strip").scroll_into_view_if_needed()
        shoot(view, f"runs-failures-{viewport['width']}", full_page=False)
        assert view.problems == []
