"""vLLM `vllm bench serve` / `benchmarks/benchmark_serving.py` results → sweeps.

Reads (all of vllm-project/vllm `vllm/benchmarks/serve.py` and `vllm/benchmarks/sweep/serve.py`,
checked at 009e6d4a / 0031557f; the legacy script of about v0.6–v0.9 writes the same keys):
- one result JSON object per run (`--save-result`), also the legacy schema without
  `endpoint_type` and with the misspelt `"request_goodput:"` key. InferenceX's RAW
  `benchmark_serving.py` output is exactly this legacy schema (InferenceX forked the script and
  nothing in the file names InferenceX), so those files are imported here, not by the InferenceX
  importer, and labelled "legacy schema, as InferenceX writes it";
- `--append-result` JSONL (several runs in one file, one per line);
- `vllm bench sweep serve` output: `run=N.json`, `summary.json` (a JSON list), `summary.csv`
  (pandas CSV with an unnamed index column). A run that reaches us through several of these files
  is imported once. Repeated runs (`run_number`) stay separate points at the same load (not
  averaged); `run_number -1` is the sweep's warmup and is skipped.

Mapping (benchmark-formats.md §8): `max_concurrency` → concurrency (the cap), `request_rate`
(float, `"inf"` or bare `Infinity`; left empty for ramp-up runs, whose rate changes during the
run) → request_rate, `completed`/`failed` → num_requests/num_failed,
`total_*_tokens / completed` → input_len/output_len, `{mean,median,p50,p90,p95,p99}_{ttft,tpot,itl,
e2el}_ms` → the latency columns (median = p50; std and other percentiles such as p99.9 stay in
extra). `tpot` is vLLM's per-request (latency − ttft)/(output_len − 1) and `itl` its pooled chunk
gaps, so they stay apart. Goodput (`request_goodput`, null without `--goodput`) → goodput; vLLM
does not write the SLO, so `goodput_slo` comes only from `--metadata goodput=...`.
`--save-detailed` arrays (`ttfts`, `itls`, `latencies`, `input_lens`, `output_lens`, `errors`,
seconds) become request samples; see `_vllm_common.request_samples` for failed requests. Once
they are samples, every per-request array (also `start_times`, `queue_times`) leaves extra;
`generated_texts` is always dropped. The `latencies`/`queue_times` that the newest serve.py
writes even without `--save-detailed` (no `ttfts`, so no samples) stay in extra.

Sweeps: runs of one upload are grouped by their configuration: model, label, backend,
burstiness, every `--metadata` and sweep override key, but not the load (rate, concurrency,
`num_prompts`, keys whose value always equals the concurrency or rate, such as a linked
`max_num_seqs`) and not numbers in a label, tag or other metadata string that only name the load
(the tag `base_r4_burstgpt` of the rate-4 run; model and tokenizer names and paths are compared
whole). So the StellaLee fixtures (tags `base_r{1,2,4,8}_burstgpt` on 2026-07-07, and
`baseline_burstgpt`, rate inf, a day earlier from another experiment folder) make TWO sweeps, as
seed_data/README.md chose: a rate sweep 1/2/4/8 and a one-point burst baseline.

Meta: model from `model_id` (a local path becomes its HF id or last folder), measured_at from
`date`, num_gpus from `num_gpus`/`world_size` or tp × pp × dp (`tp`, `tensor_parallel_size`,
`pp`, `pipeline_parallel_size`, `dp`, `data_parallel_size`; metadata strings are cast), isl/osl
from `random_input_len`/`random_output_len`/`input_len`/`output_len` override keys, and any
metadata key named like a sweep column (`hardware`, `engine`, `precision`, ...). The file never
names the hardware. `backend` is the client's request type; when it names a server (`vllm`,
`sglang`, `tgi`, `lmdeploy`, `tensorrt-llm`, …, not `openai*`) it fills the engine if neither the
metadata nor the user gave one (see `_engines`).

Samples: the `--save-detailed` arrays hold exactly the requests the aggregates are computed from
(bench serve's warm-up test prompt is sent before and is not in them; failures are in both), so
all are kept. Older vLLM counted a request whose stream came back empty (TTFT 0, no output token,
empty error string) in `completed`: such a request is a failed sample, the point's num_requests
and num_failed count it as failed (`completed` − empty, `failed` + empty; extra
`empty_streams_counted_as_completed` says how many) and the sweep warns; the file's statistics
stay as written. Any other mismatch of `completed` and the arrays is refused.

Speculative decoding: the `spec_decode_*` results give the point's acceptance rate and mean
acceptance length (`_vllm_spec`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.domain.columns import COLUMNS_BY_NAME, SWEEP_COLUMN_NAMES
from app.ingest.common import integer, json_safe
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools import _vllm_records as records
from app.ingest.tools._engines import fill_engine
from app.ingest.tools._vllm_common import (
    DETAIL_KEYS,
    Record,
    at_row,
    check_completed,
    count_empty_streams,
    empty_stream_warning,
    latency_stats,
    model_basename,
    model_name,
    num,
    point_order,
    request_samples,
    require_keys,
    run_date,
    text,
    whole,
)
from app.ingest.tools._vllm_grouping import NUMBER, sweep_groups, swept_configs
from app.ingest.tools._vllm_spec import spec_decode_covariates

TOOL = "vllm bench serve"
METRICS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2el"}
REQUIRED = ("completed", "duration", "output_throughput", "request_rate")
GPU_KEYS = ("num_gpus", "gpus", "n_gpus", "num_gpu", "world_size")
PARALLEL_KEYS = {
    "tp": ("tp", "tp_size", "tensor_parallel_size"),
    "pp": ("pp", "pp_size", "pipeline_parallel_size"),
    "dp": ("dp", "dp_size", "data_parallel_size"),
}
LENGTH_KEYS = {
    "isl": ("isl", "random_input_len", "input_len"),
    "osl": ("osl", "random_output_len", "output_len"),
}
SLO_KEYS = ("goodput_slo", "goodput")


class VllmImporter:
    name = "vLLM bench serve"
    priority = 30
    # `vllm bench sweep`'s summary.json and summary.csv repeat its run=N.json files: a file all
    # of whose runs were read from others is listed as read (app.ingest.grouping.read_twice).
    repeats_runs = True

    def sniff(self, file: SourceFile) -> bool:
        if records.is_csv_summary(file):
            return True
        head = file.head(SNIFF_BYTES)
        return (
            head[:1] in (b"{", b"[")
            and b'"model_id"' in head
            and b'"num_prompts"' in head
            and b'"completed"' in head
            and b"_e2e_latency_ms" not in head
        )

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        found: list[Record] = []
        for file in sorted(files, key=records.read_order):
            found.extend(records.read_records(file))
        runs = [r for r in records.dedupe(found) if r.data.get("run_number") != -1]
        if not runs:
            raise IngestError.one(files[0].name, "only the sweep's warmup run (run_number -1)")
        sweeps = []
        groups = sweep_groups(runs)
        for group, config in zip(groups, swept_configs(groups), strict=True):
            sweep = _sweep(group, config)
            fill_engine(sweep.meta, (r.data.get("backend") for r in group), defaults)
            sweeps.append(sweep)
        return sweeps


def _sweep(group: list[Record], config: str | None = None) -> ParsedSweep:
    points = sorted((_point(rec) for rec in group), key=point_order)
    first = group[0]
    meta = _meta(first)
    if config and not meta.get("config"):
        meta["config"] = config
    dates = [d for d in (run_date(r.data.get("date")) for r in group) if d is not None]
    if dates and "measured_at" not in meta:
        meta["measured_at"] = min(dates)
    if any("run_number" in r.data for r in group):
        meta["source_tool"] = "vllm bench sweep"
    elif all(r.fmt == records.FMT_LEGACY for r in group):
        meta["source_tool"] = "vllm benchmark_serving.py"
    else:
        meta["source_tool"] = TOOL
    if not meta.get("sweep"):  # `--metadata sweep=...` names it; else a readable default
        parts = (model_basename(meta.get("model")), meta["source_tool"], _label(group))
        meta["sweep"] = " · ".join(p for p in (*parts, meta.get("config")) if p)
    formats = list(dict.fromkeys(r.fmt for r in group))
    files = list(dict.fromkeys(r.file for r in group))
    source = files[0] if len(files) == 1 else f"{files[0]} (+{len(files) - 1} more)"
    warning = empty_stream_warning(points, "vLLM")
    sweep = ParsedSweep(
        meta,
        points,
        source,
        " + ".join(formats),
        warnings=[warning] if warning else None,
        first_row=first.row,
    )
    sweep.files = files
    return sweep


def _label(group: list[Record]) -> str:
    for key in ("label", "tag"):
        labels = {text(r.data.get(key)) for r in group}
        if len(labels) == 1 and None not in labels:
            return str(labels.pop())
    if len(group) == 1:
        return group[0].file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    rates = {r.data.get("request_rate") for r in group}
    kind = "rate sweep" if len(rates) > 1 else "concurrency sweep"
    dates = sorted(d for d in (run_date(r.data.get("date")) for r in group) if d is not None)
    return f"{kind} {dates[0].isoformat()}" if dates else kind


def _meta(rec: Record) -> dict[str, Any]:
    d = rec.data
    meta: dict[str, Any] = {}
    model = text(d.get("model_id"))
    if model:
        meta["model"] = model_name(model)
    for key in SWEEP_COLUMN_NAMES:
        if key in d and key not in ("model", "source_tool") and text(d[key]) is not None:
            kind = COLUMNS_BY_NAME[key].kind
            if kind == "int":
                meta[key] = whole(rec, key)
            elif kind == "date":
                meta[key] = run_date(str(d[key]).replace("-", "")) or d[key]
            else:
                meta[key] = str(d[key])
    for column, aliases in LENGTH_KEYS.items():
        value = _first_int(rec, aliases)
        if column not in meta and value is not None:
            meta[column] = value
    if "num_gpus" not in meta:
        gpus = _first_int(rec, GPU_KEYS)
        sizes = {k: _first_int(rec, aliases) for k, aliases in PARALLEL_KEYS.items()}
        if gpus is None and any(v is not None for v in sizes.values()):
            gpus = math.prod(v or 1 for v in sizes.values())
        if gpus is not None:
            meta["num_gpus"] = gpus
    return meta


def _first_int(rec: Record, keys: tuple[str, ...]) -> int | None:
    for key in keys:
        for spelling in (key, key.replace("_", "-")):
            if spelling in rec.data and text(rec.data[spelling]) is not None:
                with at_row(rec):
                    return integer(rec.data[spelling], rec.file, spelling)
    return None


def _point(rec: Record) -> ParsedPoint:
    require_keys(rec, REQUIRED)
    d = rec.data
    values: dict[str, Any] = {}
    used = {"max_concurrency", "request_rate", "completed", "failed", "duration", *DETAIL_KEYS}
    concurrency = num(rec, "max_concurrency")
    if concurrency is not None:
        values["concurrency"] = concurrency
    rate = num(rec, "request_rate", allow_inf=True)
    if "ramp_up_strategy" in d:  # the rate ramps from start to end: no single offered rate
        used.discard("request_rate")
    elif rate is not None:
        values["request_rate"] = rate
    completed = whole(rec, "completed")
    values["num_requests"] = completed
    if "failed" in d:
        values["num_failed"] = whole(rec, "failed")
    values["duration_s"] = num(rec, "duration")
    for key, column in (("total_input_tokens", "input_len"), ("total_output_tokens", "output_len")):
        total = num(rec, key)
        if total is not None and completed:
            values[column] = total / completed
    for key, column in (
        ("output_throughput", "output_tok_s"),
        ("total_token_throughput", "total_tok_s"),
        ("request_throughput", "requests_per_s"),
    ):
        value = num(rec, key)
        used.add(key)
        if value is not None:
            values[column] = value
    used |= latency_stats(rec, values, METRICS)
    extra: dict[str, Any] = {}
    _goodput(rec, values, extra, used)
    point = ParsedPoint(values={k: v for k, v in values.items() if v is not None}, row=rec.row)
    detail = request_samples(rec)
    if detail is not None:
        point.samples = detail.samples
        empty = check_completed(rec, point.samples, completed, detail.empty_streams)
        if "num_failed" not in point.values:
            point.values["num_failed"] = detail.failed
        elif empty:
            point.values["num_failed"] += empty
        count_empty_streams(point, empty)
    for key, value in d.items():
        if key in used and not (key in DETAIL_KEYS and detail is None):
            continue
        if key == "generated_texts":
            continue
        extra[key] = json_safe(_cast(key, value))
    point.extra = extra | point.extra  # the file's fields, then what the import counted
    point.extra |= spec_decode_covariates(d)  # acceptance rate and length (issue 37)
    return point


def _goodput(rec: Record, values: dict[str, Any], extra: dict[str, Any], used: set[str]) -> None:
    key = "request_goodput" if "request_goodput" in rec.data else "request_goodput:"
    if key not in rec.data:
        return
    used.add(key)
    extra[key] = rec.data[key]
    goodput = num(rec, key)
    if goodput is None:
        return
    values["goodput_requests_per_s"] = goodput
    slo = next((text(rec.data.get(k)) for k in SLO_KEYS if text(rec.data.get(k))), None)
    if slo:
        values["goodput_slo"] = slo
    else:
        extra["goodput_slo_note"] = (
            "vLLM does not write its --goodput SLOs into the result; "
            "pass them as --metadata goodput='ttft:... tpot:...' to keep them"
        )


def _cast(key: str, value: Any) -> Any:
    """`--metadata` values are always strings: numbers become numbers (known keys stay)."""
    if isinstance(value, str) and key not in ("date", "label", "model_id", "tokenizer_id"):
        stripped = value.strip()
        if NUMBER.match(stripped):
            number = float(stripped)
            return int(number) if number.is_integer() and "." not in stripped else number
    return value


IMPORTER = VllmImporter()
