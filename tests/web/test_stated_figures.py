"""Their figure beside ours: each importer's stated aggregates beside Paretoscope's
recomputation, with the difference and the rule, on the sweep page and in its JSON (issue 51).
Expected values are computed here from the raw files, never copied from an answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.domain.stated_figures import (
    LEGACY_WINDOW_RULE,
    MEAN_OF_RECIPROCALS_RULE,
    PERCENTILE_RULE,
    TTFT_INCLUDED_RULE,
    percentile_bracket,
    percentile_figure,
)
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.helpers import soup

MLPERF_DIR = Path(__file__).parent.parent / "fixtures" / "mlperf"
VLLM = "vllm/stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"
SGLANG = "sglang/datacrunch_llama_3_3_70b_online_output.jsonl"
GUIDELLM = "guidellm/llm-d-benchmark_guidellm_report_v2.json"
GENAI = "genai-perf/wellflat_k8s-dev_profile_export_genai_perf.json"
AIPERF = "aiperf/wellflat_k8s-dev_profile_export_aiperf.json"
KIMI = "inferencemax/agg_kimik2.5_8k1k_int4_vllm_mi355x_tp8_mtp_conc32.json"
LLMPERF = ("llmperf/summary_anyscale_70b.json", "llmperf/individual_anyscale_70b.json")
ENDPOINTS = "endpoints_result_summary_VR-NVL72_deepseek-r1_Server_v6.1.json"


def stated_of(client: TestClient, *paths: Path, **fields: Any) -> list[dict[str, Any]]:
    """The stated figures of the first sweep these files store."""
    response = post_files(
        client, *((p.name, p.read_bytes()) for p in paths), hardware="H100", num_gpus=8, **fields
    )
    assert response.status_code in (200, 201), response.text
    sweep_id = response.json()["sweeps"][0]["id"]
    answer = client.get(f"/api/sweeps/{sweep_id}")
    assert answer.status_code == 200, answer.text
    rows: list[dict[str, Any]] = answer.json()["stated_figures"]
    return rows


def figure_named(
    rows: list[dict[str, Any]], name: str, load: float | None = None
) -> dict[str, Any]:
    found = [r for r in rows if r["figure"] == name and (load is None or r["load"] == load)]
    assert len(found) == 1, (name, rows)
    return found[0]


def test_vllm_output_throughput_is_its_total_tokens_over_its_duration(client: TestClient) -> None:
    raw = json.loads((FIXTURES / VLLM).read_bytes())
    rows = stated_of(client, FIXTURES / VLLM)
    row = figure_named(rows, "output throughput")
    assert row["theirs"] == raw["output_throughput"]
    assert row["ours"] == pytest.approx(raw["total_output_tokens"] / raw["duration"], rel=1e-12)
    assert row["status"] == "agrees"


def test_each_sglang_point_states_a_throughput_its_totals_agree_with(client: TestClient) -> None:
    lines = (FIXTURES / SGLANG).read_text().splitlines()
    records = [json.loads(line) for line in lines if line]
    # The file holds two workloads; the first sweep stored is the first one's.
    records = [r for r in records if r["dataset_name"] == records[0]["dataset_name"]]
    rows = stated_of(client, FIXTURES / SGLANG)
    outputs = [r for r in rows if r["figure"] == "output throughput"]
    assert len(outputs) == len(records)
    for row in outputs:
        raw = next(r for r in records if r["request_rate"] == row["load"])
        assert row["theirs"] == raw["output_throughput"]
        expected = raw["total_output_tokens"] / raw["completed"] * raw["completed"]
        assert row["ours"] == pytest.approx(expected / raw["duration"], rel=1e-12)
        assert row["status"] == "agrees"


def test_guidellms_time_per_output_token_includes_ttft_and_is_explained(
    client: TestClient,
) -> None:
    rows = stated_of(client, FIXTURES / GUIDELLM)
    for row in [r for r in rows if r["figure"] == "time per output token (mean)"]:
        assert row["status"] == "explained" and row["rule"] == TTFT_INCLUDED_RULE
        assert row["theirs"] > row["ours"]


def test_genai_perfs_per_user_rate_agrees_and_its_throughputs_are_flagged(
    client: TestClient,
) -> None:
    raw = json.loads((FIXTURES / GENAI).read_bytes())
    rows = stated_of(client, FIXTURES / GENAI)
    per_user = figure_named(rows, "tokens/s per user (mean)")
    assert per_user["theirs"] == raw["output_token_throughput_per_user"]["avg"]
    assert per_user["ours"] == pytest.approx(1000 / raw["inter_token_latency"]["avg"], rel=1e-12)
    assert per_user["status"] == "agrees" and per_user["rule"] == MEAN_OF_RECIPROCALS_RULE
    # Its output throughput is not its mean output length × its request throughput (×2.9):
    # no known rule explains that, so it is flagged.
    output = figure_named(rows, "output throughput")
    mean_osl, rate = raw["output_sequence_length"]["avg"], raw["request_throughput"]["avg"]
    assert output["ours"] == pytest.approx(mean_osl * rate, rel=1e-12)
    assert output["theirs"] == raw["output_token_throughput"]["avg"]
    assert output["status"] == "flagged" and output["rule"] is None


def test_aiperfs_per_user_rate_is_a_mean_of_reciprocals_beside_ours(client: TestClient) -> None:
    raw = json.loads((FIXTURES / AIPERF).read_bytes())
    rows = stated_of(client, FIXTURES / AIPERF)
    per_user = figure_named(rows, "tokens/s per user (mean)")
    assert per_user["theirs"] == raw["output_token_throughput_per_user"]["avg"]
    assert per_user["theirs"] >= per_user["ours"]  # a mean of reciprocals is never smaller
    assert per_user["status"] == "agrees"


def test_inferencex_interactivity_is_1000_over_its_tpot_at_each_statistic(
    client: TestClient,
) -> None:
    raw = json.loads((FIXTURES / KIMI).read_bytes())
    rows = stated_of(client, FIXTURES / KIMI)
    for key in ("mean", "median", "p90", "p99"):
        row = figure_named(rows, f"interactivity ({key})")
        assert row["theirs"] == raw[f"{key}_intvty"]
        assert row["ours"] == pytest.approx(1 / raw[f"{key}_tpot"], rel=1e-12)
        assert row["status"] == "agrees"


def test_llmperf_percentiles_beside_its_request_samples(client: TestClient) -> None:
    rows = stated_of(client, *(FIXTURES / p for p in LLMPERF))
    ttft = figure_named(rows, "TTFT p99")
    assert ttft["rule"] == PERCENTILE_RULE and ttft["status"] == "agrees"
    assert ttft["ours_from"] == "linear interpolation over 150 request samples"
    assert {r["status"] for r in rows} == {"agrees"}


def test_the_endpoints_tps_over_loadgens_window_is_explained(client: TestClient) -> None:
    raw = json.loads((MLPERF_DIR / ENDPOINTS).read_bytes())
    rows = stated_of(client, MLPERF_DIR / ENDPOINTS)
    output = figure_named(rows, "output throughput")
    total, duration = raw["output_sequence_lengths"]["total"], raw["duration_ns"] / 1e9
    assert output["theirs"] == raw["tps"]
    assert output["ours"] == pytest.approx(total / duration, rel=1e-12)
    assert output["status"] == "explained" and output["rule"] == LEGACY_WINDOW_RULE
    # By how much: the whole run over LoadGen's window, 2,318.93 s ÷ 1,934.95 s.
    window = raw["legacy_loadgen_window_duration_ns"] / 1e9
    assert output["difference_pct"] == pytest.approx((window / duration - 1) * 100, rel=1e-9)
    requests = figure_named(rows, "request throughput")
    assert requests["ours"] == pytest.approx(raw["n_samples_completed"] / duration, rel=1e-12)


def test_a_percentile_outside_its_neighbouring_requests_is_flagged() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile_bracket(values, 0.99) == (98.0, 100.0)
    inside = percentile_figure("TTFT p99", 99.5, 99.01, values, 0.99)
    assert inside.status == "agrees"
    beyond = percentile_figure("TTFT p99", 97.0, 99.01, values, 0.99)
    assert beyond.status == "flagged"
    nearest_rank = percentile_figure("TTFT p50", 52.0, 50.5, values, 0.5)
    assert nearest_rank.status == "explained" and nearest_rank.rule == PERCENTILE_RULE


def test_the_sweep_page_shows_their_figure_beside_ours_with_the_rule(
    client: TestClient,
) -> None:
    response = post_files(
        client, (ENDPOINTS, (MLPERF_DIR / ENDPOINTS).read_bytes()), hardware="RUBIN", num_gpus=72
    )
    sweep_id = response.json()["sweeps"][0]["id"]
    page = soup(client.get(f"/sweeps/{sweep_id}"), expect=200)
    rows = page.select("#stated-table tbody tr")
    first = rows[0]
    cells = [td.get_text(" ", strip=True) for td in first.select("td")]
    assert cells[1] == "output throughput tok/s"
    assert cells[0] == "325 req/s"  # the Poisson target rate of the run
    assert cells[4] == "-16.6 %"
    assert "explained" in cells[5] and "legacy window" in cells[5]
    assert first["class"] == ["stated-explained"]


def test_a_sweep_with_nothing_to_recompute_says_so(client: TestClient) -> None:
    text = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nS,H100,1,1,10,100\n"
    sweep_id = post_files(client, ("s.csv", text)).json()["sweeps"][0]["id"]
    page = soup(client.get(f"/sweeps/{sweep_id}"), expect=200)
    assert page.select_one("#stated-table") is None
    assert page.select_one("#stated-none") is not None
    assert client.get(f"/api/sweeps/{sweep_id}").json()["stated_figures"] == []


def test_the_llm_d_example_reports_placeholder_rates_and_they_are_flagged(
    client: TestClient,
) -> None:
    # Its request_rate block repeats the token-rate numbers (mean 2,262.448 "queries/s") while
    # the same report counts its requests and its duration: no rule makes those agree.
    rows = stated_of(client, FIXTURES / "llm-d" / "br_v0_2_example.yaml")
    requests = figure_named(rows, "request throughput")
    assert requests["theirs"] == 2262.448
    assert requests["status"] == "flagged" and requests["rule"] is None
    assert requests["ours"] < requests["theirs"] / 100
