"""Chart axes write numbers by the app's rule in Chromium: separators, never SI suffixes."""

from __future__ import annotations

import re
from typing import Any

SI_SUFFIX = re.compile(r"\d[kMGT]$")


def tick_texts(page: Any, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_text_contents() if t.strip()]


def test_axis_ticks_have_thousands_separators_and_no_si_suffix(page: Any) -> None:
    page.goto(page.base + "/")
    page.wait_for_selector("#pareto-chart .main-svg", timeout=15000)
    ticks = tick_texts(page, "#pareto-chart .ytick text") + tick_texts(
        page, "#pareto-chart .xtick text"
    )
    assert ticks, "the chart drew no tick labels"
    assert [t for t in ticks if SI_SUFFIX.search(t)] == []
    big = [t for t in ticks if len(t.replace(",", "").split(".")[0].lstrip("−-")) >= 4]
    assert big and all("," in t for t in big), ticks
    assert page.problems == []
