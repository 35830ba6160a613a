"""The Explore series picker in Chromium: the cap with the dropped sweep named, server-side
search that keeps the selection, and the frontier leaders in one click redrawing the chart."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

MODEL = "picker-llm"
# One point per sweep, x = 1000 / TPOT rising with i. Even sweeps fall from 1,000 to 800
# tok/s per GPU: all on the frontier. Odd sweeps sit at 500, behind the next even sweep.
ROWS = [
    f"pick-{i:02d},H100,1,{MODEL},1,{40 - i},{1000 - 10 * i if i % 2 == 0 else 500}"
    for i in range(21)
]
CSV = "sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s\n" + "\n".join(ROWS)
LEADERS = [f"pick-{i:02d}" for i in range(0, 21, 2)]

# Sweeps drawn: the sweep ids the chart's traces carry (meta.sweep; beyond 8 series the legend
# groups them by model and hardware, so legend groups no longer name sweeps).
DRAWN = """() => {
  const gd = document.getElementById('pareto-chart');
  if (!gd || !gd.data) return null;
  return [...new Set(gd.data.map(t => t.meta && t.meta.sweep).filter(s => s !== undefined))];
}"""


@pytest.fixture(scope="module")
def picked_ids(browser: Any, module_site: str) -> dict[str, int]:
    context = browser.new_context()
    response = context.request.post(
        module_site + "/api/sweeps",
        multipart={"files": {"name": "picks.csv", "mimeType": "text/csv", "buffer": CSV.encode()}},
    )
    assert response.status == 201, response.text()
    named = {s["name"]: s["id"] for s in response.json()["sweeps"]}
    context.close()
    return named


@pytest.fixture
def picker_page(browser: Any, module_site: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    page.base = module_site
    yield page
    context.close()


def drawn(page: Any) -> list[int]:
    groups = page.evaluate(DRAWN) or []
    return sorted(int(g) for g in groups)


def wait_drawn(page: Any, count: int) -> None:
    page.wait_for_function(f"() => {{ const d = ({DRAWN})(); return d && d.length === {count}; }}")


def wait_drawn_exactly(page: Any, expected: list[int]) -> None:
    """Wait until the chart draws exactly these sweeps: a swap redraws it (and Plotly may draw
    twice to move a wide legend below), so one look right after a count matched can catch it
    between the two."""
    wanted = sorted(str(i) for i in expected)
    page.wait_for_function(
        f"() => {{ const d = ({DRAWN})(); return d && JSON.stringify(d.map(String).sort()) === "
        f"{json.dumps(json.dumps(wanted, separators=(',', ':')))}; }}"
    )


def checked_names(page: Any) -> list[str]:
    return page.locator("#picker-list input[name=sweep]:checked ~ .sweep-name").all_inner_texts()


def test_a_21st_ticked_series_is_not_drawn_and_is_named(
    picker_page: Any, picked_ids: dict[str, int]
) -> None:
    page = picker_page
    first20 = [picked_ids[f"pick-{i:02d}"] for i in range(20)]
    query = "&".join(f"sweep={i}" for i in first20)
    page.goto(f"{page.base}/?picked=1&preset=custom&{query}")
    wait_drawn(page, 20)
    assert "up to 20 series" in page.inner_text("#picker legend")
    assert page.locator("#series-dropped").count() == 0

    page.click("#picker-more > summary")  # the sweeps not selected fold away (issue 47)
    page.check(f"#s-{picked_ids['pick-20']}")
    page.wait_for_selector("#series-dropped")
    wait_drawn_exactly(page, first20)
    dropped = page.inner_text("#series-dropped")
    assert "1 sweep not drawn: only 20 series are drawn at once" in dropped
    assert "pick-20" in dropped
    assert page.locator("#readoff-table tbody tr").count() == 20
    assert not page.is_checked(f"#s-{picked_ids['pick-20']}")
    assert f"sweep={picked_ids['pick-20']}" not in page.url
    assert page.problems == []


def test_search_narrows_the_list_and_keeps_the_selected(
    picker_page: Any, picked_ids: dict[str, int]
) -> None:
    page = picker_page
    page.goto(f"{page.base}/?picked=1&preset=custom&sweep={picked_ids['pick-03']}")
    wait_drawn(page, 1)
    page.evaluate("() => { window.__marker = 'same page'; }")
    before = page.locator("#picker-list input[name=sweep]").count()
    assert before > 12  # 21 picks and the seeded sweeps

    page.locator("#picker-q").press_sequentially("pick-1", delay=20)
    page.wait_for_function(
        "() => document.querySelector('#picker-count').textContent.includes('10 matching')"
    )
    names = page.locator("#picker-list .sweep-name").all_inner_texts()
    assert names[0] == "pick-03"  # the selected sweep stays, ticked, though it does not match
    assert sorted(names[1:]) == [f"pick-{i:02d}" for i in range(10, 20)]
    assert checked_names(page) == ["pick-03"]
    groups = page.locator("#picker-list .picker-group-title").all_inner_texts()
    assert groups == ["Selected", f"{MODEL} · H100 (10)"]
    # Only the list was swapped: same page, the chart untouched, the search box keeps focus.
    assert page.evaluate("() => window.__marker") == "same page"
    assert page.evaluate("() => document.activeElement.id") == "picker-q"
    assert drawn(page) == [picked_ids["pick-03"]]

    # Ticking a match keeps the search (it is in the URL) and draws both.
    page.check(f"#s-{picked_ids['pick-12']}")
    wait_drawn(page, 2)
    page.wait_for_url(re.compile(r"q=pick-1"))
    assert page.input_value("#picker-q") == "pick-1"
    assert checked_names(page) == ["pick-03", "pick-12"]
    assert page.problems == []


def test_the_frontier_leaders_button_selects_the_leaders_and_redraws(
    picker_page: Any, picked_ids: dict[str, int]
) -> None:
    page = picker_page
    page.goto(f"{page.base}/?picked=1&preset=custom&model={MODEL}&sweep={picked_ids['pick-01']}")
    wait_drawn(page, 1)
    page.click("#picker-leaders")
    page.wait_for_selector("#leaders-note")
    wait_drawn_exactly(page, [picked_ids[n] for n in LEADERS])
    assert checked_names(page) == LEADERS  # ranked: the higher throughput first
    assert "Selected the 11 frontier leaders" in page.inner_text("#leaders-note")
    page.wait_for_url(re.compile(r"sweep=" + str(picked_ids["pick-00"])))
    assert "select=" not in page.url
    assert page.problems == []
