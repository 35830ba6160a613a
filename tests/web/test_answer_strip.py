"""Explore's answer strip (issue 32): each sweep's verdict, goodput and $/Mtok, the read-off
table's own figures, by goodput; the JSON twin gives the same order; an htmx update redraws it."""

from __future__ import annotations

from typing import Any

from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from app.domain.numbers import fmt_number
from app.services.readoff.answer import SHOWN_FIRST
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.web.test_intervals_api import PER_REQUEST, POINTS, REQUESTS

# Real tool files, one upload each: passing, failing and unknown read-offs at the chat SLO.
REAL = [
    ["vllm/" + p.name for p in sorted((FIXTURES / "vllm").glob("*.json"))],
    ["llmperf/summary_together_70b.json", "llmperf/individual_together_70b.json"],
    ["guidellm/llm-d-benchmark_guidellm_report_v2.json"],
    ["aiperf/wellflat_k8s-dev_profile_export_aiperf.json"],
    ["genai-perf/wellflat_k8s-dev_profile_export_genai_perf.json"],
    ["sglang/datacrunch_llama_3_3_70b_online_output.jsonl"],
    ["inferencemax/agg_kimik2.5_8k1k_int4_vllm_mi355x_tp8_mtp_conc32.json"],
    ["inferencemax/raw_benchmark_serving_gptoss120b_1k1k_disagg16gpu_conc8.json"],
    ["llm-d/br_v0_2_example.yaml"],
    ["vllm/stellalee_openai-4.0qps-Qwen2.5-Coder-7B-Instruct-20260707-094620.json"],
]


def upload_real(client: TestClient) -> list[int]:
    ids: list[int] = []
    for i, names in enumerate(REAL):
        files = [(n.rsplit("/", 1)[-1], (FIXTURES / n).read_bytes()) for n in names]
        fields = {"sweep": f"strip {i} · " + names[0], "hardware": "H100", "num_gpus": 1}
        response = post_files(client, *files, **fields)
        assert response.status_code == 201, response.text
        ids += [s["id"] for s in response.json()["sweeps"]]
    return ids


def strip_rows(page: BeautifulSoup) -> list[Tag]:
    return page.select("#answer-strip table.answer-table tbody tr")


def text(tag: Tag | None) -> str:
    return "" if tag is None else " ".join(tag.get_text(" ").split())


def strip_readoff_row(page: BeautifulSoup, sweep: str) -> Tag:
    row = page.select_one(f'#readoff-table tbody tr[data-sweep="{sweep}"]')
    assert row is not None, sweep
    return row


def page_and_json(
    client: TestClient, params: dict[str, Any]
) -> tuple[BeautifulSoup, dict[str, Any]]:
    html = client.get("/", params=params)
    assert html.status_code == 200, html.text
    body = client.get("/api/explore", params=params)
    assert body.status_code == 200, body.text
    return BeautifulSoup(html.text, "html.parser"), body.json()


def test_the_strip_gives_the_read_off_tables_own_figures_highest_goodput_first(
    client: TestClient,
) -> None:
    ids = upload_real(client)
    assert len(ids) > SHOWN_FIRST + 3
    # The chat SLO as the page's default preset sets it: p99 TTFT ≤ 500 ms, p50 TPOT ≤ 40 ms.
    params: dict[str, Any] = {"picked": 1, "sweep": ids, "preset": "custom", "ttft_ms": 500}
    params |= {"tpot_ms": 40, "percentile": "p99", "tpot_percentile": "p50"}
    params["usd_per_gpu_hour"] = 2.5
    page, body = page_and_json(client, params)
    rows = strip_rows(page)
    assert len(page.select("#answer-table tbody tr")) == SHOWN_FIRST
    assert len(page.select("#answer-more-table tbody tr")) == len(ids) - SHOWN_FIRST
    assert (
        text(page.select_one("#answer-more summary"))
        == f"{len(ids) - SHOWN_FIRST} more, by goodput"
    )
    # Every selected sweep once, in the JSON twin's order: goodput descending, none last.
    order = [int(r["data-sweep"]) for r in rows]
    assert sorted(order) == sorted(ids) and order == body["answer"]["order"]
    results = {r["sweep_id"]: r for r in body["results"]}
    goodputs = [results[i]["goodput_tok_s_per_gpu"] for i in order]
    known = [g for g in goodputs if g is not None]
    assert known == sorted(known, reverse=True) and len(known) >= 3
    assert goodputs == known + [None] * (len(goodputs) - len(known))
    states = set()
    for row in rows:
        sweep = row["data-sweep"]
        result = results[int(sweep)]
        table = strip_readoff_row(page, sweep)
        status = row["data-status"]
        states.add(status)
        # The verdict: the table's, with its reason when it is not a plain pass.
        assert status == result["status"] == table.select_one("td.verdict")["data-status"]
        verdict = row.select_one("td.verdict")
        if status in ("unknown", "fail"):
            reason = text(verdict.select_one(".verdict-reason"))
            assert reason == result["reason"] and reason
        # Goodput: the table's text and the JSON's number; unknown is a dash, never a zero.
        goodput = text(row.select_one("td.goodput .value"))
        assert goodput == text(table.select_one("td.goodput"))
        if result["goodput_tok_s_per_gpu"] is None:
            assert goodput == "–"
        else:
            assert goodput == fmt_number(result["goodput_tok_s_per_gpu"])
            assert result["goodput_tok_s_per_gpu"] > 0
        # $/Mtok: the first price column's cell, as the table shows it.
        [cell] = result["price_cells"]
        cost = text(row.select_one("td.cost .value"))
        if cell["usd_per_mtok"] is not None:
            assert cost == text(table.select_one("td.cost"))
        else:
            assert cost == "–"
    assert states == {"pass", "fail", "unknown"}


def test_intervals_in_the_strip_are_the_tables_and_a_borderline_one_shows_attainment(
    client: TestClient,
) -> None:
    response = post_files(client, ("ci.csv", POINTS), ("ci.requests.csv", REQUESTS))
    assert response.status_code == 201, response.text
    sweep = response.json()["sweeps"][0]["id"]
    base = {"sweep": sweep, "picked": 1, "preset": "custom"} | PER_REQUEST
    page, body = page_and_json(client, base | {"attainment": 0.8})
    [row] = strip_rows(page)
    table = strip_readoff_row(page, str(sweep))
    assert text(row.select_one("td.goodput .value")) == "720"
    ci = text(row.select_one("td.goodput small.ci"))
    assert ci.startswith("± ") and ci == text(table.select_one("td.goodput-ci"))
    cost_ci = text(row.select_one("td.cost small.ci"))
    assert cost_ci.startswith("± ") and cost_ci == text(table.select_one("td.cost-ci"))
    [cell] = body["results"][0]["price_cells"]
    assert text(row.select_one("td.cost .value")) == text(table.select_one("td.cost"))
    assert cell["ci_low"] < cell["usd_per_mtok"] < cell["ci_high"]

    # Borderline with a goodput interval of no width: the attainment interval, no "± 0".
    page, body = page_and_json(client, base | {"attainment": 0.92})
    [row] = strip_rows(page)
    assert row["data-status"] == "borderline"
    assert text(row.select_one("td.goodput")) == "400 attainment 91.2 %–100 %"
    assert "±" not in text(row)
    assert "straddles the 92 % target" in text(row.select_one("td.verdict"))


def test_an_htmx_update_redraws_the_strip_with_the_new_slo(
    client: TestClient, hx_client: TestClient
) -> None:
    response = post_files(client, ("ci.csv", POINTS), ("ci.requests.csv", REQUESTS))
    sweep = response.json()["sweeps"][0]["id"]
    base = {"sweep": sweep, "picked": 1, "preset": "custom"} | PER_REQUEST
    before = hx_client.get("/", params=base | {"attainment": 0.8})
    after = hx_client.get("/", params=base | {"attainment": 0.95})
    strips = []
    for response in (before, after):
        assert response.status_code == 200 and "HX-Push-Url" in response.headers
        fragment = BeautifulSoup(response.text, "html.parser")
        root = fragment.find()
        assert root is not None and root.get("id") == "explore"  # the swapped view holds it
        strips.append(strip_rows(fragment)[0])
    # 90 % of 80 requests good passes an 80 % target with 720 tok/s; at 95 % only the
    # lighter load's 40 good requests count (400 tok/s), borderline.
    assert (strips[0]["data-status"], text(strips[0].select_one("td.goodput .value"))) == (
        "pass",
        "720",
    )
    assert (strips[1]["data-status"], text(strips[1].select_one("td.goodput .value"))) == (
        "borderline",
        "400",
    )


def test_the_strip_is_there_exactly_when_the_read_off_is(client: TestClient) -> None:
    response = post_files(client, ("ci.csv", POINTS), ("ci.requests.csv", REQUESTS))
    assert response.status_code == 201, response.text
    none_picked = BeautifulSoup(client.get("/?picked=1").text, "html.parser")
    assert none_picked.select_one("#answer-strip") is None
    assert none_picked.select_one("#readoff-table") is None
    default = BeautifulSoup(client.get("/").text, "html.parser")
    rows = [r["data-sweep"] for r in default.select("#readoff-table tbody tr")]
    assert rows and sorted(r["data-sweep"] for r in strip_rows(default)) == sorted(rows)
