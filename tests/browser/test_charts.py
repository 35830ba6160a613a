"""Charts that stay readable, measured in Chromium (issue 13, points 4 and 9).

Boxes come from Plotly's own layout (`_fullLayout._size` is the plot area inside the chart div)
and from the drawn SVG, so each test checks where things are on screen, not only the JSON.
Screenshots at 1280×720 and 390 px go to test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.views.explore_state import MAX_SERIES
from tests.browser.conftest import run_server
from tests.helpers import shoot_element

HARDWARE = ("H100", "H200", "B200", "MI300X")
MODELS = ("llama-3.1-70b", "llama-3.1-8b", "qwen-2.5-32b")
SERIES = 21


def many_chart_sweeps_csv(n: int) -> bytes:
    """n sweeps of four load levels each, over 3 models × 4 GPU types."""
    lines = [
        "sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,"
        "ttft_p99_ms,output_tok_s"
    ]
    for i in range(n):
        hw, model = HARDWARE[i % 4], MODELS[i % 3]
        name = f"run {i + 1:02d} · {model} · 8×{hw}"
        for k, concurrency in enumerate((1, 4, 16, 64)):
            tpot = (10 + i) * (1 + 0.5 * k)
            out = (400 + 37 * i) * concurrency**0.8
            lines.append(
                f"{name},{hw},8,{model},{concurrency},{tpot:.2f},{tpot * 1.2:.2f},"
                f"{80 + 20 * k},{100 + 30 * k},{out:.1f}"
            )
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def own_server(site_folder: Callable[[str], Path]) -> Iterator[str]:
    """A server of its own: the 21 sweeps added here would change other tests' default view."""
    with run_server(site_folder("charts")) as url:
        yield url


@pytest.fixture(scope="module")
def many_query(browser: Any, own_server: str) -> str:
    context = browser.new_context()
    response = context.request.post(
        own_server + "/api/sweeps",
        multipart={
            "files": {
                "name": "many.csv",
                "mimeType": "text/csv",
                "buffer": many_chart_sweeps_csv(SERIES),
            }
        },
    )
    assert response.status == 201, response.text()
    ids = [s["id"] for s in response.json()["sweeps"]]
    context.close()
    assert len(ids) == SERIES
    return "&".join(["picked=1", *(f"sweep={i}" for i in ids)])


def open_sized_page(browser: Any, url: str, width: int, height: int) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    page.goto(url)
    return page


def wait_for_drawn_chart(page: Any, selector: str) -> None:
    page.wait_for_selector(f"{selector} .main-svg", timeout=20000)
    page.wait_for_function(
        "(sel) => { const gd = document.querySelector(sel); return gd && gd._fullLayout"
        " && gd._fullLayout._size && gd.querySelector('.legend, .scatterlayer'); }",
        arg=selector,
    )


BOXES = """(sel) => {
  const gd = document.querySelector(sel);
  const at = gd.getBoundingClientRect();
  const rel = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
    return {left: r.left - at.left, top: r.top - at.top, right: r.right - at.left,
            bottom: r.bottom - at.top}; };
  const s = gd._fullLayout._size;
  return {
    width: at.width, height: at.height,
    plot: {left: s.l, top: s.t, right: s.l + s.w, bottom: s.t + s.h},
    legend: rel(gd.querySelector('.legend .bg')),  // the visible box; content scrolls in it
    xtitle: rel(gd.querySelector('.g-xtitle')),
    entries: gd._fullData.filter(t => t.showlegend !== false).length,
    headings: gd.querySelectorAll('.legend .traces').length
      - gd._fullData.filter(t => t.showlegend !== false).length,
  };
}"""


def shot(page: Any, selector: str, name: str) -> None:
    page.locator(selector).scroll_into_view_if_needed()
    shoot_element(page.locator(selector), name.removesuffix(".png"))


def test_21_selected_series_keep_their_legend_beside_the_plot_at_1280(
    browser: Any, own_server: str, many_query: str
) -> None:
    page = open_sized_page(browser, f"{own_server}/?{many_query}", 1280, 720)
    wait_for_drawn_chart(page, "#pareto-chart")
    boxes = page.evaluate(BOXES, "#pareto-chart")
    shown = min(SERIES, MAX_SERIES)  # the series cap, stated on the page, may be below 21
    assert boxes["entries"] == shown
    assert boxes["headings"] == 12  # grouped under model · hardware headings: 3 × 4 pairs
    legend, plot = boxes["legend"], boxes["plot"]
    # Beside the plot, never over it, and within the chart (it scrolls rather than spill).
    assert legend["left"] >= plot["right"]
    assert legend["bottom"] <= boxes["height"] + 1
    assert plot["right"] - plot["left"] >= 0.5 * boxes["width"]
    assert page.locator("#pareto-chart .legend .scrollbar").count() == 1
    shot(page, "#pareto-chart", "charts-21-series-1280.png")

    # No two series look alike: colour, symbol and dash together differ.
    looks = page.evaluate(
        "() => document.getElementById('pareto-chart')._fullData"
        ".filter(t => t.showlegend !== false && t.mode === 'lines+markers')"
        ".map(t => [t.line.color, t.marker.symbol, t.line.dash].join('|'))"
    )
    assert len(looks) == len(set(looks)) == shown

    # A click on one legend entry hides that sweep's every trace (its star and dominated points).
    before = page.evaluate(
        "() => document.getElementById('pareto-chart').data"
        ".filter(t => t.name.startsWith('run 01 ')).length"
    )
    page.locator("#pareto-chart .legend .traces", has_text="run 01 ").click()
    page.wait_for_function(
        "() => document.getElementById('pareto-chart').data"
        ".filter(t => t.name.startsWith('run 01 ')).every(t => t.visible === 'legendonly')"
    )
    others = page.evaluate(
        "() => document.getElementById('pareto-chart').data"
        ".filter(t => !t.name.startsWith('run 01 ') && t.visible === 'legendonly').length"
    )
    assert before >= 2 and others == 0
    assert page.problems == []
    page.context.close()


def test_21_selected_series_put_the_legend_below_the_plot_at_390_px(
    browser: Any, own_server: str, many_query: str
) -> None:
    page = open_sized_page(browser, f"{own_server}/?{many_query}", 390, 844)
    wait_for_drawn_chart(page, "#pareto-chart")
    boxes = page.evaluate(BOXES, "#pareto-chart")
    legend, plot, xtitle = boxes["legend"], boxes["plot"], boxes["xtitle"]
    # Below the plot and below the axis title: overlapping neither.
    assert legend["top"] >= plot["bottom"]
    assert legend["top"] >= xtitle["bottom"] - 1
    assert legend["bottom"] <= boxes["height"] + 1
    assert plot["bottom"] - plot["top"] >= 250  # the plot keeps a readable height
    shot(page, "#pareto-chart", "charts-21-series-390.png")
    assert page.problems == []
    page.context.close()


FLOOR = """(sel) => {
  const gd = document.querySelector(sel);
  const xa = gd._fullLayout.xaxis;
  const shapes = gd.layout.shapes;
  const line = shapes.findIndex(s => s.name === 'slo-floor');
  const band = shapes.findIndex(s => s.name === 'slo-band');
  const first = (k) => {
    const path = gd.querySelector(`.shapelayer path[data-index="${k}"]`);
    return path ? parseFloat(path.getAttribute('d').slice(1)) : null;
  };
  const label = Array.from(gd.querySelectorAll('.annotation'))
    .find(a => a.textContent.startsWith('SLO:'));
  const at = gd.getBoundingClientRect();
  const r = label.getBoundingClientRect();
  return {
    type: xa.type, floor: shapes[line].x0, line: first(line), band: band < 0 ? null : first(band),
    expected: xa._offset + xa.d2p(shapes[line].x0), left: xa._offset,
    right: xa._offset + xa._length,
    label: [r.left - at.left, r.right - at.left], anchor: gd.layout.annotations
      .find(a => a.name === 'slo-floor-label').xanchor,
  };
}"""


def check_floor(place: dict[str, Any]) -> None:
    assert place["type"] == "log"
    assert place["floor"] == pytest.approx(25.0)  # chat preset: p50 TPOT ≤ 40 ms
    assert place["line"] == pytest.approx(place["expected"], abs=0.5)
    assert place["left"] < place["line"] < place["right"]
    assert place["band"] == pytest.approx(place["left"], abs=0.5)  # the band starts at the edge
    side = 0 if place["anchor"] == "left" else 1
    assert place["label"][side] == pytest.approx(place["line"], abs=6)


def test_on_log_x_the_slo_floor_line_sits_at_the_axis_position_of_the_floor(page: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(page.base + "/?logx=1")
    wait_for_drawn_chart(page, "#pareto-chart")
    check_floor(page.evaluate(FLOOR, "#pareto-chart"))
    shot(page, "#pareto-chart", "charts-log-x-floor-1280.png")
    assert page.problems == []


def test_the_offline_report_places_the_log_x_floor_the_same_way(page: Any) -> None:
    report = page.request.get(page.base + "/report?logx=1")
    assert report.status == 200
    page.set_viewport_size({"width": 1280, "height": 720})
    page.set_content(report.text())
    wait_for_drawn_chart(page, "#pareto-chart")
    check_floor(page.evaluate(FLOOR, "#pareto-chart"))
    assert page.problems == []


def test_the_sweep_page_gives_ttft_and_tpot_their_own_axes(page: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(page.base + "/sweeps")
    href = page.locator("a", has_text=re.compile(r"Demo · Llama 3\.1 70B · 8×H100")).first
    href.click()
    wait_for_drawn_chart(page, "#latency-figure-chart")
    axes = page.evaluate(
        """() => {
      const gd = document.getElementById('latency-figure-chart');
      const fl = gd._fullLayout;
      const span = (t) => { const ax = t.yaxis === 'y2' ? fl.yaxis2 : fl.yaxis;
        const ps = t.y.map(v => ax.d2p(v)); return Math.max(...ps) - Math.min(...ps); };
      return {
        traces: gd._fullData.map(t => [t.name, t.yaxis, span(t)]),
        y: fl.yaxis.range, y2: fl.yaxis2.range, side: fl.yaxis2.side,
        height: fl._size.h,
        titles: [fl.yaxis.title.text, fl.yaxis2.title.text],
      };
    }"""
    )
    assert axes["titles"] == ["TTFT (ms)", "TPOT (ms)"]
    assert axes["side"] == "right"
    names = {name: (axis, span) for name, axis, span in axes["traces"]}
    assert {n.split(" (")[0] for n in names} >= {"TTFT p50", "TPOT p50"}
    for name, (axis, span) in names.items():
        assert axis == ("y2" if name.startswith("TPOT") else "y")
        # Each line uses its own axis's height: TPOT is no longer flat on zero.
        assert span >= 0.3 * axes["height"], name
    assert axes["y2"][1] < axes["y"][1] / 5  # TPOT's scale is its own, far below TTFT's
    e2el = page.evaluate(
        "() => document.getElementById('e2el-figure-chart')._fullLayout.yaxis.title.text"
    )
    assert e2el in ("E2EL (s)", "E2EL (ms)")
    shot(page, ".sweep-charts", "charts-sweep-page-1280.png")
    assert page.problems == []


def test_the_log_x_band_does_not_stretch_the_axis_past_the_data(page: Any) -> None:
    page.goto(page.base + "/api/explore?logx=1")
    figure = page.evaluate("() => JSON.parse(document.body.innerText).figure")
    xs = [
        x
        for t in figure["data"]
        if isinstance(t.get("meta"), dict)
        for x in t["x"]
        if isinstance(x, int | float)
    ]
    low, high = figure["layout"]["xaxis"]["range"]
    assert 10**low == pytest.approx(min(min(xs), 25.0) / 1.25)
    assert 10**high == pytest.approx(max(xs) * 1.25)
    assert math.isfinite(low)
