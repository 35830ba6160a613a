"""Production in Chromium at 1280×720 and 390 px: a deployment's windows drawn over time and
beside the frontier, flagged rows, no sideways scrolling, and the overlay on Explore."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.browser.test_layout import LAPTOP, PHONE, settle, sideways
from tests.factories import to_csv
from tests.helpers import shoot
from tests.prom_stream import make_stream
from tests.web.test_production_api import FRONTIER_ROWS

ORIGIN = 1_780_000_000


def test_a_deployment_page_draws_its_windows_and_explore_overlays_them(
    server: str, new_page: Any
) -> None:
    stream = make_stream(n=1200, duration_s=600)
    bench = httpx.post(
        server + "/api/sweeps",
        files=[
            (
                "files",
                ("prod-bench.csv", to_csv([r | {"sweep": "prod bench"} for r in FRONTIER_ROWS])),
            )
        ],
    )
    assert bench.status_code == 201, bench.text
    scrapes = [
        ("files", (f"m{t}.prom", stream.exposition(t, scraped_at=ORIGIN + t).encode()))
        for t in (0, 300, 600)
    ]
    fields = {"deployment": "browser-prod", "num_gpus": "4"}
    stored = httpx.post(server + "/api/production", files=scrapes, data=fields)
    assert stored.status_code == 201, stored.text
    deployment = stored.json()["deployment_id"]
    sweep = bench.json()["sweeps"][0]["id"]
    address = (
        f"{server}/production/{deployment}?sweep={sweep}&tpot_ms=50&attainment=0.5"
        "&min_efficiency=0.9&usd_per_gpu_hour=2"
    )
    for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        page = new_page(viewport)
        page.goto(address)
        settle(page)
        assert sideways(page) == 0, name
        assert page.locator("#windows-table tbody tr.flagged").count() == 2
        # Two windows in the cloud, three frontier points: drawn, not only sent.
        assert page.locator("#overlay-figure-chart .scatterlayer .point").count() == 5
        assert page.locator("#efficiency-figure-chart .scatterlayer .point").count() >= 2
        # The TPOT median lies in a 25–50 ms bucket spanning the frontier: an interval, drawn
        # as a bar on the efficiency chart and written as one in the table.
        assert page.locator("#efficiency-figure-chart .errorbar").count() == 2
        assert " – " in (page.locator("#windows-table tbody tr .eff").first.text_content() or "")
        shoot(page, f"production-{name}")
        assert page.problems == [], name
    page = new_page(LAPTOP)
    page.goto(address)
    page.click("#explore-link")
    settle(page)
    legend = page.locator("#pareto-chart .legend").text_content() or ""
    assert "production: browser-prod" in legend
    assert page.locator("#production-overlay-note").count() == 1
    assert page.problems == []


def test_scrapes_go_up_through_the_production_form_and_the_upload_page_sends_them_there(
    server: str, new_page: Any, tmp_path: Path
) -> None:
    stream = make_stream(n=1200, duration_s=600)
    paths = []
    for t in (0, 300, 600):
        path = tmp_path / f"metrics-{t}.prom"
        path.write_text(stream.exposition(t, scraped_at=ORIGIN + t))
        paths.append(str(path))
    for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        # On Upload, the scrapes are sent on to Production's form, not refused.
        page = new_page(viewport)
        page.goto(server + "/upload")
        page.set_input_files("#upload-form input[name=files]:not([webkitdirectory])", paths[:2])
        notice = page.locator("#upload-telemetry")
        notice.wait_for()
        assert "metrics-0.prom, metrics-300.prom" in (notice.text_content() or "")
        assert sideways(page) == 0, name
        shoot(page, f"upload-prom-{name}")
        with page.expect_navigation():
            notice.locator("a").click()
        assert page.url.endswith("/production#production-upload")
        form = page.locator("#production-form")
        form.locator("input[name=files]").set_input_files(paths)
        form.locator("input[name=deployment]").fill(f"form-prod-{name}")
        form.locator("input[name=num_gpus]").fill("4")
        with page.expect_navigation():
            form.locator("#production-submit").click()
        settle(page)
        stored = page.locator("#production-stored")
        assert (stored.text_content() or "").split() [:6] == [
            "Stored", "2", "windows", "for", f"form-prod-{name}", "(new"
        ]  # fmt: skip
        assert sideways(page) == 0, name
        shoot(page, f"production-form-{name}")
        with page.expect_navigation():
            stored.locator("a.button").click()
        settle(page)
        assert page.locator("#windows-table tbody tr").count() == 2
        assert page.problems == [], name
