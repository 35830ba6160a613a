"""NVIDIA AIPerf (`aiperf profile`, ai-dynamo/aiperf; GenAI-Perf's successor).

Reads, per run (one artifact directory = one load level):

* `profile_export_aiperf.json`: GenAI-Perf's `{metric: {unit, avg, ..., p1..p99}}` shape plus
  `benchmark_duration`, `total_isl`/`total_osl`, `goodput`/`good_request_count` (null without
  `--goodput`), `error_request_count` (null when no request failed), `error_summary`,
  `start_time`, `telemetry_data` (DCGM per endpoint and GPU, with `gpu_name`) and `input_config`
  (`loadgen.concurrency` / `loadgen.request_rate`, `endpoint.model_names`, `input.prompt`);
* `profile_export_aiperf.csv`: the multi-block CSV (see `_nvidia_csv`); no config, so the load
  comes from the artifact directory name (`<model>-openai-<endpoint>-concurrency8`);
* `profile_export.jsonl`: one record per request → request samples (see `_aiperf_records`;
  warm-up records, `benchmark_phase` "warmup", are left out as AIPerf's aggregates leave them out,
  every profiling record is kept);
* `inputs.json` (the prompts sent) is recognised and skipped, so a whole artifact directory can be
  uploaded as an archive; a JSON and a CSV of the same run give one point (the JSON wins).

Told apart from GenAI-Perf by content (benchmark-formats.md §8 rule 1): any AIPerf-only key
(`goodput`, `telemetry_data`, `benchmark_duration`, ...), `input_config.loadgen`, or the
`request_count` unit "requests". Versions: every AIPerf release with `profile_export_aiperf.json`
(the file names no version, so none is shown).

Mapping (§3b, §8): `time_to_first_token` → ttft_*, `inter_token_latency` (per request (latency −
TTFT)/(OSL − 1), `metrics/types/inter_token_latency_metric.py`) → tpot_*, `inter_chunk_latency`
(every chunk gap, pooled) → itl_*, `request_latency` → e2el_*, `output_token_throughput` →
output_tok_s, `request_throughput` → requests_per_s, `benchmark_duration` → duration_s,
(`total_isl` + `total_osl`) / duration → total_tok_s (AIPerf's own totals; its output throughput
is `total_osl` / duration), `request_count` → num_requests, `error_request_count` (null with an
empty `error_summary` = 0) → num_failed, `output_sequence_length` (content + reasoning tokens)
→ output_len, `goodput` → goodput_requests_per_s with the `--goodput` spec (input_config or
`cli_command`) as goodput_slo. Pre-filled meta: model, isl/osl (synthetic prompts only),
measured_at (start_time), and hardware: the telemetry's `gpu_name` as DCGM writes it (e.g.
"NVIDIA A100-SXM4-80GB"; the upload matches it to a catalog key) when every GPU reports the same
name and the user gave no hardware (from the CSV: its telemetry tables' `GPU Name` column). The
GPU count in the telemetry describes the node, not the deployment (fixture: 8 A100s, one used),
so num_gpus is left to the form; the names and counts are kept in `extra`. The whole JSON
document is kept in `extra`, with the API key and headers redacted. Cached input tokens (the
client's usage) and the theoretical prefix-cache hit rate become covariates (`_aiperf_cache`);
`server_metrics_export.json` gives the server's measured prefix-cache hit rate (`_aiperf_server`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from app.domain.covariates import GPU_ENERGY_J, GPU_POWER_W
from app.ingest.common import integer, json_safe, number
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._aiperf_aggregate import (
    aggregate_kind,
    attach_aggregates,
    split_aggregates,
)
from app.ingest.tools._aiperf_cache import cache_figures
from app.ingest.tools._aiperf_records import attach, is_records, read_records
from app.ingest.tools._aiperf_server import attach_server, is_server_metrics
from app.ingest.tools._genai_common import (
    Built,
    Run,
    avg,
    common_values,
    config_number,
    config_value,
    first_name,
    json_kind,
    metric,
    other_percentiles,
    parse_date,
    positive_int,
    run_label,
    slo_text,
    summary_document,
    sweeps_from,
    time_scale,
)
from app.ingest.tools._nvidia_csv import csv_built, csv_kind

TOOL = "AIPerf"
SOURCE_TOOL = "aiperf profile"
FORMATS = {"json": "profile_export_aiperf.json", "csv": "profile_export_aiperf.csv"}
STEMS = ("profile_export_aiperf", "_aiperf", "profile_export")
NOTES = [
    "tpot_* = inter_token_latency: per request (request_latency - TTFT) / (OSL - 1)",
    "itl_* = inter_chunk_latency: every gap between stream chunks, pooled over requests",
]
_CLI_GOODPUT = re.compile(r"--goodput(?:\s+|=)(\"[^\"]*\"|'[^']*'|\S+)")


def aiperf_values(
    stats: Mapping[str, Any], file: str, values: dict[str, Any], extra: dict[str, Any]
) -> None:
    """AIPerf-only columns, read the same way from the JSON document and the CSV blocks."""
    duration = metric(stats, "benchmark_duration", file)
    if duration is not None:
        seconds = number(duration.get("avg"), file, "benchmark_duration.avg")
        if seconds is not None:
            seconds *= time_scale(duration, "benchmark_duration", file, "sec") / 1000.0
            values["duration_s"] = seconds
            isl, osl = avg(stats, "total_isl", file), avg(stats, "total_osl", file)
            if isl is not None and osl is not None and seconds > 0:
                values["total_tok_s"] = (isl + osl) / seconds
    errors = avg(stats, "error_request_count", file)
    if errors is not None:
        values["num_failed"] = integer(errors, file, "error_request_count.avg")
    elif "error_request_count" in stats and isinstance(stats.get("error_summary"), list):
        values["num_failed"] = sum(
            integer(e.get("count"), file, "error_summary.count") or 0
            for e in stats["error_summary"]
            if isinstance(e, Mapping)
        )
    extra.update(cache_figures(stats, file))  # cached input tokens (issue 50)
    goodput = avg(stats, "goodput", file)
    if goodput is not None:
        values["goodput_requests_per_s"] = goodput
        extra["goodput_slo_note"] = "the file reports goodput but not its SLO"
    extra.setdefault("import_notes", []).extend(NOTES)


def telemetry_hint(doc: Mapping[str, Any]) -> dict[str, Any]:
    endpoints = config_value(doc, "telemetry_data.endpoints")
    if not isinstance(endpoints, Mapping):
        return {}
    names: set[str] = set()
    count = busy = 0
    for endpoint in endpoints.values():
        gpus = endpoint.get("gpus") if isinstance(endpoint, Mapping) else None
        for gpu in gpus.values() if isinstance(gpus, Mapping) else ():
            if not isinstance(gpu, Mapping):
                continue
            count += 1
            if isinstance(gpu.get("gpu_name"), str):
                names.add(gpu["gpu_name"])
            used = config_value(gpu, "metrics.gpu_memory_used.avg")
            busy += isinstance(used, int | float) and used > 0
    return {
        "telemetry_gpu_count": count,
        "telemetry_gpus_with_memory_used": busy,
        "telemetry_gpu_names": sorted(names),
    }


# DCGM's energy counter runs since the GPU started: the run's energy is its max − min.
_ENERGY_J = {"MJ": 1e6, "kJ": 1e3, "J": 1.0}


def telemetry_power(doc: Mapping[str, Any]) -> dict[str, float]:
    """Measured power and energy of the GPUs with memory in use (the deployment's; DCGM lists
    every GPU of the node): Σ mean `gpu_power_usage` in W, Σ (max − min) of the
    `energy_consumption` counter in J. Empty when no such GPU reports them."""
    endpoints = config_value(doc, "telemetry_data.endpoints")
    power = energy = 0.0
    powered = metered = 0
    for endpoint in endpoints.values() if isinstance(endpoints, Mapping) else ():
        gpus = endpoint.get("gpus") if isinstance(endpoint, Mapping) else None
        for gpu in gpus.values() if isinstance(gpus, Mapping) else ():
            used = (
                config_value(gpu, "metrics.gpu_memory_used.avg")
                if isinstance(gpu, Mapping)
                else None
            )
            if not (isinstance(used, int | float) and used > 0):
                continue
            watts = config_value(gpu, "metrics.gpu_power_usage")
            if (
                isinstance(watts, Mapping)
                and watts.get("unit") == "W"
                and _finite(watts.get("avg"))
            ):
                power += float(watts["avg"])
                powered += 1
            joules = config_value(gpu, "metrics.energy_consumption")
            scale = _ENERGY_J.get(str(joules.get("unit"))) if isinstance(joules, Mapping) else None
            if scale and _finite(joules.get("max")) and _finite(joules.get("min")):
                energy += (float(joules["max"]) - float(joules["min"])) * scale
                metered += 1
    out = {}
    if powered:
        out[GPU_POWER_W] = power
    if metered:
        out[GPU_ENERGY_J] = energy
    return out


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def build_json(file: SourceFile, defaults: Mapping[str, Any]) -> Built:
    doc = summary_document(file.json())
    name = file.name
    config = doc.get("input_config") or {}
    if not isinstance(config, Mapping):
        raise IngestError.one(name, "key 'input_config': expected an object")
    values = common_values(doc, name)
    extra: dict[str, Any] = {}
    aiperf_values(doc, name, values, extra)
    for column, path in (
        ("concurrency", "loadgen.concurrency"),
        ("request_rate", "loadgen.request_rate"),
    ):
        value = config_number(config, path, name)
        if value is not None:
            values[column] = value
    if "goodput_requests_per_s" in values:
        spec = config_value(config, "input.goodput") or config.get("goodput")
        cli = config.get("cli_command")
        if not spec and isinstance(cli, str) and (match := _CLI_GOODPUT.search(cli)):
            spec = match[1].strip("\"'")
        if slo := slo_text(spec):
            values["goodput_slo"] = slo
            extra.pop("goodput_slo_note", None)
    hint = telemetry_hint(doc)
    gpu_name = None
    if hint:
        extra.update(hint)
        names = hint["telemetry_gpu_names"]
        if len(names) == 1 and not defaults.get("hardware"):
            gpu_name = names[0]
            extra["import_notes"].append(
                f"hardware {gpu_name!r} from the telemetry's gpu_name (the upload matches it to "
                "the catalog); num_gpus not taken from telemetry: DCGM lists every GPU of the "
                f"node ({hint['telemetry_gpu_count']} here, "
                f"{hint['telemetry_gpus_with_memory_used']} with memory in use)"
            )
        else:
            extra["import_notes"].append(
                "hardware and num_gpus not taken from telemetry: "
                + ("the upload form gave the hardware; " if defaults.get("hardware") else "")
                + ("" if len(names) <= 1 else f"it names {len(names)} GPU models; ")
                + f"DCGM lists every GPU of the node ({hint['telemetry_gpu_count']} here, "
                f"{hint['telemetry_gpus_with_memory_used']} with memory in use)"
            )
    model = first_name(config_value(config, "endpoint.model_names")) or first_name(
        config.get("model_names")
    )
    meta: dict[str, Any] = {"source_tool": SOURCE_TOOL, "model": model, "hardware": gpu_name}
    if not config_value(config, "input.file"):
        meta["isl"] = positive_int(config_number(config, "input.prompt.input_tokens.mean", name))
    meta["osl"] = positive_int(config_number(config, "input.prompt.output_tokens.mean", name))
    meta["measured_at"] = parse_date(doc.get("start_time"))
    meta = {k: v for k, v in meta.items() if v is not None}
    notes = extra.pop("import_notes")
    extra.update(json_safe(doc))
    extra.update(other_percentiles(doc, name))
    measured = telemetry_power(doc)
    if measured:
        extra.update(measured)  # the covariates' keys (app.domain.covariates)
        notes.append(
            "measured GPU power and energy: DCGM's figures for the GPUs with memory in use "
            "(board power only; no host, network or cooling)"
        )
    extra["import_notes"] = notes
    run = Run(file, "json", doc, config, extra)
    label = run_label(file, STEMS)
    url = config_value(config, "endpoint.url")
    group = (model, meta.get("isl"), meta.get("osl"), str(url), label, gpu_name)
    return Built(run, ParsedPoint(values=values, extra=extra), meta, label, group)


def csv_gpu_names(rows: Any) -> list[str]:
    """GPU names of the CSV's telemetry tables (`GPU Name` / `GPU_Name` column), sorted."""
    names: set[str] = set()
    column: int | None = None
    for row in rows if isinstance(rows, list) else ():
        cells = [str(c).strip() for c in row] if isinstance(row, list) else []
        found = next((i for i, c in enumerate(cells) if c in ("GPU Name", "GPU_Name")), None)
        if found is not None:
            column = found
        elif not cells or cells[0].startswith("==="):
            column = None  # a new section: its own header says where the name is
        elif column is not None and len(cells) > column and cells[column]:
            names.add(cells[column])
    return sorted(names)


def _csv_hardware(item: Built, defaults: Mapping[str, Any]) -> None:
    """The CSV's telemetry GPU name as hardware, like the JSON's (one name, none given)."""
    names = csv_gpu_names(item.point.extra.get("telemetry_rows"))
    if len(names) != 1 or defaults.get("hardware"):
        return
    item.meta["hardware"] = names[0]
    item.group = (*item.group, names[0])
    item.point.extra.setdefault("import_notes", []).append(
        f"hardware {names[0]!r} from the telemetry's GPU Name (the upload matches it to the "
        "catalog); num_gpus not taken from telemetry: DCGM lists every GPU of the node"
    )


def is_inputs(file: SourceFile) -> bool:
    """AIPerf's `inputs.json` (the prompts sent, per session), skipped on import. Never raises."""
    head = file.head(SNIFF_BYTES)
    if not head.startswith(b"{") or b'"data"' not in head:
        return False
    try:
        doc = file.json()
    except IngestError:  # not UTF-8 text, or past a JSON bound
        return False
    items = doc.get("data") if isinstance(doc, dict) and doc.keys() == {"data"} else None
    return (
        isinstance(items, list)
        and bool(items)
        and isinstance(items[0], dict)
        and {"session_id", "payloads"} <= items[0].keys()
    )


def _by_kind(files: list[SourceFile]) -> tuple[list[SourceFile], ...]:
    """The upload's AIPerf files by kind: summary CSVs, per-request JSONL, server metrics and
    summary JSONs (inputs.json is none of them: skipped)."""
    csvs = [f for f in files if csv_kind(f) == "aiperf"]
    jsonl = [f for f in files if f not in csvs and is_records(f)]
    servers = [f for f in files if f not in csvs and f not in jsonl and is_server_metrics(f)]
    side = {id(f) for f in (*csvs, *jsonl, *servers)}
    jsons = [f for f in files if id(f) not in side and not is_inputs(f)]
    return csvs, jsonl, servers, jsons


class AIPerfImporter:
    name = TOOL
    priority = 55

    def sniff(self, file: SourceFile) -> bool:
        try:
            return (
                csv_kind(file) == "aiperf"
                or json_kind(file) == "aiperf"
                or is_records(file)
                or is_inputs(file)
                or aggregate_kind(file) is not None
                or is_server_metrics(file)
            )
        except IngestError:  # unreadable here; the upload's own checks say why
            return False

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        # The multi-run aggregate and collated files (issue 51) describe the runs beside them.
        summaries, runs = split_aggregates(files)
        csvs, jsonl, servers, jsons = _by_kind(runs)
        if not jsons and not csvs:
            raise IngestError.one(
                ", ".join(f.name for f in files),
                "AIPerf inputs.json / profile_export.jsonl / aggregate files need the run's "
                "profile_export_aiperf.json (or .csv) in the same upload",
            )
        built = [build_json(f, defaults) for f in jsons]
        covered = {(f.folder, f.basename.rsplit(".", 1)[0]) for f in jsons}
        for f in csvs:
            if (f.folder, f.basename.rsplit(".", 1)[0]) not in covered:
                item = csv_built(f, SOURCE_TOOL, STEMS, aiperf_values)
                _csv_hardware(item, defaults)
                built.append(item)
        attach([read_records(f) for f in jsonl], built)
        attach_server(servers, built)  # the server's prefix-cache counters (issue 50)
        sweeps = sweeps_from(built, TOOL, FORMATS, defaults, "profile_export.jsonl")
        attach_aggregates(summaries, sweeps)
        return sweeps


IMPORTER = AIPerfImporter()
