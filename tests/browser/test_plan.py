"""Plan in Chromium: set a demand, see the cheapest option marked and $/month drawn."""

from __future__ import annotations

import re
from typing import Any

from tests.helpers import shoot


def wait_for_plan_chart(page: Any) -> None:
    page.wait_for_selector("#plan-chart .main-svg", timeout=15000)


def test_plan_marks_the_cheapest_option_and_draws_cost_against_demand(page: Any) -> None:
    page.goto(page.base + "/plan")
    wait_for_plan_chart(page)
    # The nav's link carries the selection (issue 47).
    assert page.locator("nav a[href^='/plan?']").count() == 1
    page.evaluate("window.__marker = 'same page'")

    page.fill("#d-value", "40")
    page.press("#d-value", "Enter")
    page.wait_for_url(re.compile(r"requests_per_s=40"))
    wait_for_plan_chart(page)
    assert page.evaluate("window.__marker") == "same page"  # htmx swapped the view in place
    assert page.input_value("#d-value") == "40"

    cheapest_rows = page.locator("#plan-table tr.cheapest")
    assert cheapest_rows.count() == 1
    assert "★ cheapest" in cheapest_rows.inner_text()
    assert "Cheapest that meets the SLO" in page.inner_text("#plan-cheapest")
    lines = page.locator("#plan-chart .scatterlayer .trace")
    assert lines.count() >= 2
    legend = page.locator("#plan-chart .legend").text_content() or ""
    assert "★ cheapest at your demand" in legend
    replicas = page.locator("#plan-table td.replicas").all_inner_texts()
    assert any(r.strip() not in ("", "–") for r in replicas)

    page.select_option("#d-unit", "output_tok_s")
    page.wait_for_url(re.compile(r"output_tok_s=40"))
    wait_for_plan_chart(page)
    assert "output tok/s" in page.inner_text("#plan-summary")

    shoot(page, "plan")
    assert page.problems == []
