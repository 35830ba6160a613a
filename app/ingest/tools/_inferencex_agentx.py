"""InferenceX AgentX aggregate rows (agentic trace replay, 2026-08+) → points.

What `utils/agentic/aggregation/process_agentic_result.py` and `request_metrics.py`
(SemiAnalysisAI/InferenceX) write for one configuration at one concurrency:

    {"hw", "conc", "model", "framework", "precision", "spec_decoding", "scenario_type":
     "agentic-coding", "num_gpus", "tp", "ep", ..., "num_requests_total",
     "num_requests_successful",
     "request_accounting": {"records_total", "records_profiled", "records_dropped_total",
                            "records_warmup_dropped", "records_error_dropped",
                            "error_categories"},
     "dataset": {...},  # aiperf's metadata.dataset, when it wrote one
     "request_metrics": {
         "latency": {"ttft"|"e2el"|"itl"|"tpot"|"intvty": {"mean", "p50", "p75", "p90",
                     "p95", "std"}},            # seconds (intvty: 1 / ITL, tok/s/user)
         "tokens": {"input"|"output_actual"|"output_expected": {"mean", "p50", ...}},
         "throughput": {"input"|"output"|"total": {"tokens_per_second"},
                        "duration_seconds", "per_gpu": {...}},
         "qps": {...}, "cache": {"theoretical_cache_hit_rate"}},
     "server_metrics": {...}, "kv_cache_pool_tokens"}

No ISL/OSL (a trace has no nominal lengths): the measured mean lengths are the point's. The
throughputs are the whole deployment's (tokens of the profiled successful requests ÷ the span
from the first start to the last end); latencies are seconds → ms; p75 is kept in extra under
the name the read-off looks up (`ttft_p75_ms`). `num_requests` is the profiled successful
requests; `num_failed` the error-dropped records (warm-up records are not requests of the
measurement). The request accounting stays on the point, shown with its counts. `intvty`
(1 ÷ ITL per statistic, so its "p90" is the slow tail's speed) is derived and not kept. The
server's prefix-cache hit rate (measured) and the theoretical one become covariates
(`cache_covariates`, issue 50).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.domain.covariates import PREFIX_CACHE_HIT_RATE, THEORETICAL_CACHE_HIT_RATE
from app.ingest.common import json_safe, number
from app.ingest.parsed import ParsedPoint
from app.ingest.tools._vllm_common import Record, fail, num, whole

LATENCIES = ("ttft", "tpot", "itl", "e2el")
COLUMN_STATS = ("mean", "p50", "p90", "p95", "p99")
ACCOUNTING_KEYS = (
    "records_total",
    "records_profiled",
    "records_dropped_total",
    "records_warmup_dropped",
    "records_error_dropped",
)


def is_agentx(data: Mapping[str, Any]) -> bool:
    return isinstance(data.get("request_metrics"), Mapping) and "scenario_type" in data


def _object(rec: Record, value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise fail(rec, f"key {path!r}: expected an object")
    return value


def _number(rec: Record, value: Any, path: str) -> float | None:
    try:
        return number(value, rec.file, path)
    except Exception as exc:  # an IngestError naming the key: give it the row too
        raise fail(rec, f"key {path!r}: expected a number, got {value!r}") from exc


def agentx_point(rec: Record) -> ParsedPoint:
    data = rec.data
    metrics = _object(rec, data["request_metrics"], "request_metrics")
    values: dict[str, Any] = {"concurrency": num(rec, "conc")}
    if values["concurrency"] is None:
        raise fail(rec, "key 'conc': expected a number, got None")
    extra: dict[str, Any] = {}
    latency = _object(rec, metrics.get("latency"), "request_metrics.latency")
    for metric in LATENCIES:
        stats = _object(rec, latency.get(metric), f"request_metrics.latency.{metric}")
        for stat, raw in stats.items():
            if stat == "std":
                continue
            seconds = _number(rec, raw, f"request_metrics.latency.{metric}.{stat}")
            if seconds is None:
                continue
            name = f"{metric}_{stat}_ms"
            if stat in COLUMN_STATS:
                values[name] = seconds * 1000
            else:  # p75: a stored percentile the read-off finds in extra
                extra[name] = seconds * 1000
    throughput = _object(rec, metrics.get("throughput"), "request_metrics.throughput")
    for kind, column in (("total", "total_tok_s"), ("output", "output_tok_s")):
        part = _object(rec, throughput.get(kind), f"request_metrics.throughput.{kind}")
        values[column] = _number(
            rec, part.get("tokens_per_second"), f"request_metrics.throughput.{kind}"
        )
    values["duration_s"] = _number(
        rec, throughput.get("duration_seconds"), "request_metrics.throughput.duration_seconds"
    )
    tokens = _object(rec, metrics.get("tokens"), "request_metrics.tokens")
    for kind, column in (("input", "input_len"), ("output_actual", "output_len")):
        part = _object(rec, tokens.get(kind), f"request_metrics.tokens.{kind}")
        values[column] = _number(rec, part.get("mean"), f"request_metrics.tokens.{kind}.mean")
    values["num_requests"] = whole(rec, "num_requests_successful")
    counts = _accounting(rec)
    if counts:
        extra["request_accounting"] = counts
        if "records_error_dropped" in counts:
            values["num_failed"] = counts["records_error_dropped"]
    used = {"request_metrics", "request_accounting"}
    extra |= {k: json_safe(v) for k, v in data.items() if k not in used}
    # The latencies are in the point's columns. `intvty` is dropped: InferenceX names 1 ÷ the
    # ITL's p90 "p90_intvty", so its "percentiles" fall as they rise (the slow tail), and it is
    # derived from the ITL kept here.
    extra["request_metrics"] = json_safe({k: v for k, v in metrics.items() if k != "latency"})
    extra |= cache_covariates(rec, metrics)
    return ParsedPoint(
        values={k: v for k, v in values.items() if v is not None}, row=rec.row, extra=extra
    )


def cache_covariates(rec: Record, metrics: Mapping[str, Any]) -> dict[str, float]:
    """The row's cached share of prompt tokens, each under its source's key (issue 50):
    measured by the server (`server_metrics.cache`: the overall hit rate, which counts CPU and
    external hits too, else vLLM's `prefix_cache_hits` ÷ `prefix_cache_queries`, else the GPU
    hit rate) and theoretical (`request_metrics.cache.theoretical_cache_hit_rate`, the
    trace's shared prefixes under an infinite cache, never measured)."""
    out: dict[str, float] = {}
    server = _object(rec, rec.data.get("server_metrics"), "server_metrics")
    cache = _object(rec, server.get("cache"), "server_metrics.cache")
    found = _number(rec, cache.get("overall_cache_hit_rate"), "server_metrics.cache")
    hits = _number(rec, cache.get("prefix_cache_hits"), "server_metrics.cache.prefix_cache_hits")
    queries = _number(
        rec, cache.get("prefix_cache_queries"), "server_metrics.cache.prefix_cache_queries"
    )
    if found is None and hits is not None and queries:
        found = hits / queries
    if found is None:
        found = _number(rec, cache.get("gpu_cache_hit_rate"), "server_metrics.cache")
    if found is not None:
        out[PREFIX_CACHE_HIT_RATE] = found
    theory = _object(rec, metrics.get("cache"), "request_metrics.cache")
    rate = _number(rec, theory.get("theoretical_cache_hit_rate"), "request_metrics.cache")
    if rate is not None:
        out[THEORETICAL_CACHE_HIT_RATE] = rate
    return out


def _accounting(rec: Record) -> dict[str, Any]:
    """The row's `request_accounting` counts (records, warm-up and error-dropped, …) and its
    error categories; each count a whole number."""
    accounting = _object(rec, rec.data.get("request_accounting"), "request_accounting")
    counts: dict[str, Any] = {}
    for key in ACCOUNTING_KEYS:
        value = accounting.get(key)
        if value is not None:
            count = _number(rec, value, f"request_accounting.{key}")
            if count is None or count < 0 or not float(count).is_integer():
                raise fail(rec, f"key 'request_accounting.{key}': expected a count")
            counts[key] = int(count)
    categories = accounting.get("error_categories")
    if counts and isinstance(categories, Mapping):
        counts["error_categories"] = json_safe(dict(categories))
    return counts


def trace_dataset(data: Mapping[str, Any]) -> str | None:
    """The trace a row replayed, from its `dataset` object (aiperf's metadata), when named."""
    dataset = data.get("dataset")
    if isinstance(dataset, str) and dataset:
        return dataset[:200]
    if isinstance(dataset, Mapping):
        for key in ("name", "hf_dataset", "repo_id", "path", "id"):
            value = dataset.get(key)
            if isinstance(value, str) and value:
                return value[:200]
    return None
