"""InferenceX (formerly InferenceMAX) processed results → sweeps.

Reads what SemiAnalysisAI/InferenceX `utils/process_result.py` and `utils/collect_results.py`
write (docs/reference/inferencex.md §1.3–1.4; checked against process_result.py @ 77f3e680):
- `agg_<RESULT_FILENAME>.json`: ONE processed row (one configuration at one concurrency);
- `agg_bmk.json`: a JSON list of such rows, all configurations of a run, not deduplicated.
Both the v1 schema (single `tp`/`ep`, optional `mtp`) and the v2 schema (`spec_decoding`,
`is_multinode`, split `prefill_*`/`decode_*` topology, `num_prefill_gpu`/`num_decode_gpu`) are read.

NOT read here: the RAW `benchmark_serving.py` JSON (ms, whole-deployment tok/s). InferenceX forked
vLLM's legacy `benchmark_serving.py`, and its raw file has exactly the legacy vLLM keys (including
`"request_goodput:"`) and nothing that names InferenceX, so the vLLM importer reads it.

Units and GPU counts (the traps of this format):
- latencies `{mean,median,std,p90,p99,p99.9}_{ttft,tpot,itl,e2el}` are SECONDS (the raw `_ms`
  values ÷ 1000) → ×1000 into the ms columns (median = p50; std and p99.9 stay in extra);
- `*_intvty` (= 1000 / tpot_ms, tok/s/user) are derived and only kept in extra;
- throughputs are PER GPU. GPU count: single node tp × pp × pcp_size (EP, DP attention and DCP
  reuse the TP GPUs; v1 rows have only `tp`); multi-node disaggregated num_prefill_gpu +
  num_decode_gpu. total_tok_s = `tput_per_gpu` × all GPUs. `output_tput_per_gpu` is divided by the
  DECODE GPUs in multi-node rows (by all GPUs if there are none), so output_tok_s =
  `output_tput_per_gpu` × num_decode_gpu there and × all GPUs on a single node.
  `input_tput_per_gpu` (per prefill GPU in multi-node rows) stays in extra.
- concurrency = `conc`; the rows carry no request rate (InferenceX always runs
  `--request-rate inf`, but the row does not say so), request count or duration.
- rows of ttft/tpot/itl come from vLLM's client, so tpot is per-request and itl pooled (with MTP
  a chunk carries several tokens, hence itl ≫ tpot in the Kimi fixture): they stay apart.

Meta: hardware = upper-cased `hw` up to the first `-`/`_` (`mi355x` → MI355X, `b200-multinode`
→ B200), num_gpus (and num_prefill_gpus/num_decode_gpus for multi-node), model, engine
(`framework`), engine_version (the `image` tag when it starts with a version number), precision,
spec_decode (`spec_decoding`; `mtp` on v1 rows), isl, osl. Rows group into sweeps by their
configuration (hardware, model, framework, precision, spec decoding, ISL/OSL, image, topology);
points are ordered by concurrency, repeated rows at one concurrency are kept.

AgentX rows (`scenario_type` and a nested `request_metrics`, agentic trace replay) are read by
`_inferencex_agentx`: the sweep's scenario and trace dataset come from them, and rows group by
scenario too, so an agentic row never joins a fixed-length sweep.

Measured power (`power_valid`, `avg_total_gpu_power_w`, `total_gpu_energy_j`, …) becomes the
point's measured GPU power and energy (`_inferencex_power`).

The public record (issue 51, `_inferencex_public`): rows of the read API `/api/v1/benchmarks`
(a `metrics` object per row, with `date` and `run_url`) and the weekly dump's tables read as the
same agg rows. A run is a sweep: rows of one configuration on another date or in another run
form another sweep, named by its date and run id ("… · 2026-03-14 · run 27489075807") instead
of a counter, with measured_at, run_id, run_url and image kept; they are source kind "public".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.ingest.common import json_safe
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._inferencex_agentx import agentx_point, is_agentx, trace_dataset
from app.ingest.tools._inferencex_layout import layout_name, parallel_settings
from app.ingest.tools._inferencex_names import tell_configs_apart
from app.ingest.tools._inferencex_power import power_covariates
from app.ingest.tools._inferencex_public import (
    FMT_API,
    FMT_DUMP,
    PROVENANCE,
    api_rows,
    dump_rows,
    table_kind,
)
from app.ingest.tools._vllm_common import (
    Record,
    fail,
    gpu_key,
    model_basename,
    model_name,
    num,
    point_order,
    require_keys,
    text,
    whole,
)

TOOL = "InferenceX"
FMT_ROW = "InferenceX agg row (process_result.py)"
FMT_LIST = "InferenceX agg_bmk.json (collect_results.py)"
REQUIRED = ("hw", "conc", "tput_per_gpu", "output_tput_per_gpu")
LATENCY = re.compile(r"^(mean|median|p50|p90|p95|p99)_(ttft|tpot|itl|e2el)$")
OTHER_PERCENTILE = re.compile(r"^(p[0-9]+(?:\.[0-9]+)?)_(ttft|tpot|e2el)$")
STATS = {"mean": "mean", "median": "p50", "p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
CONFIG_KEYS = (
    "hw",
    "model",
    "infmax_model_prefix",
    "framework",
    "precision",
    "spec_decoding",
    "mtp",
    "disagg",
    "is_multinode",
    "isl",
    "osl",
    "image",
    "tp",
    "pp",
    "ep",
    "dcp_size",
    "pcp_size",
    "dp_attention",
    *(
        f"{role}_{k}"
        for role in ("prefill", "decode")
        for k in ("tp", "pp", "ep", "dcp_size", "pcp_size", "dp_attention", "num_workers", "hw")
    ),
    "num_prefill_gpu",
    "num_decode_gpu",
    "router",
    "kv_p2p_transfer",
    "offload_mode",
    "benchmark_type",
    *PROVENANCE,  # another date or run of one configuration is another sweep
    "scenario_type",
)
_VERSION = re.compile(r"^v?(\d+\.\d+(?:[.\w+-]*)?)$")


class InferenceXImporter:
    name = "InferenceX agg results"
    priority = 10

    def sniff(self, file: SourceFile) -> bool:
        head = file.head(SNIFF_BYTES)
        # `tput_per_gpu"` also matches output_/input_tput_per_gpu: a row missing one of
        # them is still claimed, so the error names the missing key.
        if head[:1] not in (b"{", b"["):
            return False
        if b'tput_per_gpu"' in head and (b'"hw"' in head or b'"hardware"' in head):
            return True
        # An AgentX row (issue 49): a nested request_metrics instead of per-GPU figures.
        if b'"request_metrics"' in head and b'"scenario_type"' in head and b'"hw"' in head:
            return True
        # The public dump's tables: its results, its runs and its configurations.
        return (
            (b'"config_id"' in head and b'"benchmark_type"' in head and b'"metrics"' in head)
            or (b'"github_run_id"' in head and b'"run_attempt"' in head)
            or (b'"prefill_num_workers"' in head and b'"num_decode_gpu"' in head)
        )

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        groups: dict[str, list[Record]] = {}
        tables: dict[str, tuple[SourceFile, list[Any]]] = {}
        records: list[Record] = []
        for file in files:
            document = _document(file)
            kind = table_kind(document)
            if kind == "api":
                records.extend(api_rows(file, document))
            elif kind is not None:
                if kind in tables:  # two dumps' tables would join each other's ids
                    raise IngestError.one(
                        file.name,
                        f"a second {kind} table (after {tables[kind][0].name}): upload one "
                        "InferenceX dump at a time",
                    )
                tables[kind] = (file, document)
            else:
                records.extend(_rows(file, document))
        if tables:
            records.extend(dump_rows(tables))
        for rec in records:
            key = repr([_norm(rec.data.get(k)) for k in CONFIG_KEYS])
            groups.setdefault(key, []).append(rec)
        sweeps = [_sweep(group) for group in groups.values()]
        # Rows without a date or run id (CI agg_bmk.json) named by what sets them apart.
        tell_configs_apart(sweeps, [g[0].data for g in groups.values()], CONFIG_KEYS)
        return sweeps


def _norm(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    return str(value).strip().lower() if isinstance(value, str) else repr(value)


def _document(file: SourceFile) -> Any:
    document = file.json()
    if file.json_error is not None:
        raise IngestError.one(file.name, f"not valid JSON ({file.json_error})")
    return document


def _rows(file: SourceFile, document: Any) -> list[Record]:
    if isinstance(document, dict):
        return [Record(document, file.name, None, FMT_ROW)]
    if not isinstance(document, list) or not document:
        raise IngestError.one(file.name, "expected an agg row object or a non-empty list of rows")
    out = []
    for i, item in enumerate(document, start=1):
        if not isinstance(item, dict):
            kind = type(item).__name__
            raise IngestError.one(file.name, f"item {i}: expected a JSON object, got {kind}")
        out.append(Record(item, file.name, i, FMT_LIST))
    return out


def _multinode(rec: Record) -> bool:
    flag = rec.data.get("is_multinode")
    return flag is True or str(flag).lower() == "true"


def _gpus(rec: Record) -> tuple[int, int | None, int | None]:
    """(all GPUs, prefill GPUs, decode GPUs) as process_result.py counts them (an AgentX row
    states its `num_gpus`)."""
    if is_agentx(rec.data) and not _multinode(rec) and rec.data.get("num_gpus") is not None:
        stated = whole(rec, "num_gpus")
        if stated is None or stated <= 0:
            raise fail(rec, "key 'num_gpus': the GPU count must be above 0")
        return stated, None, None
    if _multinode(rec):
        require_keys(rec, ("num_prefill_gpu", "num_decode_gpu"))
        prefill, decode = whole(rec, "num_prefill_gpu") or 0, whole(rec, "num_decode_gpu") or 0
        if prefill + decode <= 0:
            raise fail(rec, "keys 'num_prefill_gpu' + 'num_decode_gpu' must be above 0")
        return prefill + decode, prefill, decode
    require_keys(rec, ("tp",))
    sizes = [whole(rec, k) for k in ("tp", "pp", "pcp_size")]
    total = 1
    for size in sizes:
        total *= size or 1
    if total <= 0:
        raise fail(rec, "key 'tp': the GPU count must be above 0")
    return total, None, None


def _sweep(group: list[Record]) -> ParsedSweep:
    points = sorted((_point(rec) for rec in group), key=point_order)
    first = group[0]
    d = first.data
    total, prefill, decode = _gpus(first)
    spec = text(d.get("spec_decoding")) or ("mtp" if text(d.get("mtp")) else None)
    meta: dict[str, Any] = {
        "hardware": gpu_key(str(d["hw"])),
        "num_gpus": total,
        "num_prefill_gpus": prefill,
        "num_decode_gpus": decode,
        "model": model_name(str(d["model"])) if text(d.get("model")) else None,
        "engine": text(d.get("framework")),
        "engine_version": _image_version(text(d.get("image"))),
        "precision": text(d.get("precision")),
        "spec_decode": spec,
        "isl": whole(first, "isl"),
        "osl": whole(first, "osl"),
        "source_tool": TOOL,
        "scenario": text(d.get("scenario_type")),
        "trace_dataset": trace_dataset(d),
    }
    if first.fmt in (FMT_API, FMT_DUMP):
        # The public record's provenance. A CI agg row keeps its image in the points' extra,
        # as before, so sweeps stored from such rows are still found by their hash.
        meta |= {
            "measured_at": d.get("date"),
            "run_id": d.get("run_id"),
            "run_url": d.get("run_url"),
            "image": text(d.get("image")),
            "source_kind": "public",
            # Agentic trace replay counts cached prefill in its throughput: other work than the
            # fixed-length runs, which likeness then names (the API mixes both in one answer).
            "workload": _workload(d.get("benchmark_type")),
        }
    meta = {k: v for k, v in meta.items() if v is not None}
    settings = parallel_settings(d, _multinode(first))
    if settings:
        meta["config"] = " ".join(f"{k}={v}" for k, v in settings)
    meta["sweep"] = _sweep_name(meta, d, spec, layout_name(d, _multinode(first)))
    files = list(dict.fromkeys(r.file for r in group))
    source = files[0] if len(files) == 1 else f"{files[0]} (+{len(files) - 1} more)"
    fmt = " + ".join(dict.fromkeys(r.fmt for r in group))
    sweep = ParsedSweep(meta, points, source, fmt, first_row=first.row)
    sweep.files = files
    return sweep


def _sweep_name(meta: dict[str, Any], d: Mapping[str, Any], spec: str | None, topology: str) -> str:
    """Model · tool · configuration · lengths (or workload) · layout · date · run."""
    config = " ".join(
        str(p)
        for p in (d["hw"], d.get("framework"), d.get("precision"), spec)
        if p is not None and p != "none"
    )
    lengths = f"{meta['isl']}/{meta['osl']}" if "isl" in meta and "osl" in meta else None
    lengths = meta.get("workload") or lengths or meta.get("scenario")
    run = f"run {meta['run_id']}" if meta.get("run_id") else None
    when = str(meta["measured_at"]) if meta.get("measured_at") else None
    return " · ".join(
        p
        for p in (model_basename(meta.get("model")), TOOL, config, lengths, topology, when, run)
        if p
    )


def _workload(benchmark_type: Any) -> str | None:
    kind = text(benchmark_type)
    return None if kind in (None, "single_turn") else kind


def _image_version(image: str | None) -> str | None:
    if not image or ":" not in image:
        return None
    match = _VERSION.match(image.rsplit(":", 1)[1])
    return match.group(1) if match else None


def _point(rec: Record) -> ParsedPoint:
    if is_agentx(rec.data):
        require_keys(rec, ("hw", "conc"))
        point = agentx_point(rec)
        total, prefill, decode = _gpus(rec)
        point.extra |= power_covariates(rec.data, total, prefill, decode)
        return point
    require_keys(rec, REQUIRED)
    if not isinstance(rec.data["hw"], str) or not rec.data["hw"].strip():
        raise fail(
            rec, f"key 'hw': expected a runner name such as 'mi355x', got {rec.data['hw']!r}"
        )
    total, prefill, decode = _gpus(rec)
    values: dict[str, Any] = {"concurrency": num(rec, "conc")}
    if values["concurrency"] is None:
        raise fail(rec, "key 'conc': expected a number, got None")
    per_gpu_total = num(rec, "tput_per_gpu")
    per_gpu_output = num(rec, "output_tput_per_gpu")
    if per_gpu_total is not None:
        values["total_tok_s"] = per_gpu_total * total
    if per_gpu_output is not None:
        values["output_tok_s"] = per_gpu_output * (decode or total)
    used = {"conc", "tput_per_gpu", "output_tput_per_gpu", *PROVENANCE}
    for key in sorted(rec.data, key=lambda k: k.startswith("median_")):  # median wins over p50
        match = LATENCY.match(key)
        if match:
            seconds = num(rec, key)
            used.add(key)
            if seconds is not None:
                values[f"{match.group(2)}_{STATS[match.group(1)]}_ms"] = seconds * 1000
    extra = {k: json_safe(v) for k, v in rec.data.items() if k not in used}
    # Other stored percentiles (p99.9) in ms under the name the read-off looks up: a stored
    # percentile answers before request samples.
    for key in rec.data:
        match = None if key in used else OTHER_PERCENTILE.match(key)
        seconds = num(rec, key) if match else None
        if match and seconds is not None:
            extra[f"{match.group(2)}_{match.group(1)}_ms"] = seconds * 1000
    extra |= power_covariates(rec.data, total, prefill, decode)  # measured GPU power
    return ParsedPoint(
        values={k: v for k, v in values.items() if v is not None}, row=rec.row, extra=extra
    )


IMPORTER = InferenceXImporter()
