"""guidellm: one entry of `benchmarks[]` (JSON or YAML report) → one canonical point.

Shared by the JSON/YAML path of `guidellm.py`; the CSV path (`_guidellm_csv.py`) reuses the
load-level and distribution helpers. Not an importer (no IMPORTER here).

Field semantics, checked against the guidellm source (vllm-project/guidellm):

* `inter_token_latency_ms` is per request `(last token - first token) / (output tokens - 1)`
  (`schemas/request_stats.py` in 0.4+, `benchmark/benchmark.py` in 0.2-0.3): the canonical
  TPOT, so it fills `tpot_*`. Its distribution is token-weighted (weight = output tokens - 1,
  `GenerativeMetrics.compile`), so its mean is total decode time / total decode tokens.
* `time_per_output_token_ms` is NOT the canonical TPOT: in 0.4+ it is
  `(last token - request start) / output tokens`, i.e. it includes the TTFT; in 0.2-0.3 it was
  `(last token - first token) / output tokens`. It goes to `extra` only. guidellm has no pooled
  gap statistic, so `itl_*` stays empty.
* `request_latency` is in seconds (×1000); every `*_ms` metric is already in ms.
* Percentile keys `p001` … `p999`: two digits are percent (`p05` = 5th), three digits are tenths
  (`p001` = 0.1th, `p999` = 99.9th). p50/p90/p95/p99 fill columns (p50 falls back to `median`);
  the others go to `extra` as `<metric>_p0.1_ms`, `<metric>_p99.9_ms`, ….
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import yaml

from app.ingest.common import integer, json_safe, number, require
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint
from app.ingest.safe_load import load_yaml
from app.ingest.tools._guidellm_requests import request_samples

# guidellm metric → (canonical metric, scale to ms); None = keep in extra only.
LATENCIES: dict[str, tuple[str, float]] = {
    "time_to_first_token_ms": ("ttft", 1.0),
    "inter_token_latency_ms": ("tpot", 1.0),
    "request_latency": ("e2el", 1000.0),
}
# guidellm metric → canonical point column filled from its `successful.mean`.
MEANS: dict[str, str] = {
    "requests_per_second": "requests_per_s",
    "request_concurrency": "achieved_concurrency",
    "prompt_token_count": "input_len",
    "output_token_count": "output_len",
    "output_tokens_per_second": "output_tok_s",
    "tokens_per_second": "total_tok_s",
}
REQUIRED_METRICS = (
    "requests_per_second",
    "request_latency",
    "time_to_first_token_ms",
    "inter_token_latency_ms",
    "prompt_token_count",
    "output_token_count",
    "output_tokens_per_second",
)
TPOT_NOTE = (
    "tpot_* = guidellm inter_token_latency_ms (per-request (last-first)/(n-1), token-weighted); "
    "guidellm time_per_output_token_ms is kept in extra only (it includes TTFT in 0.4+)"
)


def percentile_name(key: str) -> str | None:
    """`p05` → "p5", `p001` → "p0.1", `p999` → "p99.9"; None if not a guidellm percentile key."""
    digits = key[1:]
    if not key.startswith("p") or not digits.isdigit():
        return None
    value = int(digits) if len(digits) <= 2 else int(digits) / 10
    return f"p{value:g}"


def strategy_load(strategy: Mapping[str, Any], file: str, where: str) -> dict[str, Any]:
    """Load level of a guidellm scheduling strategy.

    synchronous → concurrency 1; concurrent → `streams`; constant/poisson → `rate` (req/s);
    throughput → request_rate inf. `max_concurrency` of rate strategies is a scheduler cap,
    not the load level, and stays in extra.
    """
    kind = strategy.get("type_")
    if kind == "synchronous":
        return {"concurrency": 1.0}
    if kind == "concurrent":
        return {"concurrency": number(strategy.get("streams"), file, f"{where}.streams")}
    if kind in ("constant", "poisson"):
        return {"request_rate": number(strategy.get("rate"), file, f"{where}.rate")}
    if kind == "throughput":
        return {"request_rate": math.inf}
    return {}


def load_rank(values: Mapping[str, Any], strategy: str | None) -> tuple[int, float]:
    """Sort key: synchronous first, then rates/concurrencies ascending, throughput last."""
    if strategy == "synchronous":
        return (0, 1.0)
    value = values.get("concurrency", values.get("request_rate"))
    if value is None or math.isinf(value):
        return (2, math.inf)
    return (1, float(value))


def distribution_into(
    values: dict[str, Any],
    extra: dict[str, Any],
    metric: str,
    dist: Any,
    file: str,
    where: str,
    scale: float,
) -> None:
    """Mean, p50, p90, p95, p99 of a DistributionSummary into columns; the rest into extra."""
    dist = require(dist, ("mean",), file, where)
    values[f"{metric}_mean_ms"] = _num(dist["mean"], file, f"{where}.mean") * scale
    percentiles = dist.get("percentiles") or {}
    if not isinstance(percentiles, Mapping):
        raise IngestError.one(file, f"key '{where}.percentiles': expected an object")
    for key, raw in percentiles.items():
        name = percentile_name(str(key))
        value = number(raw, file, f"{where}.percentiles.{key}")
        if name is None or value is None:
            continue
        if name in ("p50", "p90", "p95", "p99"):
            values[f"{metric}_{name}_ms"] = value * scale
        else:
            extra[f"{metric}_{name}_ms"] = value * scale
    if f"{metric}_p50_ms" not in values and dist.get("median") is not None:
        values[f"{metric}_p50_ms"] = _num(dist["median"], file, f"{where}.median") * scale
    for key in ("min", "max", "std_dev"):
        value = number(dist.get(key), file, f"{where}.{key}")
        if value is not None:
            extra[f"{metric}_{key}_ms"] = value * scale


def benchmark_point(file: str, bench: Any, index: int) -> tuple[ParsedPoint, str | None]:
    """One `benchmarks[i]` entry (any layout 0.2-0.8) → point and its strategy type."""
    where = f"benchmarks[{index}]"
    bench = require(bench, ("metrics",), file, where)
    holder = bench.get("config") if isinstance(bench.get("config"), Mapping) else bench.get("args")
    holder = require(holder, ("strategy",), file, f"{where}.config")
    strategy = require(holder["strategy"], ("type_",), file, f"{where}.config.strategy")
    metrics = require(bench["metrics"], REQUIRED_METRICS, file, f"{where}.metrics")
    values: dict[str, Any] = strategy_load(strategy, file, f"{where}.config.strategy")
    extra: dict[str, Any] = {"strategy": json_safe(strategy), "tpot_source": TPOT_NOTE}
    for name, (metric, scale) in LATENCIES.items():
        dist = _successful(metrics[name], file, f"{where}.metrics.{name}")
        distribution_into(
            values, extra, metric, dist, file, f"{where}.metrics.{name}.successful", scale
        )
    tpot_incl = metrics.get("time_per_output_token_ms")
    if isinstance(tpot_incl, Mapping) and isinstance(tpot_incl.get("successful"), Mapping):
        scratch: dict[str, Any] = {}
        key = f"{where}.metrics.time_per_output_token_ms.successful"
        dist = tpot_incl["successful"]
        distribution_into(scratch, scratch, "time_per_output_token", dist, file, key, 1.0)
        extra["guidellm_time_per_output_token_ms"] = scratch
    for name, column in MEANS.items():
        if name in metrics:
            dist = _successful(metrics[name], file, f"{where}.metrics.{name}")
            values[column] = _num(dist.get("mean"), file, f"{where}.metrics.{name}.successful.mean")
    totals = metrics.get("request_totals", bench.get("request_totals"))
    totals = require(totals, ("successful",), file, f"{where}.metrics.request_totals")
    values["num_requests"] = integer(
        totals["successful"], file, f"{where}.request_totals.successful"
    )
    failed = integer(totals.get("errored"), file, f"{where}.request_totals.errored")
    if failed is not None:
        values["num_failed"] = failed
    extra["incomplete_requests"] = totals.get("incomplete")
    duration = number(bench.get("duration"), file, f"{where}.duration")
    if duration is not None:
        values["duration_s"] = duration
    extra["benchmark"] = json_safe({k: v for k, v in bench.items() if k != "requests"})
    point = ParsedPoint(
        values=values, extra=extra, samples=request_samples(file, bench, where, extra)
    )
    return point, str(strategy.get("type_"))


def _successful(metric: Any, file: str, where: str) -> Mapping[str, Any]:
    metric = require(metric, ("successful",), file, where)
    return require(metric["successful"], ("mean",), file, f"{where}.successful")


def _num(value: Any, file: str, key: str) -> float:
    result = number(value, file, key)
    if result is None:
        raise IngestError.one(file, f"key {key!r}: a number is required, got null")
    return result


def synthetic_lengths(data: Any) -> dict[str, Any]:
    """Nominal ISL/OSL (and workload kind) of a single synthetic data source, if stated."""
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if isinstance(data, str):
        text = data.strip()
        if text.startswith("{"):
            try:
                data = load_yaml(text, "(data source)")
            except (yaml.YAMLError, IngestError):
                return {}
        else:
            pairs = [p.split("=", 1) for p in text.split(",") if "=" in p]
            data = {k.strip(): v.strip() for k, v in pairs}
            if data:
                data["kind"] = "synthetic"
    if not isinstance(data, Mapping):
        return {}
    out: dict[str, Any] = {}
    for key, column in (("prompt_tokens", "isl"), ("output_tokens", "osl")):
        value = data.get(key)
        if isinstance(value, int | str) and str(value).isdigit():
            out[column] = int(value)
    if out and data.get("kind"):
        out["workload"] = str(data["kind"])
    return out


def sweep_name(model: Any, stem: str) -> str:
    """'<model basename> · guidellm · <file stem>' (the model part only when known)."""
    label = str(model).rstrip("/").rsplit("/", 1)[-1] if model else None
    return " · ".join(p for p in (label, "guidellm", stem) if p)
