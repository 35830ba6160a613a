"""Multi-turn sweeps in Chromium (issue 49): Explore on the E2E-normalized axis at 1280×720 and
390 px names the axis and draws the points; the sweep page's per-turn view reads on a laptop and
on a phone without scrolling sideways; so does Plan sized in concurrent sessions."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np

from tests.browser.test_layout import settle, sideways
from tests.helpers import shoot
from tests.web.test_sessions_api import POINTS, agentic_requests

AXIS = "E2E-normalized interactivity (tok/s/user) = 1000 / p90 of E2EL ÷ OSL"


def stored_agentic_sweep(server: str) -> int:
    text, _ = agentic_requests()
    files = [
        ("files", ("agents.csv", POINTS.encode())),
        ("files", ("agents.requests.csv", text.encode())),
    ]
    response = httpx.post(server + "/api/sweeps", files=files, timeout=60)
    assert response.status_code in (200, 201), response.text  # 200: stored by another test
    return next(s["id"] for s in response.json()["sweeps"] if s["name"] == "agents")


def test_the_e2e_axis_is_named_and_drawn_on_a_laptop_and_a_phone(
    server: str, new_page: Any
) -> None:
    sweep = stored_agentic_sweep(server)
    url = f"{server}/?sweep={sweep}&picked=1&ttft_ms=500&interactivity=e2e"
    _, rows = agentic_requests()
    expected = sorted(
        1000.0 / float(np.percentile([r[2] / r[3] for r in rows if r[0] == c and r[4]], 90))
        for c in (8, 16)
    )
    at16 = 1000.0 / float(np.percentile([r[2] / r[3] for r in rows if r[0] == 16 and r[4]], 90))
    for name, viewport in (
        ("1280", {"width": 1280, "height": 720}),
        ("390", {"width": 390, "height": 844}),
    ):
        page = new_page(viewport)
        page.goto(url)
        settle(page)
        title = page.locator("#pareto-chart .g-xtitle").text_content()
        assert title == AXIS.replace(") = ", ")= ")  # drawn on two lines
        xs = page.evaluate(
            "() => document.getElementById('pareto-chart').data"
            ".filter((t) => t.x && t.x.length).flatMap((t) => t.x)"
        )
        drawn = [float(x) for x in xs if x is not None]
        # Plotted positions are rounded to 6 significant digits (app.charts.shown).
        for value in expected:
            assert any(abs(x - value) <= 1e-5 * value for x in drawn), (value, drawn)
        # The star (goodput at the SLO, at concurrency 16) sits at that point's E2E x.
        star = page.evaluate(
            "() => document.getElementById('pareto-chart').data"
            ".find((t) => t.name.endsWith('goodput at SLO')).x[0]"
        )
        assert abs(float(star) - at16) <= 1e-5 * at16
        assert sideways(page) <= 0
        shoot(page, f"sessions-e2e-axis-{name}")
        assert page.problems == []


def test_the_per_turn_view_reads_on_a_laptop_and_on_a_phone(server: str, new_page: Any) -> None:
    sweep = stored_agentic_sweep(server)
    for name, viewport in (
        ("1280", {"width": 1280, "height": 720}),
        ("390", {"width": 390, "height": 844}),
    ):
        page = new_page(viewport)
        page.goto(f"{server}/sweeps/{sweep}")
        settle(page)
        table = page.locator("#turns-table")
        table.scroll_into_view_if_needed()
        assert table.is_visible()
        cells = page.locator("#turns-table tbody tr").nth(1).locator("td").all_inner_texts()
        assert cells[:5] == ["16", "100", "5", "450 / 450", "150 / 150"]
        assert page.locator("#meta-scenario dd").inner_text() == "agentic-coding · trace my-traces"
        assert sideways(page) <= 0
        shoot(page, f"sessions-turns-{name}")
        assert page.problems == []


def test_plan_in_concurrent_sessions_reads_on_a_laptop_and_on_a_phone(
    server: str, new_page: Any
) -> None:
    sweep = stored_agentic_sweep(server)
    url = (
        f"{server}/plan?sweep={sweep}&picked=1&demand=40&demand_unit=concurrent_sessions"
        "&preset=custom&ttft_ms=500&attainment=0.8&usd_per_gpu_hour=2"
    )
    for name, viewport in (
        ("1280", {"width": 1280, "height": 720}),
        ("390", {"width": 390, "height": 844}),
    ):
        page = new_page(viewport)
        page.goto(url)
        settle(page)
        assert page.locator("#d-unit").input_value() == "concurrent_sessions"
        row = page.locator("#plan-table tr.plan-row").first
        row.scroll_into_view_if_needed()
        assert row.locator(".agents-attainment").inner_text() == (
            "84.2 % of 95 sessions met every turn [75.6 %, 90.2 %], 5 cut sessions apart · "
            "target 80 %"
        )
        assert row.locator(".replicas-conservative").inner_text().startswith("5 (40 GPUs)")
        assert sideways(page) <= 0
        shoot(page, f"sessions-plan-{name}")
        assert page.problems == []
