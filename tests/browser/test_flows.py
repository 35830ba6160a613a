"""The product as people use it, in Chromium: Explore, upload, the other pages, offline report."""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import FIXTURES
from tests.helpers import shoot

VLLM = FIXTURES / "vllm" / "stellalee_openai-2.0qps-Qwen2.5-Coder-7B-Instruct-20260707-094353.json"
CANONICAL = (
    b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,ttft_p99_ms,"
    b"output_tok_s\n"
    b"browser-upload,H100,8,llama-3.1-70b,1,12,14,90,110,700\n"
    b"browser-upload,H100,8,llama-3.1-70b,8,18,21,140,180,4400\n"
)


# Predicates are arrow functions: the page's CSP forbids eval, which a bare expression needs.
def wait_for_plot(page: Any, selector: str = "#pareto-chart") -> None:
    page.wait_for_selector(f"{selector} .main-svg", timeout=15000)


def goodputs(page: Any) -> list[str]:
    return page.locator("#readoff-table td.goodput").all_inner_texts()


def test_explore_renders_the_chart_and_the_slo_updates_in_place(page: Any) -> None:
    page.goto(page.base + "/")
    wait_for_plot(page)
    assert page.locator("#pareto-chart .scatterlayer .trace").count() >= 6
    before = goodputs(page)
    assert len(before) == 6
    shoot(page, "explore")

    # The chat preset's p99 TTFT ≤ 500 ms binds the demo sweeps until p50 TPOT is this tight.
    page.fill("#slo-tpot", "10")
    page.press("#slo-tpot", "Enter")
    page.wait_for_url(re.compile(r"tpot_ms=10"))
    wait_for_plot(page)
    after = goodputs(page)
    assert after != before
    assert page.input_value("#slo-preset") == "custom"

    page.go_back()
    page.wait_for_function("() => document.querySelector('#slo-tpot').value === '40'")
    assert goodputs(page) == before
    assert page.problems == []


def test_changing_the_axis_statistic_redraws_without_a_full_load(page: Any) -> None:
    page.goto(page.base + "/")
    wait_for_plot(page)
    page.evaluate("window.__marker = 'same page'")
    page.click("#axes-more > summary")  # the axes fold away (issue 47)
    page.select_option("#a-stat", "p90")
    page.wait_for_url(re.compile(r"stat=p90"))
    wait_for_plot(page)
    assert page.evaluate("window.__marker") == "same page"
    title = page.locator("#pareto-chart .g-xtitle").text_content()
    assert "p90 TPOT" in title
    assert page.problems == []


def test_upload_a_vllm_file_and_a_canonical_csv_then_see_it_on_explore(page: Any) -> None:
    page.goto(page.base + "/upload")
    page.set_input_files(
        "input[name=files]",
        files=[
            {"name": VLLM.name, "mimeType": "application/json", "buffer": VLLM.read_bytes()},
            {"name": "mine.csv", "mimeType": "text/csv", "buffer": CANONICAL},
        ],
    )
    page.wait_for_selector("#upload-preview article")
    preview = page.inner_text("#upload-preview")
    assert "recognised as vLLM bench serve" in preview
    assert "recognised as canonical CSV (points)" in preview
    assert "Missing: Hardware, GPUs" in preview
    # Each sweep has its own details: only the vLLM one lacks them.
    vllm = page.locator("#upload-preview article", has_text="recognised as vLLM bench serve")
    # One edit previewed at a time: a preview answer replaces the form, and a field being
    # filled while that happens would be filled in the form that is going away.
    vllm.locator("input[name$='.hardware']").fill("RTX4090")
    vllm.locator("input[name$='.hardware']").dispatch_event("change")
    page.wait_for_function(
        "() => !document.querySelector('#upload-preview').innerText.includes('Hardware, GPUs')"
    )
    vllm.locator("input[name$='.num_gpus']").fill("1")
    vllm.locator("input[name$='.num_gpus']").dispatch_event("change")
    page.wait_for_function(
        "() => !document.querySelector('#upload-preview').innerText.includes('Missing:')"
    )
    page.click("#upload-save")
    page.wait_for_selector("#upload-summary")
    assert "browser-upload" in page.inner_text("#saved-sweeps")

    page.goto(page.base + "/?model=llama-3.1-70b")
    wait_for_plot(page)
    page.click("#picker-more > summary")  # the sweeps not selected fold away (issue 47)
    page.locator(".series-list label", has_text="browser-upload").locator("input").check()
    page.wait_for_selector("#readoff-table tbody tr >> text=browser-upload")
    rows = page.locator("#readoff-table tbody tr", has_text="browser-upload")
    assert rows.count() == 1
    assert rows.locator("td.goodput").inner_text() == "550"  # 4400 tok/s over 8 GPUs
    assert page.problems == []


def test_compare_pricing_metrics_and_claims_render_their_numbers(page: Any) -> None:
    page.goto(page.base + "/compare")
    wait_for_plot(page, "#ratio-chart")
    assert page.locator("#headlines .headline-table tbody tr").count() >= 2
    assert re.search(r"\d(\.\d+)?×", page.inner_text("#headlines"))

    page.goto(page.base + "/pricing")
    first = page.locator("#profiles-table tbody tr").first
    assert re.fullmatch(r"\$\d+\.\d\d", first.locator("td").nth(7).inner_text())
    assert page.locator("#hardware-table tbody tr").count() >= 10

    page.goto(page.base + "/metrics")
    assert "1000 ÷ TPOT_ms" in page.inner_text("#interactivity")

    page.goto(page.base + "/claims")
    assert page.locator("table tbody tr").count() >= 1
    assert re.search(r"\d", page.inner_text("table tbody"))
    assert page.problems == []


def test_the_offline_report_opens_with_the_network_off(
    browser: Any, page: Any, tmp_path: Any
) -> None:
    page.goto(page.base + "/")
    wait_for_plot(page)
    shown = goodputs(page)
    with page.expect_download() as download:
        page.click("text=offline HTML report")
    path = tmp_path / "report.html"
    download.value.save_as(path)
    offline = browser.new_context(offline=True)
    report = offline.new_page()
    requests: list[str] = []
    report.on("request", lambda r: requests.append(r.url))
    report.goto(path.as_uri())
    wait_for_plot(report)
    assert goodputs(report) == shown
    assert [u for u in requests if not u.startswith(("file:", "data:", "blob:"))] == []
    offline.close()


def test_the_chart_toolbar_downloads_a_png(page: Any) -> None:
    page.goto(page.base + "/")
    wait_for_plot(page)
    page.hover("#pareto-chart")
    with page.expect_download() as download:
        page.click("#pareto-chart .modebar-btn[data-title='Download plot as a PNG']")
    assert download.value.suggested_filename.endswith(".png")


def test_every_control_is_reachable_by_keyboard(page: Any) -> None:
    page.goto(page.base + "/")
    wait_for_plot(page)
    reached = set()
    # The series picker, interval level and tags fields all come before the prices.
    for _ in range(100):
        page.keyboard.press("Tab")
        reached.add(page.evaluate("document.activeElement.id || document.activeElement.name || ''"))
    # The axes are folded (issue 47): the keyboard reaches the limits and both prices.
    for control in ("slo-tpot", "slo-ttft", "slo-preset", "p-set", "p-inline"):
        assert control in reached


def test_clicking_a_legend_entry_hides_that_series(page: Any) -> None:
    page.goto(page.base + "/")
    wait_for_plot(page)
    visible = "document.querySelectorAll('#pareto-chart .scatterlayer .trace').length"
    hidden = (
        "Array.from(document.getElementById('pareto-chart').data)"
        ".filter(t => t.visible === 'legendonly').length"
    )
    assert page.evaluate(hidden) == 0
    page.locator("#pareto-chart .legend .traces").first.click()
    page.wait_for_function(f"() => {hidden} > 0")
    before = page.evaluate(visible)
    page.locator("#pareto-chart .legend .traces").first.click()
    page.wait_for_function(f"() => {hidden} === 0")
    assert page.evaluate(visible) > before


def test_the_layout_fits_a_laptop_screen(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(server + "/")
    wait_for_plot(page)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    chart = page.locator("#pareto-chart").bounding_box()
    assert chart is not None and chart["width"] > 700
    context.close()
