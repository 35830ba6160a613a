"""Cached (prefix-hit) input tokens read from each tool's files with their source (issue 50):
AIPerf's per-record usage and summary sums (client) and theoretical hit rate, SGLang's
`--cache-report` (client), InferenceX AgentX's server metrics (measured) and trace rate
(theoretical). Input = uncached + cached: more cached than input is refused, naming the file,
row and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.domain.covariates import point_covariates
from app.domain.token_classes import point_share
from app.ingest import IngestError
from tests.helpers import jsonl, only, parse

HERE = Path(__file__).resolve().parent.parent / "fixtures"
AIPERF = HERE / "aiperf" / "cached"
SUMMARY = (AIPERF / "profile_export_aiperf.json").read_bytes()
RECORDS = (AIPERF / "profile_export.jsonl").read_bytes()
SGLANG = (HERE / "sglang" / "cache_report_output.jsonl").read_bytes()
AGENTX: list[dict[str, Any]] = json.loads(
    (HERE / "inferencex" / "agentx_agg_bmk_built.json").read_bytes()
)
AIPERF_FORM = {"hardware": "H100", "num_gpus": 1}


def aiperf(records: bytes = RECORDS, summary: bytes = SUMMARY) -> Any:
    return only(
        parse(
            ("run/profile_export_aiperf.json", summary),
            ("run/profile_export.jsonl", records),
            **AIPERF_FORM,
        )
    )


def records_changed(change: Any) -> bytes:
    rows = [json.loads(line) for line in RECORDS.decode().splitlines()]
    change(rows)
    return jsonl(rows)


def test_aiperf_records_give_each_request_its_cached_tokens_and_the_summary_its_client_share() -> (
    None
):
    point = aiperf().points[0]
    frame = point.samples_frame()
    # The warm-up record (512 cached) is kept as a warm-up sample (never read off); the
    # cancelled one reports none.
    assert frame["cached_input_tokens"].to_list() == [512, 0, 1536, 3584, None]
    assert frame["phase"].to_list() == [
        "warmup",
        "profiling",
        "profiling",
        "profiling",
        "profiling",
    ]
    assert frame["input_len"].to_list() == [1000, 1000, 2000, 4000, 3000]
    covariates = point_covariates(point.extra)
    assert covariates["client_cache_hit_rate"] == 5120 / 7000
    assert covariates["cached_input_tokens"] == 1706.6666666666667
    assert covariates["theoretical_cache_hit_rate"] == 0.8
    # The stored Σ cached ÷ Σ prompt tokens is the point's share, reported by the client;
    # the theoretical 80 % is kept apart and never taken for it.
    share = point_share(covariates, point.values["input_len"], (5120, 7000))
    assert share is not None
    assert (share.share, share.source, share.how) == (
        5120 / 7000,
        "client",
        "client_cache_hit_rate",
    )


def test_the_early_aiperf_usage_name_for_cached_tokens_reads_the_same() -> None:
    def rename(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            value = row["metrics"].pop("usage_prompt_cache_read_tokens", None)
            if value is not None:
                row["metrics"]["usage_prompt_cached_tokens"] = value

    frame = aiperf(records_changed(rename)).points[0].samples_frame()
    assert frame["cached_input_tokens"].to_list() == [512, 0, 1536, 3584, None]


def test_an_aiperf_record_with_more_cached_than_input_tokens_is_refused_naming_line_and_field() -> (
    None
):
    def inflate(rows: list[dict[str, Any]]) -> None:
        rows[2]["metrics"]["usage_prompt_cache_read_tokens"]["value"] = 2001

    with pytest.raises(IngestError) as caught:
        aiperf(records_changed(inflate))
    text = str(caught.value)
    assert (
        "run/profile_export.jsonl, row 3, column 'metrics.usage_prompt_cache_read_tokens.value'"
        in text
    )
    assert "2001 cached input tokens is above the request's 2000 input tokens" in text


def test_aiperf_records_without_cached_tokens_keep_the_plain_samples() -> None:
    def strip(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            row["metrics"].pop("usage_prompt_cache_read_tokens", None)

    point = aiperf(records_changed(strip)).points[0]
    assert isinstance(point.samples, list)  # no cached column: the sweep's hash is unchanged
    assert "cached_input_tokens" not in point.samples_frame().columns


def test_an_aiperf_summary_summing_more_cached_than_prompt_tokens_is_refused() -> None:
    doc = json.loads(SUMMARY)
    doc["total_usage_prompt_cache_read_tokens"]["avg"] = 7001
    with pytest.raises(IngestError) as caught:
        aiperf(summary=json.dumps(doc).encode())
    text = str(caught.value)
    assert "column 'total_usage_prompt_cache_read_tokens'" in text
    assert "7001 cached tokens against 7000 prompt tokens" in text


def test_sglang_cache_report_gives_each_request_and_point_its_client_cached_tokens() -> None:
    sweep = only(parse(("cache_report_output.jsonl", SGLANG), hardware="H100"))
    first, second = sweep.points
    # A failed request's 0 is the client's default, not a count: left out.
    assert first.samples_frame()["cached_input_tokens"].to_list() == [0, 1024, 2048, None]
    assert second.samples_frame()["cached_input_tokens"].to_list() == [512, 1000]
    assert point_covariates(first.extra)["client_cache_hit_rate"] == 3072 / 6000
    assert point_covariates(second.extra)["client_cache_hit_rate"] == 1512 / 2000
    share = point_share(point_covariates(second.extra), second.values["input_len"], None)
    assert share is not None and (share.share, share.source) == (0.756, "client")


def sglang_changed(change: Any) -> bytes:
    lines = [json.loads(line) for line in SGLANG.decode().splitlines()]
    change(lines)
    return jsonl(lines)


def test_an_sglang_request_with_more_cached_than_input_tokens_is_refused() -> None:
    def inflate(lines: list[dict[str, Any]]) -> None:
        lines[1]["cached_tokens"][1] = 1001

    with pytest.raises(IngestError) as caught:
        parse(("c.jsonl", sglang_changed(inflate)), hardware="H100")
    text = str(caught.value)
    assert "c.jsonl, row 2, column 'cached_tokens[1]'" in text
    assert "1001 cached input tokens is above the request's 1000 input tokens" in text


def test_an_sglang_cache_report_with_more_cached_than_prompt_tokens_is_refused() -> None:
    def inflate(lines: list[dict[str, Any]]) -> None:
        lines[0]["cache_report"]["total_cached_tokens"] = 6500

    with pytest.raises(IngestError) as caught:
        parse(("c.jsonl", sglang_changed(inflate)), hardware="H100")
    text = str(caught.value)
    assert "c.jsonl, row 1, column 'cache_report.total_cached_tokens'" in text
    assert "6500 cached tokens against 6000 prompt tokens" in text


def agentx(rows: list[dict[str, Any]]) -> list[Any]:
    return only(parse(("agg.json", json.dumps(rows).encode()))).points


def test_agentx_rows_keep_the_servers_measured_rate_and_the_theoretical_rate_apart() -> None:
    low, high = agentx(AGENTX)
    for point in (low, high):  # server_metrics.cache.gpu_cache_hit_rate, request_metrics.cache
        assert point_covariates(point.extra) == {
            "prefix_cache_hit_rate": 0.931,
            "theoretical_cache_hit_rate": 0.962,
        }
    share = point_share(point_covariates(low.extra), low.values.get("input_len"), None)
    assert share is not None and (share.share, share.source) == (0.931, "measured")


def test_agentx_without_server_counters_says_theoretical_never_measured() -> None:
    rows = json.loads(json.dumps(AGENTX))
    rows[0]["server_metrics"]["cache"] = {"gpu_cache_hit_rate": None}
    point = agentx(rows)[0]
    share = point_share(point_covariates(point.extra), None, None)
    assert share is not None and (share.share, share.source) == (0.962, "theoretical")


def test_agentx_overall_rate_beats_hits_over_queries_which_beat_the_gpu_rate() -> None:
    rows = json.loads(json.dumps(AGENTX))
    cache = rows[0]["server_metrics"]["cache"]
    cache |= {"prefix_cache_hits": 450_000, "prefix_cache_queries": 600_000}
    assert point_covariates(agentx(rows)[0].extra)["prefix_cache_hit_rate"] == 0.75
    cache["overall_cache_hit_rate"] = 0.95
    assert point_covariates(agentx(rows)[0].extra)["prefix_cache_hit_rate"] == 0.95


SERVER = (AIPERF / "server_metrics_export.json").read_bytes()
CLIENT_KEYS = (
    "usage_prompt_cache_read_tokens",
    "total_usage_prompt_cache_read_tokens",
    "total_usage_prompt_tokens",
    "theoretical_prefix_cache_hit",
)


def summary_without_client_cache() -> bytes:
    doc = json.loads(SUMMARY)
    for key in CLIENT_KEYS:
        doc.pop(key)
    return json.dumps(doc).encode()


def test_aiperf_server_metrics_give_the_servers_measured_prefix_cache_rate() -> None:
    sweep = only(
        parse(
            ("run/profile_export_aiperf.json", summary_without_client_cache()),
            ("run/server_metrics_export.json", SERVER),
            **AIPERF_FORM,
        )
    )
    point = sweep.points[0]
    # Σ vllm:prefix_cache_hits ÷ Σ vllm:prefix_cache_queries over both engines' series.
    assert point_covariates(point.extra) == {"prefix_cache_hit_rate": 5632 / 8000}
    assert point.extra["server_prefix_cache"] == {
        "cached_tokens": 5632.0,
        "queried_tokens": 8000.0,
        "cached": "vllm:prefix_cache_hits",
        "queried": "vllm:prefix_cache_queries",
    }
    share = point_share(point_covariates(point.extra), None, None)
    assert share is not None and (share.share, share.source) == (0.704, "measured")


def test_with_client_usage_and_server_counters_both_are_kept_and_the_client_share_is_used() -> None:
    sweep = only(
        parse(
            ("run/profile_export_aiperf.json", SUMMARY),
            ("run/profile_export.jsonl", RECORDS),
            ("run/server_metrics_export.json", SERVER),
            **AIPERF_FORM,
        )
    )
    covariates = point_covariates(sweep.points[0].extra)
    assert covariates["prefix_cache_hit_rate"] == 0.704
    assert covariates["client_cache_hit_rate"] == 5120 / 7000
    share = point_share(covariates, None, None)
    assert share is not None and share.source == "client"


def test_sglang_counters_in_aiperf_server_metrics_read_the_same() -> None:
    doc = json.loads(SERVER)
    metrics = doc["metrics"]
    metrics["sglang:cached_tokens_total"] = metrics.pop("vllm:prefix_cache_hits")
    metrics["sglang:prompt_tokens_total"] = metrics.pop("vllm:prefix_cache_queries")
    del metrics["vllm:prompt_tokens"]
    sweep = only(
        parse(
            ("run/profile_export_aiperf.json", summary_without_client_cache()),
            ("run/server_metrics_export.json", json.dumps(doc).encode()),
            **AIPERF_FORM,
        )
    )
    assert point_covariates(sweep.points[0].extra) == {"prefix_cache_hit_rate": 0.704}


def test_server_counters_with_more_hits_than_queries_are_refused_naming_the_metric() -> None:
    doc = json.loads(SERVER)
    doc["metrics"]["vllm:prefix_cache_hits"]["series"][0]["stats"]["total"] = 6000.0
    with pytest.raises(IngestError) as caught:
        parse(
            ("run/profile_export_aiperf.json", SUMMARY),
            ("run/server_metrics_export.json", json.dumps(doc).encode()),
            **AIPERF_FORM,
        )
    text = str(caught.value)
    assert "run/server_metrics_export.json, column 'metrics.vllm:prefix_cache_hits'" in text
    assert "8816 cached tokens against 8000 tokens queried" in text


CSV_STATS = "Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\n" + "".join(
    f"{label},{avg},{low},{high},{low},{low},{low},{low},{mid},{high},{high},{high},{high},1\n"
    for label, avg, low, mid, high in (
        ("Time to First Token (ms)", 176.67, 150, 180, 200),
        ("Inter Token Latency (ms)", 20.2, 20.2, 20.2, 20.2),
        ("Request Latency (ms)", 2176.67, 2150, 2180, 2200),
        ("Output Sequence Length (tokens)", 100, 100, 100, 100),
        ("Input Sequence Length (tokens)", 2333.33, 1000, 2000, 4000),
        ("Usage Prompt Cache Read Tokens (tokens)", 1706.67, 0, 1536, 3584),
    )
)
CSV_VALUES = (
    "\nMetric,Value\n"
    "Request Throughput (requests/sec),1.00\n"
    "Output Token Throughput (tokens/sec),100.00\n"
    "Request Count (requests),3\n"
    "Benchmark Duration (sec),3.00\n"
    "Total Usage Prompt Tokens (tokens),7000\n"
    "Total Usage Prompt Cache Read Tokens (tokens),5120\n"
    "Theoretical Prefix Cache Hit (%),80.00\n"
)


def test_the_aiperf_csv_export_gives_the_same_cached_figures() -> None:
    name = "qwen-openai-chat-concurrency4/profile_export_aiperf.csv"
    sweep = only(parse((name, (CSV_STATS + CSV_VALUES).encode()), **AIPERF_FORM))
    covariates = point_covariates(sweep.points[0].extra)
    assert covariates["client_cache_hit_rate"] == 5120 / 7000
    assert covariates["cached_input_tokens"] == 1706.67
    assert covariates["theoretical_cache_hit_rate"] == 0.8
