"""Bands and stretches in Chromium, at 1280×720 and at 390 px: Explore shades each frontier's
band, Compare lists where A is really better and shades the stretches behind the ratio."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from tests.browser.test_flows import wait_for_plot
from tests.browser.test_layout import sideways
from tests.helpers import shoot, shoot_element
from tests.web.test_bands import POINTS, requests_csv


def upload_zipped(page: Any, name: str, scale: int) -> int:
    """A per-request sweep (points and requests in one zip), as tests/web/test_bands makes."""
    body = requests_csv(scale).replace(b"reqs", name.encode())
    lines = body.splitlines()[1:]
    light = sum(int(r.split(b",")[4]) for r in lines[:40]) / 10
    heavy = sum(int(r.split(b",")[4]) for r in lines[40:]) / 10
    points = POINTS.replace(b"reqs", name.encode()).replace(b"{light}", str(light).encode())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{name}.csv", points.replace(b"{heavy}", str(heavy).encode()))
        archive.writestr(f"{name}.requests.csv", body)
    response = page.request.post(
        page.base + "/api/sweeps",
        multipart={
            "files": {"name": f"{name}.zip", "mimeType": "application/zip",
                      "buffer": buffer.getvalue()}
        },
    )  # fmt: skip
    assert response.status == 201, response.text()
    return int(response.json()["sweeps"][0]["id"])


def test_bands_and_stretches_draw_and_fit_on_a_laptop_and_a_phone(page: Any) -> None:
    base, double = upload_zipped(page, "band-base", 1), upload_zipped(page, "band-double", 2)
    query = f"sweep={base}&sweep={double}&picked=1&preset=custom&bands=1"
    for width, height in ((1280, 720), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{page.base}/?{query}")
        wait_for_plot(page)
        # Two bands, each filled between its ends: Plotly draws a fill as a path in js-fill.
        assert page.locator("#pareto-chart .scatterlayer .js-fill").count() >= 2
        note = page.locator("#band-note")
        assert note.is_visible() and "95 % confidence band" in note.inner_text()
        assert page.locator("#a-bands").is_checked()
        assert sideways(page) <= 0
        shoot_element(page.locator("#pareto-chart"), f"bands-{width}")
        page.goto(f"{page.base}/compare?{query}")
        wait_for_plot(page, "#ratio-chart")
        headline = page.locator(f"#stretches-{double} .stretch-headline")
        assert headline.is_visible()
        assert headline.inner_text().startswith("band-double is ")
        sides = page.locator(f"#stretches-{double} tr.stretch").evaluate_all(
            "(rows) => rows.map((r) => r.dataset.side)"
        )
        assert sides == ["above"]
        # The stretch where A is above, shaded behind the ratio; the ratio's band filled.
        assert page.locator("#ratio-chart .shapelayer path").count() >= 1
        assert page.locator("#ratio-chart .scatterlayer .js-fill").count() >= 1
        assert sideways(page) <= 0
        shoot(page, f"stretches-{width}")
    assert page.problems == []


def test_compare_draws_both_frontiers_with_bands_and_a_named_stretch_at_both_widths(
    page: Any,
) -> None:
    base, double = upload_zipped(page, "front-base", 1), upload_zipped(page, "front-double", 2)
    query = f"sweep={base}&sweep={double}&picked=1&preset=custom&bands=1"
    for width, height in ((1280, 720), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{page.base}/compare?{query}")
        wait_for_plot(page, "#frontier-chart")
        drawn = page.locator("#frontier-chart").evaluate(
            "(el) => el.data.map((t) => [t.name, (t.meta && (t.meta.band ? 'band' :"
            " t.meta.stretch ? 'stretch' : 'line')) || 'line'])"
        )
        kinds = [kind for _, kind in drawn]
        assert kinds.count("band") == 4 and kinds.count("stretch") == 1
        assert ["front-double significantly above front-base", "stretch"] in drawn
        # Two bands and the stretch, each filled: Plotly draws a fill as a path in js-fill.
        assert page.locator("#frontier-chart .scatterlayer .js-fill").count() >= 3
        legend = " ".join(page.locator("#frontier-chart .legend .legendtext").all_text_contents())
        assert "significantly above" in legend
        assert page.locator("#compare-band-note").is_visible()
        assert sideways(page) <= 0
        shoot_element(page.locator("#frontier-card"), f"compare-frontier-{width}")
    assert page.problems == []
