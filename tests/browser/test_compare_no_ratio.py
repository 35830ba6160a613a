"""Compare with no shared interactivity range, in Chromium at 1280×720 and 390×844 (issue 45,
item 6): the ratio chart draws no line, no marker and no axes, and says why inside the chart;
the unpriced $/Mtok sensitivity chart says which system has no price. Screenshots go to
test-artifacts/compare-no-ratio-<size>.png."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from tests.browser.test_layout import NOTES_OUTSIDE, settle, sideways
from tests.helpers import shoot
from tests.web.test_charts_draw_what_exists import APART, SLO
from tests.web.test_own_prices import NO_A100, PRICE_SET

SIZES = {"1280": {"width": 1280, "height": 720}, "390": {"width": 390, "height": 844}}
# What a chart draws: its empty note's text, and how many axis ticks, data points and shapes
# (the 1× line) it shows.
DRAWN = """(sel) => { const gd = document.querySelector(sel);
  return {notes: [...gd.querySelectorAll('.annotation-text')].map((t) => t.textContent),
          ticks: gd.querySelectorAll('.xtick, .ytick').length,
          points: gd.querySelectorAll('.scatterlayer .point, .scatterlayer .js-line').length,
          shapes: gd.querySelectorAll('.shapelayer path').length,
          height: gd.getBoundingClientRect().height}; }"""


@pytest.mark.parametrize("size", list(SIZES))
def test_compare_without_a_shared_range_draws_no_ratio_and_says_why_in_the_chart(
    server: str, new_page: Any, size: str
) -> None:
    response = httpx.post(server + "/api/sweeps", files=[("files", ("apart.csv", APART))])
    assert response.status_code == 201, response.text
    ids = {s["name"]: s["id"] for s in response.json()["sweeps"]}
    try:
        _check(server, new_page(SIZES[size]), ids, size)
    finally:  # the session's server is shared: no other test's default view gets these
        for sweep in ids.values():
            httpx.delete(f"{server}/api/sweeps/{sweep}").raise_for_status()


def _check(server: str, page: Any, ids: dict[str, int], size: str) -> None:
    query = [("sweep", ids["B"]), ("sweep", ids["A"]), *SLO.items(), ("price_set", PRICE_SET)]
    page.goto(f"{server}/compare?{urlencode(query)}")
    settle(page)
    box = page.locator(".no-overlap").first
    assert box.is_visible()
    assert "No ratio without a shared range" in box.inner_text()
    ratio = page.evaluate(DRAWN, "#ratio-chart")
    why = "no shared interactivity range: A covers [25, 33.3], B covers [100, 125] tok/s/user"
    # The note wraps on a phone (static/js/charts.js): its lines read as one text.
    assert "".join(ratio["notes"]).replace(" ", "") == f"Nothing to draw: {why}".replace(" ", "")
    assert (ratio["ticks"], ratio["points"], ratio["shapes"]) == (0, 0, 0)
    assert ratio["height"] > 100
    cost = page.evaluate(DRAWN, "#cost-sensitivity-chart")
    expected = f"Nothing to draw: B: {NO_A100}; A: {NO_A100}"
    assert "".join(cost["notes"]).replace(" ", "") == expected.replace(" ", "")
    assert cost["ticks"] == 0
    assert page.evaluate(NOTES_OUTSIDE) == []
    assert sideways(page) <= 0
    page.locator("#ratio-chart").scroll_into_view_if_needed()
    shoot(page, f"compare-no-ratio-{size}", full_page=False)
    assert page.problems == []
