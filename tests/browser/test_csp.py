"""The pages draw their charts under the real Content-Security-Policy, with no style let through
by 'unsafe-inline' (there is none) and no violation reported by Chromium."""

from __future__ import annotations

import re
from typing import Any

import pytest

# Recorded from the first script on: Plotly may break the policy before any test code runs.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(
  [e.effectiveDirective, e.blockedURI, e.sample || '', e.sourceFile || '', e.lineNumber]));
"""

# The first chart of each page is hovered too, except History's: Plotly.Fx.hover opens no label
# on its first point there, so its charts are checked as drawn only.
NO_HOVER = {"/history"}
CHARTS = {
    "/": ["#pareto-chart"],
    "/sweeps/1": ["#latency-figure-chart", "#throughput-figure-chart"],
    "/compare?sweep=1&sweep=2": ["#ratio-chart", "#cost-chart"],
    "/plan": ["#plan-chart"],
    "/history": ["#history-chart", "#history-cost-chart"],
    "/claims/1": ["#claim-chart"],
}


def violations(page: Any) -> list[Any]:
    return list(page.evaluate("window.__violations"))


def draw(page: Any, chart: str) -> None:
    page.wait_for_selector(f"{chart} .main-svg", timeout=20000)
    page.wait_for_function("(sel) => document.querySelector(sel)._fullLayout", arg=chart)


def draw_and_hover(page: Any, chart: str) -> None:
    """Wait for the chart, then hover its first point so Plotly writes its hover label (bold
    names, <br> lines) as a user's pointer would."""
    draw(page, chart)
    page.evaluate(
        """(sel) => { const gd = document.querySelector(sel);
          const i = gd._fullData.findIndex((t) => t.hoverinfo !== 'skip' && t.x && t.x.length);
          window.Plotly.Fx.hover(gd, [{curveNumber: i, pointNumber: 0}]); }""",
        chart,
    )
    page.wait_for_selector(f"{chart} .hoverlayer > *", state="attached", timeout=10000)


@pytest.mark.parametrize("path", list(CHARTS))
def test_a_page_draws_and_hovers_its_charts_without_a_csp_violation(page: Any, path: str) -> None:
    page.add_init_script(RECORD_VIOLATIONS)
    response = page.goto(page.base + path)
    policy = response.headers["content-security-policy"]
    assert "'unsafe-inline'" not in policy
    first, *others = CHARTS[path]
    if path in NO_HOVER:
        draw(page, first)
    else:
        draw_and_hover(page, first)
    for chart in others:
        draw(page, chart)
    # Plotly's own small stylesheet (an empty <style> it fills through CSSOM) took effect.
    assert page.evaluate(
        "[...document.styleSheets].some((s) => !s.href && s.ownerNode.id.startsWith('plotly'))"
    )
    assert violations(page) == []
    assert page.problems == []


def test_explore_redraws_after_an_htmx_update_and_back_without_a_csp_violation(page: Any) -> None:
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(page.base + "/")
    draw(page, "#pareto-chart")
    page.fill("#slo-tpot", "10")
    page.press("#slo-tpot", "Enter")
    page.wait_for_url(re.compile(r"tpot_ms=10"))
    draw_and_hover(page, "#pareto-chart")
    page.go_back()
    page.wait_for_function("() => document.querySelector('#slo-tpot').value === '40'")
    draw_and_hover(page, "#pareto-chart")
    assert violations(page) == []
    assert page.problems == []


def test_the_offline_report_draws_under_its_own_policy_without_a_csp_violation(
    page: Any,
) -> None:
    report = page.request.get(page.base + "/report")
    assert report.status == 200
    assert "'unsafe-inline'" not in report.headers["content-security-policy"]
    # Opened as a page of its own (a download otherwise), with the server's own headers.
    headers = {k: v for k, v in report.headers.items() if k != "content-disposition"}
    body = report.body()
    page.route(
        page.base + "/opened-report", lambda route: route.fulfill(headers=headers, body=body)
    )
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(page.base + "/opened-report")
    draw_and_hover(page, "#pareto-chart")
    # The report's stylesheet applied: its header bar has the report's colour.
    background = page.evaluate(
        "getComputedStyle(document.querySelector('.report-head')).background"
    )
    assert "rgb(22, 32, 42)" in background
    assert violations(page) == []
    assert page.problems == []


def test_series_swatches_take_their_colour_from_classes(page: Any) -> None:
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(page.base + "/compare?sweep=1&sweep=2")
    swatches = page.locator("#main .swatch")
    assert swatches.count() >= 2
    colours = swatches.evaluate_all("(els) => els.map((e) => getComputedStyle(e).backgroundColor)")
    # The first two series colours of the palette (#0072B2, #B07800), none left grey.
    assert "rgb(0, 114, 178)" in colours and "rgb(176, 120, 0)" in colours
    assert "rgb(153, 153, 153)" not in colours
    assert violations(page) == []


def test_the_api_docs_render_without_a_csp_violation(page: Any) -> None:
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(page.base + "/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20000)
    assert violations(page) == []
    assert page.problems == []
