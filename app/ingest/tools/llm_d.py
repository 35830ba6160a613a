"""llm-d-benchmark "Benchmark Report" v0.2 / v0.2.1 (YAML or JSON) → canonical points.

Schema: llm-d/llm-d-benchmark `llmdbenchmark/analysis/benchmark_report/schema_v0_2.py` (and
`br_v0_2_example.yaml`). One report = one load stage of one run = one point:

* `scenario.stack[]`: components with `standardized.kind: inference_engine` give the model
  (`model.name`), engine (`tool`, `tool_version`; an image reference keeps its tag as the
  version), hardware (`accelerator.model`, mapped to a catalog key such as H100 when one is
  contained in the name) and GPUs: `num_gpus` = Σ `accelerator.count` × `replicas`. Prefill and
  decode GPU counts are set only when both roles are present (llm-d labels the pods of an
  aggregated deployment `decode` too).
* `scenario.load.standardized`: `rate_qps` → request_rate, `concurrency` → concurrency (`.inf`
  means no cap: kept in extra), `input_seq_len`/`output_seq_len.value` → nominal isl/osl,
  `source` → workload, `stage` → extra (and the point order).
* `results.request_performance.aggregate`: every statistic carries `units`, honoured here
  (`s`, `ms`, `s/token`, `ms/token` → ms; `tokens/s`, `queries/s`; lengths in `count`); any
  other unit is refused. `requests.total − failures − incomplete` = successful requests.
  time_to_first_token → ttft, time_per_output_token → tpot, inter_token_latency → itl,
  request_latency → e2el, normalized_time_per_output_token → extra. Exception: reports
  converted from guidellm (`load.standardized.tool: guidellm`) carry guidellm's
  `time_per_output_token_ms` (which includes the TTFT) as TPOT and guidellm's per-request
  `inter_token_latency_ms` (the true TPOT) as ITL, so for them ITL fills `tpot_*`.
* `run.time.start` → measured_at, `run.time.duration` (ISO 8601, `PT49.97S`) → duration_s,
  `run.description` → notes; everything else (time series, observability, …) → extra.

Reports of one experiment (`run.eid`) with the same stack form one sweep.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from typing import Any

import yaml

from app.domain.covariates import PREFIX_CACHE_HIT_RATE
from app.ingest.common import dig, integer, json_safe, number, obj, require
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.safe_load import load_yaml
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES, looks_like_csv

TIME_UNITS = {"ms": 1.0, "s": 1000.0, "ms/token": 1.0, "s/token": 1000.0}
LATENCIES = {
    "time_to_first_token": "ttft",
    "time_per_output_token": "tpot",
    "inter_token_latency": "itl",
    "request_latency": "e2el",
    "normalized_time_per_output_token": "ntpot",
}
GUIDELLM_LATENCIES = {
    **LATENCIES,
    "time_per_output_token": "guidellm_time_per_output_token",
    "inter_token_latency": "tpot",
}
THROUGHPUT = {
    "output_token_rate": ("output_tok_s", "tokens/s"),
    "total_token_rate": ("total_tok_s", "tokens/s"),
    "request_rate": ("requests_per_s", "queries/s"),
    "input_token_rate": (None, "tokens/s"),
}
COLUMN_STATS = {"mean": "mean", "p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
CANONICAL_METRICS = ("ttft", "tpot", "itl", "e2el")
_YAML_NAMES = (b"run", b"scenario", b"results")
_YAML_KEYS = [re.compile(rb"^" + k + rb":", re.MULTILINE) for k in _YAML_NAMES]
_DURATION = re.compile(
    r"^P(?:(\d+(?:\.\d+)?)D)?T?(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?"
    r"(?:(\d+(?:\.\d+)?)S)?$"
)


class LlmdReportImporter:
    name = "llm-d benchmark report"
    priority = 76

    def sniff(self, file: SourceFile) -> bool:
        data = file.data
        if file.head(SNIFF_BYTES)[:1] == b"{":
            keys = (b'"scenario"', b'"results"', b'"version"', b'"run"')
            return all(k in data for k in keys)
        # Cheap tests first: a multiline regex over an 80 MB CSV takes a second.
        if looks_like_csv(data) or b"version:" not in data:
            return False
        if not all(k + b":" in data for k in _YAML_NAMES):
            return False
        return all(p.search(data) for p in _YAML_KEYS)

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        groups: dict[tuple[Any, ...], list[tuple[SourceFile, dict[str, Any], ParsedPoint]]] = {}
        for file in files:
            doc = _load(file)
            meta, key = _meta(file, doc)
            point = _point(file.name, doc)
            groups.setdefault((file.folder, *key), []).append((file, meta, point))
        return [_sweep(members) for members in groups.values()]


def _load(file: SourceFile) -> Mapping[str, Any]:
    if file.head()[:1] == b"{":
        doc = file.json()
        if doc is None and file.json_error:
            raise IngestError.one(file.name, f"not valid JSON ({file.json_error})")
    else:
        try:
            doc = load_yaml(file.text, file.name)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise IngestError.one(file.name, f"not valid YAML{where}") from exc
    doc = require(doc, ("version", "scenario", "results"), file.name)
    version = str(doc["version"])
    if version not in ("0.2", "0.2.1"):
        raise IngestError.one(
            file.name, f"key 'version': benchmark report {version!r} is not supported (0.2, 0.2.1)"
        )
    return doc


def _meta(file: SourceFile, doc: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[Any, ...]]:
    """Sweep meta from scenario.stack/load and run; plus the key that groups reports."""
    name = file.name
    scenario = require(doc["scenario"], ("stack", "load"), name, "scenario")
    meta: dict[str, Any] = {}
    cfg_ids = _stack_meta(name, scenario["stack"], meta)
    load = require(scenario["load"], ("standardized",), name, "scenario.load")
    std_load = require(load["standardized"], (), name, "scenario.load.standardized")
    _load_meta(name, std_load, meta)
    run = obj(doc.get("run"))
    _run_meta(run, meta)
    tool = " ".join(str(std_load.get(k) or "") for k in ("tool", "tool_version")).strip()
    meta["source_tool"] = f"llm-d-benchmark ({tool})" if tool else "llm-d-benchmark"
    label = str(run.get("description") or run.get("eid") or file.basename.rsplit(".", 1)[0])
    model_label = str(meta.get("model", "")).rstrip("/").rsplit("/", 1)[-1]
    meta["sweep"] = " · ".join(p for p in (model_label, "llm-d", label[:120]) if p)
    group = (run.get("eid") or file.name, meta.get("model"), tuple(cfg_ids), meta.get("num_gpus"))
    return meta, group


def _stack_meta(name: str, stack: Any, meta: dict[str, Any]) -> list[str]:
    """The engine's model, hardware, engine and GPU counts from scenario.stack into `meta`;
    each component's cfg_id (the grouping key's part)."""
    if not isinstance(stack, list):
        raise IngestError.one(name, "key 'scenario.stack': expected a list of components")
    gpus: dict[str, int] = {}
    cfg_ids = []
    for i, component in enumerate(stack):
        where = f"scenario.stack[{i}]"
        component = require(component, ("standardized",), name, where)
        std = require(component["standardized"], ("kind",), name, f"{where}.standardized")
        cfg_ids.append(str(dig(component, "metadata", "cfg_id") or ""))
        if std["kind"] == "inference_engine":
            role, count = _engine_meta(name, where, std, meta)
            gpus[role] = gpus.get(role, 0) + count
    if gpus:
        meta["num_gpus"] = sum(gpus.values())
    if gpus.get("prefill") and gpus.get("decode"):
        meta["num_prefill_gpus"], meta["num_decode_gpus"] = gpus["prefill"], gpus["decode"]
    return cfg_ids


def _engine_meta(
    name: str, where: str, std: Mapping[str, Any], meta: dict[str, Any]
) -> tuple[str, int]:
    """An inference engine component's model, hardware and engine into `meta` (the first
    component to name each wins); its role and GPU count (accelerators x replicas)."""
    accel = require(std.get("accelerator"), ("count",), name, f"{where}.standardized.accelerator")
    count = integer(accel["count"], name, f"{where}.standardized.accelerator.count") or 0
    replicas = integer(std.get("replicas", 1), name, f"{where}.standardized.replicas") or 0
    model = dig(std, "model", "name")
    if model and "model" not in meta:
        meta["model"] = str(model)
    if accel.get("model") and "hardware" not in meta:
        meta["hardware"] = str(accel["model"])  # raw: the catalog matcher names the key
    if std.get("tool") and "engine" not in meta:
        meta["engine"] = str(std["tool"])
        version = str(std.get("tool_version") or "")
        if version:
            meta["engine_version"] = version.rsplit(":", 1)[-1] if "/" in version else version
    return str(std.get("role") or "replica"), count * replicas


def _load_meta(name: str, std_load: Mapping[str, Any], meta: dict[str, Any]) -> None:
    """The workload's lengths (unless drawn from another distribution) and source."""
    for key, column in (("input_seq_len", "isl"), ("output_seq_len", "osl")):
        seq = std_load.get(key)
        if isinstance(seq, Mapping) and seq.get("distribution") != "other":
            value = number(seq.get("value"), name, f"scenario.load.standardized.{key}.value")
            if value is not None:
                meta[column] = round(value)
    if std_load.get("source"):
        meta["workload"] = str(std_load["source"])


def _run_meta(run: Mapping[str, Any], meta: dict[str, Any]) -> None:
    """When the run started (its date) and its description."""
    start = dig(run, "time", "start")
    if isinstance(start, dt.datetime | dt.date):
        meta["measured_at"] = start.date() if isinstance(start, dt.datetime) else start
    elif isinstance(start, str) and start:
        try:
            meta["measured_at"] = dt.datetime.fromisoformat(start.replace("Z", "+00:00")).date()
        except ValueError:
            pass
    if run.get("description"):
        meta["notes"] = str(run["description"])


def _point(name: str, doc: Mapping[str, Any]) -> ParsedPoint:
    std_load = doc["scenario"]["load"]["standardized"]
    tool = str(std_load.get("tool") or "")
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {"load_tool": tool, "stage": std_load.get("stage")}
    _load_into(values, extra, std_load, name)
    results = require(doc["results"], ("request_performance",), name, "results")
    perf = require(
        results["request_performance"], ("aggregate",), name, "results.request_performance"
    )
    base = "results.request_performance.aggregate"
    agg = require(perf["aggregate"], (), name, base)
    if agg.get("requests") is not None:
        _requests_into(values, agg["requests"], name, f"{base}.requests")
    mapping = GUIDELLM_LATENCIES if tool == "guidellm" else LATENCIES
    latency = require(agg.get("latency") or {}, (), name, f"{base}.latency")
    for key, metric in mapping.items():
        if latency.get(key) is not None:
            _latency_into(values, extra, metric, latency[key], name, f"{base}.latency.{key}")
    throughput = require(agg.get("throughput") or {}, (), name, f"{base}.throughput")
    _throughput_into(values, extra, throughput, name, f"{base}.throughput")
    duration_s = _duration_s(dig(doc, "run", "time", "duration"))
    if duration_s is not None:
        values["duration_s"] = duration_s
    hit_rate = _prefix_cache_hit_rate(results)
    if hit_rate is not None:
        extra[PREFIX_CACHE_HIT_RATE] = hit_rate
    if tool == "guidellm":
        extra["tpot_source"] = "guidellm-sourced report: tpot_* = inter_token_latency"
    extra["report"] = json_safe(doc)
    return ParsedPoint(values=values, extra=extra)


def _load_into(
    values: dict[str, Any], extra: dict[str, Any], std_load: Mapping[str, Any], name: str
) -> None:
    """The request rate and concurrency the load asked for (an unbounded one said in extra)."""
    where = "scenario.load.standardized"
    rate = number(std_load.get("rate_qps"), name, f"{where}.rate_qps", allow_inf=True)
    if rate is not None:
        values["request_rate"] = rate
    concurrency = number(std_load.get("concurrency"), name, f"{where}.concurrency", allow_inf=True)
    if concurrency is not None and math.isfinite(concurrency):
        values["concurrency"] = concurrency
    elif concurrency is not None:
        extra["concurrency"] = "inf"


def _requests_into(values: dict[str, Any], requests: Any, name: str, where: str) -> None:
    """Completed and failed counts and the mean lengths from the aggregate's requests."""
    requests = require(requests, ("total",), name, where)
    total = integer(requests["total"], name, f"{where}.total") or 0
    failures = integer(requests.get("failures"), name, f"{where}.failures") or 0
    incomplete = integer(requests.get("incomplete"), name, f"{where}.incomplete") or 0
    values["num_requests"] = total - failures - incomplete
    values["num_failed"] = failures
    for key, column in (("input_length", "input_len"), ("output_length", "output_len")):
        stats = requests.get(key)
        if stats is not None:
            stats = _stats(stats, name, f"{where}.{key}", ("count",))
            values[column] = number(stats["mean"], name, f"{where}.{key}.mean")


def _throughput_into(
    values: dict[str, Any],
    extra: dict[str, Any],
    throughput: Mapping[str, Any],
    name: str,
    where: str,
) -> None:
    """Each throughput's mean into its column, or into extra where no column takes it."""
    for rate_key, (target, unit) in THROUGHPUT.items():
        if throughput.get(rate_key) is None:
            continue
        stats = _stats(throughput[rate_key], name, f"{where}.{rate_key}", (unit,))
        mean = number(stats["mean"], name, f"{where}.{rate_key}.mean")
        if target is not None:
            values[target] = mean
        else:
            extra[f"{rate_key}_mean"] = mean


def _duration_s(duration: Any) -> float | None:
    """Seconds from the run's ISO 8601 duration (P1DT2H3M4.5S, any part left out), or None."""
    match = _DURATION.match(str(duration or ""))
    if not match or not any(match.groups()):
        return None
    d, h, m, s = (float(g) if g else 0.0 for g in match.groups())
    return ((d * 24 + h) * 60 + m) * 60 + s


def _prefix_cache_hit_rate(results: Mapping[str, Any]) -> float | None:
    """vLLM's prefix-cache hit rate (results.observability.vllm_prefix_cache_hit_rate, percent
    per engine) as a fraction: the mean of the engines' means. None when not reported."""
    entry = obj(obj(results.get("observability")).get("vllm_prefix_cache_hit_rate"))
    means = []
    for component in entry.get("components") or []:
        stats = obj(obj(component).get("statistics"))
        mean = stats.get("mean")
        if isinstance(mean, int | float) and not isinstance(mean, bool) and math.isfinite(mean):
            scale = 0.01 if str(stats.get("units", "percent")) == "percent" else 1.0
            means.append(float(mean) * scale)
    return sum(means) / len(means) if means else None


def _stats(obj: Any, name: str, where: str, units: tuple[str, ...]) -> Mapping[str, Any]:
    stats = require(obj, ("units", "mean"), name, where)
    if stats["units"] not in units:
        raise IngestError.one(
            name, f"key '{where}.units': {stats['units']!r} is not one of {', '.join(units)}"
        )
    return stats


def _latency_into(
    values: dict[str, Any], extra: dict[str, Any], metric: str, obj: Any, name: str, where: str
) -> None:
    stats = _stats(obj, name, where, tuple(TIME_UNITS))
    scale = TIME_UNITS[str(stats["units"])]
    for key, raw in stats.items():
        if key == "units":
            continue
        value = number(raw, name, f"{where}.{key}")
        if value is None:
            continue
        stat = str(key).lower().replace("p0p1", "p0.1").replace("p99p9", "p99.9")
        if metric in CANONICAL_METRICS and stat in COLUMN_STATS:
            values[f"{metric}_{COLUMN_STATS[stat]}_ms"] = value * scale
        else:
            extra[f"{metric}_{stat}_ms"] = value * scale


def _sweep(members: list[tuple[SourceFile, dict[str, Any], ParsedPoint]]) -> ParsedSweep:
    def order(member: tuple[SourceFile, dict[str, Any], ParsedPoint]) -> tuple[float, float]:
        point = member[2]
        stage = point.extra.get("stage")
        load = point.values.get("request_rate", point.values.get("concurrency", math.inf))
        return (float(stage) if isinstance(stage, int | float) else math.inf, load)

    members = sorted(members, key=order)
    file, meta, _ = members[0]
    tool = meta["source_tool"].removeprefix("llm-d-benchmark").strip(" ()")
    fmt = f"llm-d Benchmark Report v0.2 ({tool})" if tool else "llm-d Benchmark Report v0.2"
    source = (file.folder or file.name) if len(members) > 1 else file.name
    return ParsedSweep(dict(meta), [m[2] for m in members], source, fmt)


IMPORTER = LlmdReportImporter()
