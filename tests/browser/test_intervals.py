"""Intervals in Chromium: Explore's ± cell, the borderline verdict and the star's error bar."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from tests.browser.test_flows import wait_for_plot
from tests.web.test_intervals_api import POINTS, REQUESTS


def test_explore_shows_the_interval_the_borderline_verdict_and_an_error_bar(page: Any) -> None:
    # Points and their requests in one zip: one upload, one sweep with request samples.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("ci.csv", POINTS)
        archive.writestr("ci.requests.csv", REQUESTS)
    response = page.request.post(
        page.base + "/api/sweeps",
        multipart={
            "files": {
                "name": "ci.zip",
                "mimeType": "application/zip",
                "buffer": buffer.getvalue(),
            }
        },
    )
    assert response.status == 201, response.text()
    sweep = response.json()["sweeps"][0]["id"]
    query = (
        f"/?sweep={sweep}&picked=1&preset=custom&ttft_ms=500&mode=requests&attainment=0.85"
        "&usd_per_gpu_hour=2"
    )
    page.goto(page.base + query)
    wait_for_plot(page)
    assert page.inner_text("#readoff-table td.goodput") == "720"
    assert page.inner_text("#readoff-table td.goodput-ci").startswith("± ")
    # Borderline: the attainment interval that straddles the target sits beside it.
    assert page.inner_text("#readoff-table td.goodput-ci small.ci-borderline") == (
        "attainment 81.5 %–94.8 %"
    )
    verdict = page.locator("#readoff-table td.verdict")
    assert verdict.get_attribute("data-status") == "borderline"
    assert "straddles the 85 % target" in verdict.inner_text()
    # Plotly draws an error bar as a path inside the trace's g.errorbar group.
    assert page.locator("#pareto-chart g.errorbar path").count() >= 1
    # The interval level is a form field: 0.99 widens the interval in place.
    goodput_ci = "#readoff-table td.goodput-ci small.ci:not(.ci-borderline)"
    narrow = page.inner_text(goodput_ci)
    page.fill("#slo-ci", "0.99")
    page.press("#slo-ci", "Enter")
    page.wait_for_url(lambda url: "ci_level=0.99" in url)
    wait_for_plot(page)
    wide = page.inner_text(goodput_ci)
    assert float(wide[2:].replace(",", "")) > float(narrow[2:].replace(",", ""))
    assert page.problems == []
