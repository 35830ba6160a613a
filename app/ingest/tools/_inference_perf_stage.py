"""inference-perf: one lifecycle report (a load stage) → one canonical point; config.yaml reads.

Not an importer (no IMPORTER here); used by `inference_perf.py`.

Semantics checked against kubernetes-sigs/inference-perf `inference_perf/reportgen/base.py`
(`compute_request_latency_metrics`, `summarize_requests`):

* all latencies are seconds (×1000 here); statistics are `np.percentile` (linear) with
  `median` in place of p50; other keys (p0.1, p1, …, p99.9, min, max) go to `extra`.
* `time_per_output_token` = per request (last token − first token) / (output tokens − 1): the
  canonical TPOT → `tpot_*`.
* `inter_token_latency` = every gap between consecutive token timestamps, pooled over requests
  → `itl_*` (never TPOT). `normalized_time_per_output_token` (latency / output tokens) → extra.
* `load_summary.requested_rate` is the stage's target rate → `request_rate`; a `concurrent`
  stage writes `load_summary.concurrency` → `concurrency`. `benchmark_time_seconds` (newer
  versions) → `duration_s`; older files have no duration.
* `successes.goodput_metrics.request_goodput` (req/s) → goodput, with the SLO taken from
  `config.yaml` `report.goodput.constraints` (seconds, written here in ms).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from app.ingest.common import integer, json_safe, number, obj, require
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint
from app.ingest.safe_load import load_yaml
from app.ingest.source import SourceFile

LATENCIES = {
    "time_to_first_token": "ttft",
    "time_per_output_token": "tpot",
    "inter_token_latency": "itl",
    "request_latency": "e2el",
    "normalized_time_per_output_token": "ntpot",  # extra only
}
COLUMN_STATS = {"mean": "mean", "median": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
THROUGHPUT = {
    "output_tokens_per_sec": "output_tok_s",
    "total_tokens_per_sec": "total_tok_s",
    "requests_per_sec": "requests_per_s",
}
SLO_KEYS = {"request_latency": "e2el"}
TPOT_NOTE = (
    "tpot_* = inference-perf time_per_output_token (per request (last-first)/(n-1)); "
    "itl_* = pooled inter_token_latency gaps"
)


def load_document(file: SourceFile) -> Any:
    """The file as JSON (if it starts like JSON) or YAML; unreadable content names the file."""
    if file.head()[:1] in (b"{", b"["):
        doc = file.json()
        if doc is None and file.json_error:
            raise IngestError.one(file.name, f"not valid JSON ({file.json_error})")
        return doc
    try:
        return load_yaml(file.text, file.name)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "unreadable"
        raise IngestError.one(file.name, f"not valid YAML ({problem}{where})") from exc


def kind_of(doc: Any) -> str | None:
    """'stage', 'summary' or 'prometheus' for a report object; None if it is none of them."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("successes"), Mapping):
        return None
    load = doc.get("load_summary")
    if not isinstance(load, Mapping):
        return None
    if "latency" not in doc["successes"]:
        return "prometheus"
    if "requested_rate" in load or "concurrency" in load:
        return "stage"
    return "summary"


def stage_point(file: str, doc: Mapping[str, Any], slo: str | None) -> ParsedPoint:
    """A `stage_N_lifecycle_metrics` report → one point (seconds → ms)."""
    load = require(doc.get("load_summary"), ("count",), file, "load_summary")
    successes = require(doc.get("successes"), ("count", "latency", "throughput"), file, "successes")
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {"tpot_source": TPOT_NOTE}
    concurrency = number(load.get("concurrency"), file, "load_summary.concurrency")
    rate = number(load.get("requested_rate"), file, "load_summary.requested_rate", allow_inf=True)
    if concurrency:
        values["concurrency"] = concurrency
    elif rate is not None and rate > 0:
        values["request_rate"] = rate
    values["num_requests"] = integer(successes["count"], file, "successes.count")
    failures = doc.get("failures")
    if isinstance(failures, Mapping) and failures.get("count") is not None:
        values["num_failed"] = integer(failures["count"], file, "failures.count")
    duration = number(doc.get("benchmark_time_seconds"), file, "benchmark_time_seconds")
    if duration is not None:
        values["duration_s"] = duration
    latency = require(successes["latency"], (), file, "successes.latency")
    for name, metric in LATENCIES.items():
        _latency_into(values, extra, metric, latency.get(name), file, f"successes.latency.{name}")
    for names, column in (
        (("prompt_len", "prompt_tokens"), "input_len"),
        (("output_len", "output_tokens"), "output_len"),
    ):
        for name in names:
            stats = successes.get(name)
            if isinstance(stats, Mapping) and stats.get("mean") is not None:
                values[column] = number(stats["mean"], file, f"successes.{name}.mean")
                break
    throughput = require(successes["throughput"], (), file, "successes.throughput")
    for name, column in THROUGHPUT.items():
        value = number(throughput.get(name), file, f"successes.throughput.{name}")
        if value is not None:
            values[column] = value
    goodput = successes.get("goodput_metrics")
    if isinstance(goodput, Mapping) and goodput.get("request_goodput") is not None:
        key = "successes.goodput_metrics.request_goodput"
        values["goodput_requests_per_s"] = number(goodput["request_goodput"], file, key)
        if slo:
            values["goodput_slo"] = slo
        else:
            extra["goodput_note"] = (
                "the SLO is in config.yaml (report.goodput.constraints) or per request; "
                "upload config.yaml with the stage files to record it"
            )
    extra["lifecycle"] = json_safe(doc)
    return ParsedPoint(values=values, extra=extra)


def _latency_into(
    values: dict[str, Any], extra: dict[str, Any], metric: str, stats: Any, file: str, key: str
) -> None:
    if stats is None:
        return
    stats = require(stats, (), file, key)
    for stat, raw in stats.items():
        value = number(raw, file, f"{key}.{stat}")
        if value is None:
            continue
        column = COLUMN_STATS.get(str(stat))
        if column is not None and metric != "ntpot":
            values[f"{metric}_{column}_ms"] = value * 1000.0
        else:
            extra[f"{metric}_{column or stat}_ms"] = value * 1000.0


def config_meta(config: Mapping[str, Any]) -> dict[str, Any]:
    """Model, engine and workload from an inference-perf config.yaml."""
    meta: dict[str, Any] = {}
    server = obj(config.get("server"))
    tokenizer = obj(config.get("tokenizer"))
    model = server.get("model_name") or tokenizer.get("pretrained_model_name_or_path")
    if model:
        meta["model"] = str(model)
    if server.get("type"):
        meta["engine"] = str(server["type"])
    data = config.get("data")
    if isinstance(data, Mapping) and data.get("type"):
        meta["workload"] = str(data["type"])
    return meta


def config_label(config: Mapping[str, Any]) -> str | None:
    """'constant load, linear sweep' style description of the load section."""
    load = config.get("load")
    if not isinstance(load, Mapping):
        return None
    parts = [f"{load['type']} load"] if load.get("type") else []
    sweep = load.get("sweep")
    if isinstance(sweep, Mapping) and sweep.get("type"):
        parts.append(f"{sweep['type']} sweep")
    elif isinstance(load.get("stages"), list):
        parts.append(f"{len(load['stages'])} stages")
    return ", ".join(parts) or None


def goodput_slo(config: Mapping[str, Any]) -> str | None:
    """`report.goodput.constraints` (seconds) as 'ttft:500 tpot:50' in ms."""
    report = config.get("report")
    goodput = report.get("goodput") if isinstance(report, Mapping) else None
    constraints = goodput.get("constraints") if isinstance(goodput, Mapping) else None
    if not isinstance(constraints, Mapping) or not constraints:
        return None
    parts = []
    order = ("ttft", "tpot", "itl", "ntpot", "request_latency")
    ranked = sorted(constraints.items(), key=lambda kv: (order + (str(kv[0]),)).index(str(kv[0])))
    for key, raw in ranked:
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            parts.append(f"{SLO_KEYS.get(str(key), key)}:{raw * 1000:g}")
    return " ".join(parts) or None


def stage_config(config: Mapping[str, Any], stage: int | None) -> Any:
    load = config.get("load")
    stages = load.get("stages") if isinstance(load, Mapping) else None
    if stage is None or not isinstance(stages, list) or not 0 <= stage < len(stages):
        return None
    return json_safe(stages[stage])
