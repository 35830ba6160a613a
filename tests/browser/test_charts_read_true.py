"""Charts that read true, in Chromium at 1280×720 and 390×844 (issue 32 §2): an outlier series
leaves the axes to the bulk with "Show all points" one click away, a phone legend shows every
entry, the rendered tick labels are the tables' numbers, the offline report fits a phone and
History's sidebar shows every control. Screenshots of each page go to
test-artifacts/charts-<page>-<size>.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from app.domain.numbers import fmt_number, fmt_usd
from tests.browser.conftest import resize, sharing
from tests.browser.test_charts import many_chart_sweeps_csv, wait_for_drawn_chart
from tests.conftest import FIXTURES
from tests.helpers import shoot

SIZES = {"1280": {"width": 1280, "height": 720}, "390": {"width": 390, "height": 844}}
REAL = 19  # real-looking sweeps; with the mock server, 20 series (the picker's cap)


def mock_csv() -> bytes:
    """A mock server (no model behind it): 1,100 tok/s/user, ten times any real sweep here."""
    lines = ["sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,tpot_p90_ms,output_tok_s"]
    for k, concurrency in enumerate((1, 4, 16, 64)):
        tpot = 0.9 * (1 + 0.2 * k)
        lines.append(
            f"mock server (llm-d inference-sim),H100,8,llama-3.1-70b,{concurrency},"
            f"{tpot:.3f},{tpot * 1.1:.3f},{900 * concurrency**0.8:.1f}"
        )
    return ("\n".join(lines) + "\n").encode()


def post(url: str, name: str, data: bytes, **fields: Any) -> list[int]:
    response = httpx.post(
        url + "/api/sweeps", files=[("files", (name, data))], data=fields, timeout=60
    )
    assert response.status_code == 201, response.text
    return [s["id"] for s in response.json()["sweeps"]]


@pytest.fixture(scope="module")
def read_true_site(server: str) -> Iterator[dict[str, Any]]:
    with sharing(server) as url:
        real = post(url, "many.csv", many_chart_sweeps_csv(REAL))
        mock = post(url, "mock.csv", mock_csv())
        vllm = sorted((FIXTURES / "vllm").glob("stellalee_openai-*qps-*.json"))
        files = [("files", (p.name, p.read_bytes())) for p in vllm]
        fields = {
            "sweep": "vLLM Qwen2.5-Coder-7B · rate sweep",
            "hardware": "H100",
            "num_gpus": "1",
        }
        response = httpx.post(url + "/api/sweeps", files=files, data=fields, timeout=60)
        assert response.status_code == 201, response.text
        rate = response.json()["sweeps"][0]["id"]
        claims = httpx.get(url + "/api/claims").json()
        claim_ids = [c["id"] for c in (claims["claims"] if isinstance(claims, dict) else claims)]
        # The claims whose audit draws a chart (a claim with no comparable sweep has none).
        drawn = [i for i in claim_ids if "claim-chart" in httpx.get(f"{url}/claims/{i}").text]
        sweeps = httpx.get(url + "/api/sweeps", params={"per_page": 100}).json()["sweeps"]
        demo = [s["id"] for s in sweeps if s["name"].startswith("Demo")][:3]
        yield {
            "url": url, "real": real, "mock": mock, "rate": rate, "claims": drawn, "demo": demo
        }  # fmt: skip


def outlier_explore_url(read_true_site: dict[str, Any], **extra: Any) -> str:
    params: list[tuple[str, Any]] = [("picked", 1), *(("sweep", i) for i in read_true_site["real"])]
    params += [("sweep", i) for i in read_true_site["mock"]]
    params += list(extra.items())
    return "/?" + urlencode(params)


def open_at(browser: Any, url: str, size: str) -> Any:
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    page.problems = []
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    page.goto(url)
    return page


def x_range(page: Any) -> list[float]:
    return list(
        page.evaluate("() => document.getElementById('pareto-chart')._fullLayout.xaxis.range")
    )


def test_an_outlier_leaves_the_axes_to_the_bulk_and_show_all_points_is_one_click(
    browser: Any, read_true_site: dict[str, Any]
) -> None:
    """On a phone (where the legend shows every entry too), resized to 1280×720, then back to
    the phone: a chart drawn wide redraws narrow (its legend below, its margin grown)."""
    page = open_at(browser, read_true_site["url"] + outlier_explore_url(read_true_site), "390")
    wait_for_drawn_chart(page, "#pareto-chart")
    for k, size in enumerate(("390", "1280", "390")):
        if k:
            resize(page, SIZES[size])
        else:
            # On a phone the legend shows every entry, without an inner scroll.
            legend = page.evaluate(LEGEND, "#pareto-chart")
            assert legend["shown"] >= REAL + 1  # the sweeps, and "SLO unknown" (no TTFT)
            top, bottom, _, _ = legend["bg"]
            # Every entry (and group heading) is drawn inside the legend's box, in the chart.
            assert len(legend["items"]) >= legend["shown"]
            assert all(top - 1 <= t and b <= bottom + 1 for t, b in legend["items"])
            assert bottom <= legend["chart"][1] + 1
            assert legend["scrollbar"] == 0
            assert legend["textRight"] <= legend["chart"][3] + 1
        low, high = x_range(page)
        # The real sweeps reach 100 tok/s/user; the mock's 1,100 does not set the axis.
        assert 100 <= high <= 120
        edge = page.evaluate(
            "() => document.getElementById('pareto-chart')._fullData"
            ".filter(t => t.meta && t.meta.edge === 'outlier').map(t => [t.name, t.text[0]])"
        )
        assert len(edge) == 1 and "694–1,111 tok/s/user" in edge[0][1]
        button = page.locator("#pareto-chart .updatemenu-button", has_text="Show all points")
        box, chart = button.bounding_box(), page.locator("#pareto-chart").bounding_box()
        assert box is not None and chart is not None
        assert chart["x"] <= box["x"] and box["x"] + box["width"] <= chart["x"] + chart["width"] + 1
        shoot(page, f"charts-explore-outlier-{size}")
        button.click()
        page.wait_for_function(
            "() => document.getElementById('pareto-chart')._fullLayout.xaxis.range[1] > 1100"
        )
        hidden = page.evaluate(
            "() => document.getElementById('pareto-chart').data"
            ".filter(t => t.meta && t.meta.edge === 'outlier').map(t => t.visible)"
        )
        assert hidden == [False]
        shoot(page, f"charts-explore-all-points-{size}")
        page.locator("#pareto-chart .updatemenu-button", has_text="Fit to the bulk").click()
        page.wait_for_function(
            "() => document.getElementById('pareto-chart')._fullLayout.xaxis.range[1] < 200"
        )
    assert page.problems == []
    page.context.close()


LEGEND = """(sel) => {
  const gd = document.querySelector(sel);
  const bg = gd.querySelector('.legend .bg').getBoundingClientRect();
  const at = gd.getBoundingClientRect();
  const items = [...gd.querySelectorAll('.legend .traces')].map(e => e.getBoundingClientRect());
  const texts = [...gd.querySelectorAll('.legend .legendtext')].map(e => e.getBoundingClientRect());
  return {
    bg: [bg.top, bg.bottom, bg.left, bg.right], chart: [at.top, at.bottom, at.left, at.right],
    items: items.map(r => [r.top, r.bottom]), textRight: Math.max(...texts.map(r => r.right)),
    shown: gd._fullData.filter(t => t.showlegend !== false).length,
    scrollbar: [...gd.querySelectorAll('.legend .scrollbar')]
      .map(e => e.getBoundingClientRect().height).reduce((a, b) => a + b, 0),
  };
}"""


TICKS = """() => [...document.querySelectorAll('[data-figure]')].flatMap((el) => {
  const fl = el._fullLayout;
  if (!fl) return [];
  return Object.keys(fl).filter(k => /^[xy]axis\\d*$/.test(k) && fl[k].visible !== false
      && fl[k].type !== 'date' && fl[k].type !== 'category')
    .flatMap(k => [...el.querySelectorAll(`.${fl[k]._id}tick text`)]
      .map(t => [el.id, k, fl[k].type, t.textContent]));
})"""


def app_number(text: str) -> bool:
    """Whether a tick label is what the tables' formatter writes for its value."""
    plain = text.replace("−", "-")
    if plain.startswith("$"):
        return fmt_usd(float(plain[1:].replace(",", ""))) == plain
    return fmt_number(float(plain.replace(",", ""))) == plain


PAGES = {
    "explore-log": lambda s: outlier_explore_url(s, logx=1, logy=1),
    "plan": lambda s: (
        "/plan?"
        + urlencode(
            [("picked", 1), ("sweep", s["rate"]), *(("sweep", i) for i in s["demo"])]
            + [("demand", 50), ("demand_unit", "requests_per_s"), ("usd_per_gpu_hour", 2)]
        )
    ),
    "compare": lambda s: (
        "/compare?"
        + urlencode(
            [("picked", 1), *(("sweep", i) for i in s["real"][:3]), ("usd_per_gpu_hour", 2)]
        )
    ),
    "history": lambda s: "/history",
    "sweep": lambda s: f"/sweeps/{s['rate']}",
    "claim": lambda s: f"/claims/{s['claims'][0]}",
    "report": lambda s: "/report?" + urlencode([("picked", 1), ("sweep", s["rate"]), ("logx", 1)]),
}


@pytest.mark.parametrize("key", list(PAGES))
def test_rendered_tick_labels_are_the_tables_numbers(
    browser: Any, read_true_site: dict[str, Any], key: str
) -> None:
    """On a phone, then resized to 1280×720 (where History's sidebar shows every control)."""
    url = read_true_site["url"] + PAGES[key](read_true_site)
    if key == "report":  # an attachment: read it, then open it as a file would be
        html = httpx.get(url, timeout=60).text
        page = open_at(browser, "about:blank", "390")
        page.set_content(html)
    else:
        page = open_at(browser, url, "390")
    for size in ("390", "1280"):
        if size == "1280":
            resize(page, SIZES[size])
        # Every chart drawn, its legend placed (a second draw may move it below the plot).
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-figure]')]"
            ".every((el) => el.dataset.drawn === '1')",
            timeout=20000,
        )
        labels = page.evaluate(TICKS)
        assert labels, key
        wrong = [label for label in labels if label[3] and not app_number(label[3])]
        assert wrong == []
        if key == "plan":
            xaxis = [label for label in labels if label[:2] == ["plan-chart", "xaxis"]]
            assert {"5", "10", "20", "50", "100"} <= {label[3] for label in xaxis}
        if key == "report":
            # The offline report fits a phone: nothing scrolls sideways, legend names not cut.
            width = page.evaluate("() => document.scrollingElement.scrollWidth")
            assert width <= SIZES[size]["width"]
            legend = page.evaluate(LEGEND, "#pareto-chart")
            assert legend["textRight"] <= legend["chart"][3] + 1
        if key == "history" and size == "1280":
            bottoms = page.evaluate(
                "() => [...document.querySelectorAll('#explore-form input:not([type=hidden]),"
                " #explore-form select, #explore-form summary')]"
                ".filter(e => e.offsetParent !== null"
                " && !e.closest('details:not([open]) > :not(summary)'))"
                ".map(e => [e.id || e.name || e.textContent.trim().slice(0, 30), "
                "e.getBoundingClientRect().bottom])"
            )
            assert bottoms
            cut = [b for b in bottoms if b[1] > 720]
            assert cut == []
            form = page.evaluate(
                "() => { const f = document.getElementById('explore-form');"
                " return [f.scrollHeight, f.clientHeight]; }"
            )
            assert form[0] <= form[1] + 1  # no inner scroll hides a control
            shoot(page, "charts-history-sidebar-1280", full_page=False)
        shoot(page, f"charts-{key}-{size}")
    assert page.problems == []
    page.context.close()
