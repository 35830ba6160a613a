"""NVIDIA GenAI-Perf (`genai-perf profile`, triton-inference-server/perf_analyzer `genai-perf/`).

Reads, per run (one artifact directory = one load level):

* `profile_export_genai_perf.json`: `{metric: {unit, avg, min, max, std, p1..p99}}` plus
  `input_config` (the full config: newer versions nest it, `perf_analyzer.stimulus.concurrency` /
  `.request_rate`, `model_names`; older versions wrote the flat CLI args `concurrency`, `model`)
  and `telemetry_stats` (DCGM, per GPU index "0".."N");
* `profile_export_genai_perf.csv`: the multi-block CSV (see `_nvidia_csv`), numbers with thousands
  separators; it has no config, so the load comes from the artifact directory name
  (`<model>-<service kind>-<endpoint>-concurrency8`) and the model from the upload form.

A JSON and a CSV of the same run (same folder, same stem) give one point: the JSON wins. The
companions GenAI-Perf writes into the same directory — `inputs.json` (prompts) and the raw
perf_analyzer `profile_export.json` (per-request ns timestamps, no token counts) — are recognised
and skipped, so a whole artifact directory can be uploaded as an archive.

Mapping (benchmark-formats.md §3a, §8): `time_to_first_token` → ttft_*, `inter_token_latency` →
tpot_* (per request (latency − TTFT)/(OSL − 1); verified in `llm_profile_data_parser.py`),
`request_latency` → e2el_*, `output_token_throughput` → output_tok_s, `request_throughput` →
requests_per_s, `request_count` → num_requests, ISL/OSL means → input_len/output_len,
`request_goodput` → goodput_requests_per_s with the `--goodput` constraints as goodput_slo.
GenAI-Perf reports neither duration, failures nor total-token throughput: those stay empty (its
`output_token_throughput` and `request_throughput` count different request sets, see the fixture,
so a total is not derived). `backend` in input_config is GenAI-Perf's Triton backend option
(default "tensorrtllm" even against vLLM) and does not name the engine. The whole JSON document
(telemetry, config, every percentile) is kept in each point's `extra`, with secrets redacted.
`telemetry_stats` is keyed by GPU index and names no GPU model, so the hardware is left to the
form. No request samples: the raw perf_analyzer `profile_export.json` has no token counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.ingest.common import json_safe
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._genai_common import (
    Built,
    Run,
    avg,
    common_values,
    config_number,
    config_value,
    first_name,
    json_kind,
    other_percentiles,
    positive_int,
    run_label,
    slo_text,
    sweeps_from,
)
from app.ingest.tools._nvidia_csv import csv_built, csv_kind

TOOL = "GenAI-Perf"
SOURCE_TOOL = "genai-perf profile"
FORMATS = {"json": "profile_export_genai_perf.json", "csv": "profile_export_genai_perf.csv"}
STEMS = ("profile_export_genai_perf", "_genai_perf", "profile_export")
TPOT_NOTE = "tpot_* = inter_token_latency: per request (request_latency - TTFT) / (OSL - 1)"


def is_companion(file: SourceFile) -> bool:
    """GenAI-Perf's `inputs.json` or perf_analyzer's raw `profile_export.json`. Never raises."""
    head = file.head(SNIFF_BYTES)
    if not head.startswith(b"{") or not (b'"data"' in head or b'"experiments"' in head):
        return False
    try:
        doc = file.json()
    except IngestError:  # not UTF-8 text, or past a JSON bound
        return False
    if not isinstance(doc, dict):
        return False
    items = doc.get("experiments") if "experiments" in doc else doc.get("data")
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        return False
    if "experiments" in doc:
        return {"experiment", "requests"} <= items[0].keys()
    return doc.keys() == {"data"} and isinstance(items[0].get("payload"), list)


def telemetry_hint(doc: Mapping[str, Any]) -> dict[str, Any]:
    """How many GPUs DCGM reported and how many had memory in use (a hint, not num_gpus)."""
    stats = doc.get("telemetry_stats")
    if not isinstance(stats, Mapping):
        return {}
    gpus: set[str] = set()
    for per_gpu in stats.values():
        if isinstance(per_gpu, Mapping):
            gpus |= {k for k in per_gpu if k != "unit"}
    used = stats.get("gpu_memory_used")
    busy = 0
    if isinstance(used, Mapping):
        for key, value in used.items():
            mean = value.get("avg") if isinstance(value, Mapping) else None
            busy += key != "unit" and isinstance(mean, int | float) and mean > 0
    return {"telemetry_gpu_count": len(gpus), "telemetry_gpus_with_memory_used": busy}


def build_json(file: SourceFile) -> Built:
    doc = file.json()
    config = doc.get("input_config") or {}
    if not isinstance(config, Mapping):
        raise IngestError.one(file.name, "key 'input_config': expected an object")
    values = common_values(doc, file.name)
    name = file.name
    concurrency = config_number(config, "perf_analyzer.stimulus.concurrency", name)
    if concurrency is None:
        concurrency = config_number(config, "concurrency", name)
    rate = config_number(config, "perf_analyzer.stimulus.request_rate", name)
    if rate is None:
        rate = config_number(config, "request_rate", name)
    if concurrency is not None:
        values["concurrency"] = concurrency
    if rate is not None:
        values["request_rate"] = rate
    notes = [TPOT_NOTE]
    extra: dict[str, Any] = {}
    _goodput(doc, name, values, extra, config)
    hint = telemetry_hint(doc)
    if hint:
        extra.update(hint)
        notes.append(
            "num_gpus not taken from telemetry: DCGM lists every GPU of the node "
            f"({hint['telemetry_gpu_count']} here, "
            f"{hint['telemetry_gpus_with_memory_used']} with memory in use)"
        )
    model = first_name(config_value(config, "model_names")) or first_name(config.get("model"))
    meta: dict[str, Any] = {"source_tool": SOURCE_TOOL, "model": model}
    source = config_value(config, "input.prompt_source")
    if source in (None, "synthetic") and not config_value(config, "input_file"):
        isl = config_number(config, "input.synthetic_tokens.mean", name)
        if isl is None:
            isl = config_number(config, "synthetic_input_tokens_mean", name)
        meta["isl"] = positive_int(isl)
    osl = config_number(config, "input.output_tokens.mean", name)
    if osl is None:
        osl = config_number(config, "output_tokens_mean", name)
    meta["osl"] = positive_int(osl)
    meta = {k: v for k, v in meta.items() if v is not None}
    extra.update(json_safe(doc))
    extra.update(other_percentiles(doc, name))
    extra["import_notes"] = notes
    run = Run(file, "json", doc, config, extra)
    label = run_label(file, STEMS)
    url = config_value(config, "endpoint.url") or config_value(config, "url")
    group = (model, meta.get("isl"), meta.get("osl"), str(url), label)
    return Built(run, ParsedPoint(values=values, extra=extra), meta, label, group)


def _goodput(
    stats: Mapping[str, Any],
    file: str,
    values: dict[str, Any],
    extra: dict[str, Any],
    config: Mapping[str, Any],
) -> None:
    goodput = avg(stats, "request_goodput", file)
    if goodput is None:
        return
    values["goodput_requests_per_s"] = goodput
    spec = config_value(config, "input.goodput") or config.get("goodput")
    slo = slo_text(spec)
    if slo:
        values["goodput_slo"] = slo
    else:
        extra["goodput_slo_note"] = "the file reports request_goodput but not its constraints"


def _csv_more(
    stats: Mapping[str, Any], file: str, values: dict[str, Any], extra: dict[str, Any]
) -> None:
    _goodput(stats, file, values, extra, {})
    extra["import_notes"] = [TPOT_NOTE]


class GenAIPerfImporter:
    name = TOOL
    priority = 56

    def sniff(self, file: SourceFile) -> bool:
        return (
            csv_kind(file) == "genai-perf" or json_kind(file) == "genai-perf" or is_companion(file)
        )

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        jsons = [f for f in files if csv_kind(f) is None and json_kind(f) == "genai-perf"]
        csvs = [f for f in files if csv_kind(f) == "genai-perf"]
        if not jsons and not csvs:
            raise IngestError.one(
                ", ".join(f.name for f in files),
                "GenAI-Perf inputs.json / raw profile_export.json hold no statistics; "
                "upload profile_export_genai_perf.json (or .csv) of the run",
            )
        built = [build_json(f) for f in jsons]
        covered = {(f.folder, _stem(f)) for f in jsons}
        for f in csvs:
            if (f.folder, _stem(f)) not in covered:
                built.append(csv_built(f, SOURCE_TOOL, STEMS, _csv_more))
        return sweeps_from(built, TOOL, FORMATS, defaults)


def _stem(file: SourceFile) -> str:
    return file.basename.rsplit(".", 1)[0]


IMPORTER = GenAIPerfImporter()
