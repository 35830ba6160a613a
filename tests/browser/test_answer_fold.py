"""The answer above the fold (issue 32) in Chromium at 1280×720 and 390×844: Explore's strip
(verdict, goodput, $/Mtok per sweep), Compare's headline and Plan's cheapest fleet lie inside the
first viewport, with 20 sweeps of real tool files under long names selected.

Screenshots of each first viewport go to test-artifacts/answer-<page>-<width>.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from app.services.readoff.answer import SHOWN_FIRST
from tests.browser.conftest import resize, sharing
from tests.browser.test_layout import LAPTOP, PHONE, settle, sideways
from tests.conftest import FIXTURES
from tests.helpers import shoot, shoot_element

VLLM = sorted("vllm/" + p.name for p in (FIXTURES / "vllm").glob("*.json"))
IMX = sorted("inferencemax/" + p.name for p in (FIXTURES / "inferencemax").glob("*.json"))

# Twenty sweeps from real files of nine tools, one upload each (the vLLM rate sweep and the
# sglang online file hold two each); a vLLM file alone and in its rate sweep are different
# sweeps (other names, other points). Names as long as real ones.
UPLOADS: list[tuple[list[str], str, str, int]] = [
    (VLLM, "Qwen/Qwen2.5-Coder-7B-Instruct · vLLM OpenAI server · request-rate sweep", "H100", 1),
    *[
        (
            [name],
            "Qwen/Qwen2.5-Coder-7B-Instruct on one H100 SXM5 80GB · vLLM · single rate "
            + name.split("openai-")[1].split("-Qwen")[0],
            "H100",
            1,
        )
        for name in VLLM
        if "infqps" not in name  # the rate sweep above holds that run as a sweep of its own
    ],
    (
        ["sglang/datacrunch_deepseek_dp_mla_output.jsonl"],
        "deepseek-ai/DeepSeek-V3 · SGLang DP attention + MLA · DataCrunch 8×H200 bench_serving",
        "H200",
        8,
    ),
    (
        ["sglang/datacrunch_llama_3_3_70b_online_output.jsonl"],
        "meta-llama/Llama-3.3-70B-Instruct · SGLang online serving · DataCrunch 8×H200",
        "H200",
        8,
    ),
    (
        ["llmperf/summary_together_70b.json", "llmperf/individual_together_70b.json"],
        "meta-llama/Llama-2-70b-chat-hf via the Together endpoint (LLMPerf, four A100 assumed)",
        "A100",
        4,
    ),
    (
        ["llmperf/summary_anyscale_70b.json", "llmperf/individual_anyscale_70b.json"],
        "meta-llama/Llama-2-70b-chat-hf via Anyscale Endpoints (LLMPerf leaderboard, 4×A100)",
        "A100",
        4,
    ),
    (
        ["guidellm/llm-d-benchmark_guidellm_report_v2.json"],
        "llm-d benchmark · guidellm report v2 · constant rates against the mock server",
        "H100",
        2,
    ),
    (
        ["aiperf/wellflat_k8s-dev_profile_export_aiperf.json"],
        "openai/gpt-oss-20b · vLLM on k8s-dev · AIPerf profile export, concurrency 1",
        "A100",
        1,
    ),
    (
        ["genai-perf/wellflat_k8s-dev_profile_export_genai_perf.json"],
        "openai/gpt-oss-20b · vLLM on k8s-dev · GenAI-Perf profile export, concurrency 1",
        "A100",
        1,
    ),
    *[
        (
            [name],
            "InferenceX · " + name.split("/")[1].removesuffix(".json").replace("_", " "),
            "MI355X",
            8,
        )
        for name in IMX
    ],
    (
        ["inference-perf/llm-d-benchmark_inference_perf_lifecycle.yaml"],
        "llm-d benchmark · inference-perf lifecycle metrics · shared-prefix synthetic workload",
        "H100",
        1,
    ),
    (
        ["llm-d/br_v0_2_example.yaml"],
        "llm-d benchmark report v0.2 example · NVIDIA H100 80GB HBM3 · one stage",
        "H100",
        1,
    ),
]


@pytest.fixture(scope="module")
def answer_site(server: str) -> Iterator[dict[str, Any]]:
    """A seeded server with the twenty uploads; yields its URL and their ids."""
    with sharing(server) as url:
        ids: list[int] = []
        for names, sweep, hardware, gpus in UPLOADS:
            files = [("files", (n.rsplit("/", 1)[-1], (FIXTURES / n).read_bytes())) for n in names]
            fields = {"sweep": sweep, "hardware": hardware, "num_gpus": str(gpus)}
            response = httpx.post(url + "/api/sweeps", files=files, data=fields, timeout=60)
            assert response.status_code == 201, response.text
            ids += [s["id"] for s in response.json()["sweeps"]]
        assert len(ids) == 20
        yield {"url": url, "ids": ids}


def selection(answer_site: dict[str, Any], *extra: tuple[str, Any]) -> str:
    return urlencode([("picked", 1), *[("sweep", i) for i in answer_site["ids"]], *extra])


def in_first_viewport(page: Any, selector: str, viewport: dict[str, int]) -> dict[str, float]:
    """The element's box, asserted inside the first viewport (the page not scrolled)."""
    assert page.evaluate("() => window.scrollY") == 0
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    assert box["width"] > 0 and box["height"] > 0, selector
    assert 0 <= box["x"] and box["x"] + box["width"] <= viewport["width"] + 0.5, (selector, box)
    assert 0 <= box["y"] and box["y"] + box["height"] <= viewport["height"], (selector, box)
    return dict(box)


SIZES = {"1280": LAPTOP, "390": PHONE}


def test_explore_shows_each_sweeps_answer_in_the_first_viewport_and_redraws_it_in_place(
    answer_site: dict[str, Any], new_page: Any
) -> None:
    """On a phone, then resized to 1280×720 (the fold closed and the page at its top again);
    there a change of the SLO redraws the strip in place."""
    page = new_page(PHONE)
    page.goto(answer_site["url"] + "/?" + selection(answer_site))
    settle(page)
    for size in ("390", "1280"):
        viewport = SIZES[size]
        if size == "1280":
            page.click("#answer-more > summary")  # folded again, as a page loads
            page.evaluate("() => window.scrollTo(0, 0)")
            resize(page, viewport)
        shoot(page, f"answer-explore-{size}")
        rows = page.locator("#answer-table tbody tr")
        assert rows.count() == SHOWN_FIRST
        in_first_viewport(page, "#answer-title", viewport)
        for i in range(SHOWN_FIRST):
            for cell in ("td.name", "td.verdict", "td.goodput", "td.cost"):
                in_first_viewport(
                    page, f"#answer-table tbody tr:nth-child({i + 1}) {cell}", viewport
                )
        # The rest one click away, inside the strip: every selected sweep has its answer.
        more = in_first_viewport(page, "#answer-more > summary", viewport)
        assert page.inner_text("#answer-more > summary") == f"{20 - SHOWN_FIRST} more, by goodput"
        assert not page.locator("#answer-more-table").is_visible()
        page.click("#answer-more > summary")
        assert page.locator("#answer-more-table tbody tr").count() == 20 - SHOWN_FIRST
        shown = page.locator("#answer-strip tbody tr[data-sweep]")
        assert sorted(int(s) for s in shown.evaluate_all("rs => rs.map(r => r.dataset.sweep)")) == (
            sorted(answer_site["ids"])
        )
        assert page.locator("#answer-more-table tbody tr").last.is_visible()
        shoot_element(page.locator("#answer-strip"), f"answer-strip-open-{size}")
        # The answer comes before the chart (and on a phone before the settings too).
        chart = page.locator("#pareto-chart").bounding_box()
        strip = page.locator("#answer-strip").bounding_box()
        assert chart is not None and strip is not None
        assert strip["y"] < chart["y"] and more["y"] < chart["y"]
        if viewport is PHONE:
            form = page.locator("#explore-form").bounding_box()
            assert form is not None and strip["y"] + strip["height"] <= form["y"]
        assert sideways(page) <= 0
        assert page.problems == []

    # Changing the SLO redraws the strip in place (its fold, opened above, kept open).
    page.evaluate("window.__marker = 'same page'")
    before = page.inner_text("#answer-title")
    first = page.locator("#answer-table tbody tr").first
    goodput = first.locator("td.goodput .value").inner_text()
    page.fill("#slo-ttft", "60000")
    page.press("#slo-ttft", "Enter")
    page.wait_for_url(re.compile(r"ttft_ms=60000"))
    page.wait_for_function(
        "() => document.getElementById('answer-title').textContent.includes('60')", timeout=15000
    )
    settle(page)
    assert page.evaluate("window.__marker") == "same page"  # htmx swapped the view
    assert page.inner_text("#answer-title") != before
    # The strip and the read-off table below it tell the same numbers after the swap.
    for row in page.locator("#answer-strip tbody tr[data-sweep]").all():
        sweep = row.get_attribute("data-sweep")
        table = page.locator(f'#readoff-table tbody tr[data-sweep="{sweep}"]')
        assert row.locator("td.goodput .value").inner_text() == (
            table.locator("td.goodput").inner_text()
        )
        assert row.get_attribute("data-status") == (
            table.locator("td.verdict").get_attribute("data-status")
        )
    assert page.locator("#answer-more").get_attribute("open") is not None  # kept open
    assert goodput  # the first row had an answer before the change
    assert page.problems == []


@pytest.mark.parametrize("size", list(SIZES))
def test_compares_headline_is_in_the_first_viewport(
    answer_site: dict[str, Any], new_page: Any, size: str
) -> None:
    viewport = SIZES[size]
    page = new_page(viewport)
    page.goto(answer_site["url"] + "/compare?" + selection(answer_site))
    settle(page)
    shoot(page, f"answer-compare-{size}")
    in_first_viewport(page, "#headlines h2", viewport)
    in_first_viewport(page, "#headlines h3", viewport)
    row = in_first_viewport(page, "#headlines tr.at-slo", viewport)
    assert "At your SLO" in page.locator("#headlines tr.at-slo").first.inner_text()
    form = page.locator("#explore-form").bounding_box()
    assert form is not None
    if viewport is PHONE:
        assert row["y"] < form["y"]  # the headline before the settings
    assert sideways(page) <= 0
    assert page.problems == []


@pytest.mark.parametrize("size", list(SIZES))
def test_plans_cheapest_fleet_is_in_the_first_viewport(
    answer_site: dict[str, Any], new_page: Any, size: str
) -> None:
    viewport = SIZES[size]
    page = new_page(viewport)
    query = selection(answer_site, ("preset", "chat-interactive"), ("usd_per_gpu_hour", 2.5))
    page.goto(answer_site["url"] + "/plan?" + query)
    settle(page)
    shoot(page, f"answer-plan-{size}")
    in_first_viewport(page, "#plan-summary h2", viewport)
    in_first_viewport(page, "#plan-cheapest", viewport)
    assert page.inner_text("#plan-cheapest").startswith("★ Cheapest that meets the SLO:")
    if viewport is PHONE:
        form = page.locator("#plan-form").bounding_box()
        banner = page.locator("#plan-cheapest").bounding_box()
        assert form is not None and banner is not None and banner["y"] < form["y"]
    assert sideways(page) <= 0
    assert page.problems == []
