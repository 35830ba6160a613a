"""Compare against the public record (issue 51) in Chromium at 1280×720 and 390×844: the band's
card is on the page, its ratio, interval and dated runs read as the JSON twin says, its table
fits its box and nothing scrolls sideways. Screenshots: test-artifacts/compare-public-<size>.png."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from tests.browser.test_layout import TABLES_FIT, settle, sideways
from tests.helpers import shoot
from tests.web.test_public_record import CHAT, PUBLIC_API, PUBLIC_FILE, my_public_sweep_csv

PUBLIC_SIZES = {"1280": {"width": 1280, "height": 720}, "390": {"width": 390, "height": 844}}


@pytest.mark.parametrize("size", list(PUBLIC_SIZES))
def test_the_public_band_reads_on_a_laptop_and_a_phone(
    server: str, new_page: Any, size: str
) -> None:
    public = httpx.post(
        server + "/api/sweeps",
        files=[("files", (PUBLIC_FILE, (PUBLIC_API / PUBLIC_FILE).read_bytes()))],
        timeout=60,
    )
    mine = httpx.post(
        server + "/api/sweeps",
        files=[("files", ("mine.csv", my_public_sweep_csv((2300.0, 2400.0, 2500.0))))],
        timeout=60,
    )
    ids = [s["id"] for r in (mine, public) for s in r.json()["sweeps"]]
    created = [s["id"] for r in (mine, public) if r.status_code == 201 for s in r.json()["sweeps"]]
    try:
        assert len(ids) == 4, (mine.text, public.text)
        query = urlencode([("picked", 1), *(("sweep", i) for i in ids), *CHAT.items()])
        expected = httpx.get(f"{server}/api/compare?{query}").json()["public_record"][0]
        page = new_page(PUBLIC_SIZES[size])
        page.goto(f"{server}/compare?{query}")
        settle(page)
        card = page.locator("#public-record")
        card.scroll_into_view_if_needed()
        assert card.is_visible()
        text = " ".join(card.locator(".public-ratio").inner_text().split())
        assert text.startswith("Your goodput is 1.2× the public median (0.983× – 1.85×")
        assert round(expected["ratio_low"], 3) == 0.983
        dates = card.locator("tr.public-run td:first-child").all_inner_texts()
        assert dates == [r["date"] for r in expected["band"]["runs"]]
        drawn = page.evaluate(
            """() => document.querySelectorAll('#public-chart-1 .scatterlayer .point').length"""
        )
        assert drawn == 3  # the three dated runs (your goodput is a line, no markers)
        assert page.evaluate(TABLES_FIT) == []
        assert sideways(page) <= 0
        box = card.bounding_box()
        assert box is not None and box["width"] <= PUBLIC_SIZES[size]["width"]
        shoot(page, f"compare-public-{size}", full_page=False)
        assert page.problems == []
    finally:  # the session's server is shared: no other test's default view gets these
        for sweep in created:
            httpx.delete(f"{server}/api/sweeps/{sweep}").raise_for_status()
