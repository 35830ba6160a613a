"""TensorRT-LLM `trtllm-bench throughput|latency --report_json <file>` → one point per report.

Schema read from NVIDIA/TensorRT-LLM `tensorrt_llm/bench/dataclasses/reporting.py`
(`ReportUtility.get_statistics_dict`, @2787769 and later) and `statistics.py`:

* `engine.{model, version, backend, dtype, quantization, …}` → model, engine "trt-llm",
  engine_version, precision (quantization if set, else dtype); newer reports add
  `machine.name` (GPU name) → hardware (catalog key when contained, e.g. H100).
* `world_info.world_size` (else tp × pp) → num_gpus; tp/pp/ep, max_batch_size,
  max_num_tokens → extra. `world_info.issue_rate` is the mean inter-arrival *time* in ns
  multiplied by 1e9 (`convert_rate_to_s(queue_time_total / num_requests)`), not a rate, so it
  stays in extra and does not fill request_rate. The report states no concurrency setting:
  `request_info.avg_num_concurrent_requests` (Σ request latency / total time) is the achieved
  concurrency → achieved_concurrency; points of a sweep are ordered by it.
* `request_info.{num_requests, avg_input_length, avg_output_length}` → num_requests, lengths.
* `performance.*`: total_latency_ms → duration_s (÷1000), request_throughput_req_s,
  system_output_throughput_tok_s, system_total_throughput_tok_s (deployment-wide), and
  request_latency_percentiles_ms → e2el (`average` = mean, p50/p90/p95/p99).
* `streaming_metrics` (only with `--streaming`): ttft_percentiles → ttft, tpot_percentiles →
  tpot (per request (end − first token)/(output tokens − 1), the canonical TPOT). Without
  streaming the report has no TPOT and cannot be imported.
* Percentiles are `sorted(values)[int(n × q)]` (nearest rank, no interpolation); minimum and
  maximum go to extra. All values are already in ms, tok/s and req/s. No goodput.

Reports of one configuration (model, version, backend, precision, parallelism) in one upload
folder form one sweep.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.ingest.common import integer, json_safe, number, require
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES

PERCENTILE_STATS = {"average": "mean", "p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
PERFORMANCE = {
    "request_throughput_req_s": "requests_per_s",
    "system_output_throughput_tok_s": "output_tok_s",
    "system_total_throughput_tok_s": "total_tok_s",
}
PRECISIONS = {
    "bfloat16": "bf16",
    "float16": "fp16",
    "float32": "fp32",
    "nvfp4": "fp4",
    "fp8": "fp8",
    "fp8_block_scales": "fp8",
    "w4a16_awq": "int4",
    "w4a8_awq": "int4",
    "w8a16": "int8",
    "int8": "int8",
}
GROUP_KEYS = ("model", "engine_version", "precision", "num_gpus", "hardware")


class TrtllmBenchImporter:
    name = "TensorRT-LLM trtllm-bench"
    priority = 78

    def sniff(self, file: SourceFile) -> bool:
        try:
            data = file.data
            if file.head(SNIFF_BYTES)[:1] != b"{" or b'"performance"' not in data:
                return False
            if not (b'"world_info"' in data or b'"request_info"' in data):
                return False
            doc = file.json()
            if doc is None:
                return b"_tok_s" in data  # broken JSON of this shape: parse() says why
            perf = doc.get("performance") if isinstance(doc, Mapping) else None
            return isinstance(perf, Mapping) and any(str(k).endswith("_tok_s") for k in perf)
        except IngestError:  # unreadable here; the upload's own checks say why
            return False

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        groups: dict[tuple[Any, ...], list[tuple[SourceFile, dict[str, Any], ParsedPoint]]] = {}
        for file in files:
            doc = file.json()
            if doc is None and file.json_error:
                raise IngestError.one(file.name, f"not valid JSON ({file.json_error})")
            doc = require(doc, ("engine", "world_info", "request_info", "performance"), file.name)
            meta = _meta(file, doc)
            point = _point(file.name, doc)
            key = (file.folder, doc["engine"].get("backend"), *(meta.get(k) for k in GROUP_KEYS))
            groups.setdefault(key, []).append((file, meta, point))
        return [_sweep(members) for members in groups.values()]


def _meta(file: SourceFile, doc: Mapping[str, Any]) -> dict[str, Any]:
    name = file.name
    engine = require(doc["engine"], ("model",), name, "engine")
    world = require(doc["world_info"], (), name, "world_info")
    meta: dict[str, Any] = {"engine": "trt-llm", "source_tool": "trtllm-bench"}
    if engine.get("model"):
        meta["model"] = str(engine["model"])
    if engine.get("version"):
        meta["engine_version"] = str(engine["version"])
    quant = engine.get("quantization")
    raw = (
        str(quant) if quant and str(quant).lower() not in ("none", "null") else engine.get("dtype")
    )
    if raw:
        meta["precision"] = PRECISIONS.get(str(raw).lower(), str(raw).lower())
    world_size = _world_size(name, world)
    if world_size:
        meta["num_gpus"] = world_size
    machine = doc.get("machine")
    if isinstance(machine, Mapping) and machine.get("name"):
        meta["hardware"] = str(machine["name"])  # raw: the catalog matcher names the key
    _lengths_into(meta, name, doc.get("dataset"))
    model_label = str(meta.get("model", "")).rstrip("/").rsplit("/", 1)[-1]
    parallel = f"tp{world.get('tp_size', '?')} pp{world.get('pp_size', '?')}"
    label = " ".join(p for p in (meta.get("precision"), parallel) if p)
    meta["sweep"] = " · ".join(p for p in (model_label, "trtllm-bench", label) if p)
    return meta


def _world_size(name: str, world: Mapping[str, Any]) -> int | None:
    """The GPUs of the run: world_size, else tp x pp."""
    world_size = integer(world.get("world_size"), name, "world_info.world_size")
    if world_size is None and world.get("tp_size") is not None:
        tp = integer(world.get("tp_size"), name, "world_info.tp_size") or 1
        pp = integer(world.get("pp_size", 1), name, "world_info.pp_size") or 1
        world_size = tp * pp
    return world_size


def _lengths_into(meta: dict[str, Any], name: str, dataset: Any) -> None:
    """The dataset's input and output lengths, where every request had the same."""
    if not isinstance(dataset, Mapping):
        return
    for stats_key, column in (("isl_stats", "isl"), ("osl_stats", "osl")):
        stats = dataset.get(stats_key)
        if isinstance(stats, Mapping) and stats.get("minimum") == stats.get("maximum"):
            value = number(stats.get("average"), name, f"dataset.{stats_key}.average")
            if value is not None:
                meta[column] = round(value)


def _point(name: str, doc: Mapping[str, Any]) -> ParsedPoint:
    requests = require(doc["request_info"], ("num_requests",), name, "request_info")
    perf = require(doc["performance"], ("request_latency_percentiles_ms",), name, "performance")
    values: dict[str, Any] = {
        "num_requests": integer(requests["num_requests"], name, "request_info.num_requests")
    }
    for key, column in (
        ("avg_num_concurrent_requests", "achieved_concurrency"),
        ("avg_input_length", "input_len"),
        ("avg_output_length", "output_len"),
    ):
        value = number(requests.get(key), name, f"request_info.{key}")
        if value is not None:
            values[column] = value
    for key, column in PERFORMANCE.items():
        value = number(perf.get(key), name, f"performance.{key}")
        if value is not None:
            values[column] = value
    total = number(perf.get("total_latency_ms"), name, "performance.total_latency_ms")
    if total is not None:
        values["duration_s"] = total / 1000.0
    extra: dict[str, Any] = {}
    _percentiles_into(
        values,
        extra,
        "e2el",
        perf["request_latency_percentiles_ms"],
        name,
        "performance.request_latency_percentiles_ms",
    )
    streaming = doc.get("streaming_metrics")
    if streaming is not None:
        streaming = require(streaming, (), name, "streaming_metrics")
        for key, metric in (("ttft_percentiles", "ttft"), ("tpot_percentiles", "tpot")):
            if streaming.get(key) is not None:
                where = f"streaming_metrics.{key}"
                _percentiles_into(values, extra, metric, streaming[key], name, where)
    extra["report"] = json_safe(doc)
    return ParsedPoint(values=values, extra=extra)


def _percentiles_into(
    values: dict[str, Any], extra: dict[str, Any], metric: str, obj: Any, name: str, where: str
) -> None:
    stats = require(obj, ("average",), name, where)
    for key, raw in stats.items():
        value = number(raw, name, f"{where}.{key}")
        if value is None:
            continue
        if key in PERCENTILE_STATS:
            values[f"{metric}_{PERCENTILE_STATS[key]}_ms"] = value
        else:
            extra[f"{metric}_{key}_ms"] = value


def _sweep(members: list[tuple[SourceFile, dict[str, Any], ParsedPoint]]) -> ParsedSweep:
    members = sorted(members, key=lambda m: m[2].values.get("achieved_concurrency", math.inf))
    file, meta, _ = members[0]
    version = meta.get("engine_version")
    fmt = "trtllm-bench report JSON" + (f" (TensorRT-LLM {version})" if version else "")
    source = (file.folder or file.name) if len(members) > 1 else file.name
    return ParsedSweep(dict(meta), [m[2] for m in members], source, fmt)


IMPORTER = TrtllmBenchImporter()
