"""Hostile names in Chromium: uploaded through the UI, shown on every page and in the offline
report, they never run, while the charts still draw and the app's own scripts meet the CSP.

Every payload tries to set window.__pwned or open a dialog. The page records dialogs, page
errors, `securitypolicyviolation` events (from an init script, which the CSP does not govern)
and console messages about the Content Security Policy; all must stay empty.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import run_server

BREAKOUT = "</script><script>window.__pwned=1;alert(1)</script>"
COMMENT = "<!--<script>window.__pwned=2</script>"
SEPARATORS = "line\u2028sep\u2029para \"dq\" 'sq' & amp"
ATTRIBUTE = '"><img src=x onerror="window.__pwned=3;alert(3)">'
NAMES = [BREAKOUT, COMMENT, SEPARATORS, ATTRIBUTE]
# A file name cannot hold "/", so it carries the attribute payload.
FILE_NAME = "<img src=x onerror=alert(5)>.csv"

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI + " " + (e.sample || ""));
});
"""


def hostile_names_csv() -> bytes:
    def cell(text: str) -> str:
        return '"' + text.replace('"', '""') + '"'

    lines = [
        "sweep,hardware,num_gpus,model,engine,measured_at,concurrency,tpot_p50_ms,"
        "tpot_p90_ms,ttft_p90_ms,ttft_p99_ms,output_tok_s"
    ]
    for i, name in enumerate(NAMES):
        engine = cell(BREAKOUT) if i == 0 else "vllm"  # History labels name the engine
        for concurrency, tpot, tok_s in ((1, 12.0, 700), (8, 18.0, 4400), (32, 30.0, 9000)):
            lines.append(
                f"{cell(name)},H100,8,llama-3.1-70b,{engine},2026-0{i + 1}-15,{concurrency},"
                f"{tpot},{tpot * 1.2:.1f},150,180,{tok_s * (10 + i) // 10}"
            )
    return ("\n".join(lines) + "\n").encode()


class Watched:
    """A browser context that records everything a hostile name could make happen."""

    def __init__(self, browser: Any, **options: Any) -> None:
        self.context = browser.new_context(
            viewport={"width": 1440, "height": 900}, accept_downloads=True, **options
        )
        self.context.add_init_script(WATCH)
        self.page = self.context.new_page()
        self.dialogs: list[str] = []
        self.problems: list[str] = []
        self.page.on("dialog", self._dialog)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("console", self._console)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _console(self, message: Any) -> None:
        text = message.text
        if "Content Security Policy" in text or "Refused to" in text or message.type == "error":
            self.problems.append(f"console {message.type}: {text}")

    def assert_nothing_ran(self, where: str) -> None:
        page = self.page
        assert self.dialogs == [], where
        assert page.evaluate("() => window.__pwned") is None, where
        assert page.evaluate("() => window.__violations") == [], where
        assert self.problems == [], where
        assert page.locator("img[src='x']").count() == 0, where

    def charts(self, *ids: str) -> None:
        for chart in ids:
            self.page.wait_for_selector(f"#{chart}.js-plotly-plot .main-svg", timeout=15000)


@pytest.fixture(scope="module")
def hostile_site(site_folder: Callable[[str], Path]) -> Iterator[str]:
    """A server of its own, so the hostile sweeps do not change what other browser tests see."""
    with run_server(site_folder("hostile")) as url:
        yield url


@pytest.fixture(scope="module")
def hostile_entries(browser: Any, hostile_site: str) -> dict[str, Any]:
    """Upload the hostile sweeps and record a hostile claim through the forms, as a user would."""
    watched = Watched(browser)
    page = watched.page
    page.goto(hostile_site + "/upload")
    page.set_input_files(
        "input[name=files]",
        files=[{"name": FILE_NAME, "mimeType": "text/csv", "buffer": hostile_names_csv()}],
    )
    page.wait_for_selector("#upload-preview article")
    assert FILE_NAME in page.inner_text("#upload-preview")
    watched.assert_nothing_ran("upload preview")
    # The preview prefills each sweep's name into its details field: as text, not markup.
    names = page.locator("#details-form input[name$='.sweep']").evaluate_all(
        "inputs => inputs.map(i => i.value)"
    )
    assert sorted(names) == sorted(NAMES), names
    page.click("#upload-save")
    page.wait_for_selector("#upload-summary")
    summary = page.inner_text("#saved-sweeps")
    assert BREAKOUT in summary and COMMENT in summary, summary
    watched.assert_nothing_ran("upload summary")
    page.goto(hostile_site + "/sweeps")
    listed = page.inner_text("#sweeps-table")
    assert BREAKOUT in listed and COMMENT in listed, listed
    watched.assert_nothing_ran("sweeps list after upload")

    sweeps = page.request.get(hostile_site + "/api/sweeps?per_page=100").json()["sweeps"]
    ids = {s["name"]: s["id"] for s in sweeps if s["name"] in NAMES}
    assert sorted(ids) == sorted(NAMES)

    page.goto(hostile_site + "/claims")
    form = page.locator("#claim-form form")
    form.locator("input[name=vendor]").fill(BREAKOUT)
    form.locator("input[name=value_tok_s]").fill("3000")
    form.locator("select[name=measures]").select_option("per_user")
    form.locator("select[name=token_basis]").select_option("output")
    form.locator("select[name=hardware]").select_option("H100")
    form.locator("input[name=model]").fill("llama-3.1-70b")
    form.locator("input[name=source_url]").fill("javascript:window.__pwned=4")
    form.locator("textarea[name=notes]").fill(COMMENT + SEPARATORS + ATTRIBUTE)
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/claims/\d+"))
    claim = int(page.url.split("/claims/")[1].split("?")[0])
    watched.assert_nothing_ran("claim audit after saving")

    page.goto(hostile_site + "/pricing")
    form = page.locator("#profile-form form")
    form.locator("input[name=name]").fill(BREAKOUT + ATTRIBUTE)
    form.locator("select[name=kind]").select_option("rental")
    form.locator("select[name=hardware]").select_option("H100")
    form.locator("input[name=usd_per_gpu_hour]").fill("2")
    form.locator("input[name=source]").fill(COMMENT + SEPARATORS)
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/pricing#profile-\d+"))
    profile = int(page.url.rsplit("-", 1)[1])
    watched.assert_nothing_ran("pricing after saving")
    watched.context.close()
    return {"sweeps": [ids[n] for n in NAMES], "claim": claim, "profile": profile}


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    w = Watched(browser)
    yield w
    w.context.close()


def query(ids: list[int], **extra: Any) -> str:
    parts = [f"sweep={i}" for i in ids] + [f"{k}={v}" for k, v in extra.items()]
    return "&".join(parts)


def test_explore_shows_hostile_names_and_draws_the_charts_and_redraws_after_htmx(
    hostile_site: str, hostile_entries: dict[str, Any], watched: Watched
) -> None:
    page = watched.page
    page.goto(f"{hostile_site}/?{query(hostile_entries['sweeps'], sensitivity='tpot')}")
    watched.charts("pareto-chart", "sensitivity-chart")
    assert page.locator("#pareto-chart .legend .traces").count() >= 4
    table = page.inner_text("#readoff-table")
    assert BREAKOUT in table and COMMENT in table
    watched.assert_nothing_ran("explore")

    page.evaluate("() => { window.__marker = 'same page' }")
    page.click("#axes-more > summary")  # the axes fold away (issue 47)
    page.select_option("#a-stat", "p90")
    page.wait_for_url(re.compile(r"stat=p90"))
    page.wait_for_function(
        "() => document.querySelector('#pareto-chart .g-xtitle')?.textContent.includes('p90')"
    )
    watched.charts("pareto-chart", "sensitivity-chart")
    assert page.evaluate("() => window.__marker") == "same page"
    watched.assert_nothing_ran("explore after an htmx swap")


def test_a_hostile_pricing_profile_stays_text_on_pricing_explore_and_compare(
    hostile_site: str, hostile_entries: dict[str, Any], watched: Watched
) -> None:
    page = watched.page
    page.goto(f"{hostile_site}/pricing")
    assert BREAKOUT + ATTRIBUTE in page.inner_text("#main")
    watched.assert_nothing_ran("pricing")
    priced = query(
        hostile_entries["sweeps"], pricing=hostile_entries["profile"], sensitivity="tpot"
    )
    page.goto(f"{hostile_site}/?{priced}")
    watched.charts("pareto-chart", "sensitivity-chart")
    assert BREAKOUT + ATTRIBUTE in page.inner_text("#readoff-table")
    watched.assert_nothing_ran("explore priced by the hostile profile")
    page.goto(f"{hostile_site}/compare?{priced}")
    watched.charts("ratio-chart", "cost-chart", "cost-sensitivity-chart")
    watched.assert_nothing_ran("compare priced by the hostile profile")
    page.goto(f"{hostile_site}/metrics")
    watched.assert_nothing_ran("metrics")


def test_compare_and_history_draw_every_chart_with_hostile_names(
    hostile_site: str, hostile_entries: dict[str, Any], watched: Watched
) -> None:
    page = watched.page
    picked = query(hostile_entries["sweeps"], usd_per_gpu_hour=2, sensitivity="tpot")
    page.goto(f"{hostile_site}/compare?{picked}")
    watched.charts("ratio-chart", "cost-chart", "sensitivity-chart", "cost-sensitivity-chart")
    assert BREAKOUT in page.inner_text("#main")
    watched.assert_nothing_ran("compare")

    page.goto(f"{hostile_site}/history?model=llama-3.1-70b&usd_per_gpu_hour=2")
    watched.charts("history-chart", "history-cost-chart")
    assert BREAKOUT in page.inner_text("#main")
    watched.assert_nothing_ran("history")


def test_sweep_pages_and_claims_pages_stay_inert(
    hostile_site: str, hostile_entries: dict[str, Any], watched: Watched
) -> None:
    page = watched.page
    titles = []
    for sweep_id in hostile_entries["sweeps"]:
        page.goto(f"{hostile_site}/sweeps/{sweep_id}")
        watched.charts("latency-figure-chart", "throughput-figure-chart")
        titles.append(page.locator("h1").text_content())
        watched.assert_nothing_ran(f"sweep {sweep_id}")
    assert titles == NAMES  # each name shown exactly as typed
    page.goto(f"{hostile_site}/sweeps")
    watched.assert_nothing_ran("sweeps list")

    page.goto(f"{hostile_site}/claims")
    assert BREAKOUT in page.inner_text("main")
    assert page.locator("a[href^='javascript']").count() == 0
    watched.assert_nothing_ran("claims list")
    page.goto(f"{hostile_site}/claims/{hostile_entries['claim']}")
    watched.charts("claim-chart")
    assert BREAKOUT in page.inner_text("main")
    assert page.locator("a[href^='javascript']").count() == 0
    watched.assert_nothing_ran("claim audit")
    page.goto(f"{hostile_site}/claims?edit={hostile_entries['claim']}")
    assert page.locator("input[name=vendor]").input_value() == BREAKOUT
    watched.assert_nothing_ran("claim edit form")


def test_the_delete_confirmation_still_asks_without_an_inline_handler(
    hostile_site: str, hostile_entries: dict[str, Any], watched: Watched
) -> None:
    page = watched.page
    page.goto(f"{hostile_site}/sweeps/{hostile_entries['sweeps'][3]}")
    page.click("form.danger-zone button[type=submit]")
    # The dialog was dismissed, so nothing was deleted and the page stays. (A click waits for a
    # navigation it starts, so a submission the dismissal failed to stop would show here.)
    page.wait_for_load_state()
    assert watched.dialogs == ["Delete this sweep and all its points?"]
    assert page.url.endswith(f"/sweeps/{hostile_entries['sweeps'][3]}")
    assert (
        page.request.get(f"{hostile_site}/api/sweeps/{hostile_entries['sweeps'][3]}").status == 200
    )
    watched.dialogs.clear()
    watched.assert_nothing_ran("after the confirmation")


@pytest.mark.parametrize("view", ["explore", "compare"])
def test_the_offline_report_with_hostile_names_draws_and_runs_nothing_else(
    browser: Any, hostile_site: str, hostile_entries: dict[str, Any], tmp_path: Path, view: str
) -> None:
    url = f"{hostile_site}/report?{query(hostile_entries['sweeps'], view=view, usd_per_gpu_hour=2)}"
    online = Watched(browser)
    response = online.page.request.get(url)
    assert response.status == 200
    path = tmp_path / f"{view}.html"
    path.write_bytes(response.body())
    online.context.close()

    offline = Watched(browser, offline=True)
    offline.page.goto(path.as_uri())
    offline.charts("pareto-chart" if view == "explore" else "ratio-chart")
    assert BREAKOUT in offline.page.inner_text("main")
    offline.assert_nothing_ran(f"{view} report")
    offline.context.close()
