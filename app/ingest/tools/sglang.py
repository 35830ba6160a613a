"""SGLang `python -m sglang.bench_serving` (now `sglang.benchmark.serving`) JSONL → sweeps.

Writer checked in sgl-project/sglang `python/sglang/benchmark/serving.py` @ 00f9ec47 and the
late-2024 `python/sglang/bench_serving.py`: every run appends ONE JSON line to `--output-file`, so
a file usually holds a whole sweep (one line per `--request-rate` / `--max-concurrency`). Read:
every form from the oldest (only `mean/median_e2e_latency_ms`, `median_ttft_ms`, `median_itl_ms`,
`output_throughput`; the fixtures) to the current one (`tag`, `server_info`, mean/median/p90/p95/
p99 of ttft, tpot, itl and `e2e_latency`, `concurrency`, `accept_length`, `--output-details`).

Mapping: `max_concurrency` → concurrency (the cap); `concurrency` → achieved_concurrency (SGLang's
Σ e2e latency / duration); `request_rate` (float or bare `Infinity`) → request_rate (`"trace"`
leaves it empty, the raw value stays in extra); `completed` → num_requests (SGLang counts only
successes and writes no failure count; with `--output-details` num_failed = requests with an
error); `*_e2e_latency_ms` → e2el_*; `*_tpot_ms` (per request (latency − ttft)/(output_len − 1))
→ tpot_*; `*_itl_ms` (pooled chunk gaps) → itl_*, never TPOT; `output_throughput`,
`total_throughput`, `request_throughput` → throughput columns; std, max and other keys → extra.
No goodput (SGLang has none). `--output-details` arrays (`ttfts` and `itls` in seconds,
`input_lens`, `output_lens`, `errors`; no per-request latency) → request samples with
e2el = ttft + Σ itls (SGLang's own latency also counts the wait for the final `[DONE]` chunk, so
a TPOT recomputed from samples can be a little lower than the file's).

A line with no TPOT statistic (the late-2024 files of the fixtures have only `median_itl_ms`)
imports with TTFT, E2EL and throughput and the shared "no TPOT statistic" warning: a pooled ITL is
not a TPOT and cannot be turned into one, and without `mean_ttft_ms` or per-request data no TPOT
can be derived.

Sweeps: lines of one file with the same configuration (tag, backend, dataset, random ISL/OSL and
range ratio, ShareGPT output length, server) form one sweep, ordered by load; files are never
merged (a line does not name the model, so two files cannot be told apart). Meta: isl/osl from
`random_input_len`/`random_output_len` only for `random*` datasets (they default to 1024 even for
ShareGPT runs), workload = `dataset_name`. From `server_info` (SGLang's `/server_info`, so its
presence means the server was SGLang): engine "sglang", engine_version = `version`, model =
`model_path`, precision = `quantization` or an explicit `dtype`, spec_decode =
`speculative_algorithm`, num_gpus = tp_size × pp_size × dp_size, where dp_size does not multiply
when `enable_dp_attention` is on (DP attention shards the same TP GPUs). A prefill/decode
disaggregated server_info (`prefill`/`decode` lists or a disaggregation mode) describes only part
of the deployment, so num_gpus is then left to the user. Without server_info the engine comes from
`backend` (`sglang*` → sglang, `vllm*` → vllm, …; see `_engines`) unless the user gave one.

Cached input tokens (`--cache-report`): per request and per point, see `_sglang_cache`.

Samples: `--output-details` arrays hold every request of the run and only those (the warm-up
requests bench_serving sends first are not in them), the same requests as the aggregates, so all
are kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.domain.covariates import ACCEPTANCE_LENGTH
from app.ingest.common import integer, json_safe
from app.ingest.errors import IngestError
from app.ingest.json_lines import json_lines
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._engines import fill_engine
from app.ingest.tools._sglang_cache import attach_cached, cache_report
from app.ingest.tools._vllm_common import (
    DETAIL_KEYS,
    Record,
    at_row,
    check_completed,
    count_empty_streams,
    empty_stream_warning,
    fail,
    latency_stats,
    model_basename,
    model_name,
    num,
    point_order,
    request_samples,
    require_keys,
    text,
    whole,
)

TOOL = "sglang.bench_serving"
FORMAT = "SGLang bench_serving JSONL"
METRICS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2e_latency": "e2el"}
REQUIRED = ("completed", "duration", "output_throughput", "request_rate")
CONFIG_KEYS = (
    "tag",
    "backend",
    "dataset_name",
    "sharegpt_output_len",
    "fixed_output_len",
    "random_input_len",
    "random_output_len",
    "random_range_ratio",
    "mode",
    "architecture",
)
SERVER_KEYS = (
    "model_path",
    "tp_size",
    "dp_size",
    "pp_size",
    "enable_dp_attention",
    "quantization",
    "dtype",
    "speculative_algorithm",
    "version",
)
DTYPES = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32"}


class SglangImporter:
    name = "SGLang bench_serving"
    priority = 20

    def sniff(self, file: SourceFile) -> bool:
        head = file.head(SNIFF_BYTES)
        return head[:1] == b"{" and (
            b'"total_output_tokens_retokenized"' in head or b'_e2e_latency_ms"' in head
        )

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        sweeps: list[ParsedSweep] = []
        for file in files:
            groups: dict[tuple[Any, ...], list[Record]] = {}
            for rec in _lines(file):
                groups.setdefault(_config_key(rec), []).append(rec)
            for group in groups.values():
                sweep = _sweep(group)
                fill_engine(sweep.meta, (r.data.get("backend") for r in group), defaults)
                sweeps.append(sweep)
        return sweeps


def _lines(file: SourceFile) -> list[Record]:
    out = [Record(item, file.name, n, FORMAT) for n, item in json_lines(file.text, file.name)]
    if not out:
        raise IngestError.one(file.name, "the file holds no result line")
    return out


def _server(rec: Record) -> Mapping[str, Any] | None:
    info = rec.data.get("server_info")
    if info is None:
        return None
    if not isinstance(info, Mapping):
        raise fail(rec, "key 'server_info': expected an object")
    return info


def _config_key(rec: Record) -> tuple[Any, ...]:
    server = _server(rec) or {}
    return (
        tuple(json.dumps(rec.data.get(k), default=str) for k in CONFIG_KEYS),
        tuple(json.dumps(server.get(k), default=str) for k in SERVER_KEYS),
    )


def _sweep(group: list[Record]) -> ParsedSweep:
    points = sorted((_point(rec) for rec in group), key=point_order)
    first = group[0]
    meta = _meta(first)
    server = _server(first)
    version = text(server.get("version")) if server else None
    label = _label(first, meta)
    meta["sweep"] = " · ".join(p for p in (model_basename(meta.get("model")), TOOL, label) if p)
    source_format = f"{FORMAT} (sglang {version})" if version else FORMAT
    warning = empty_stream_warning(points, "SGLang")
    return ParsedSweep(
        meta,
        points,
        first.file,
        source_format,
        first_row=first.row,
        warnings=[warning] if warning else None,
    )


def _label(rec: Record, meta: Mapping[str, Any]) -> str:
    parts = [text(rec.data.get("tag")) or text(rec.data.get("dataset_name")) or "run"]
    if meta.get("isl") is not None:
        parts.append(f"{meta['isl']}/{meta.get('osl', '?')}")
    parts.append(rec.file.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return " ".join(p for p in parts if p)


def _meta(rec: Record) -> dict[str, Any]:
    d = rec.data
    meta: dict[str, Any] = {"source_tool": TOOL}
    dataset = text(d.get("dataset_name"))
    if dataset:
        meta["workload"] = dataset
    if dataset and dataset.startswith("random"):
        meta["isl"] = whole(rec, "random_input_len")
        meta["osl"] = whole(rec, "random_output_len")
    server = _server(rec)
    if server is None:
        return {k: v for k, v in meta.items() if v is not None}
    meta["engine"] = "sglang"
    meta["engine_version"] = text(server.get("version"))
    model = text(server.get("model_path")) or text(server.get("served_model_name"))
    if model:
        meta["model"] = model_name(model)
    quant = text(server.get("quantization"))
    dtype = text(server.get("dtype"))
    meta["precision"] = quant or (DTYPES.get(dtype) if dtype else None)
    spec = text(server.get("speculative_algorithm"))
    if spec:
        meta["spec_decode"] = spec.lower()
        draft = text(server.get("speculative_draft_model_path"))
        meta["draft_model"] = model_name(draft) if draft else None
        with at_row(rec):
            meta["num_spec_tokens"] = integer(
                server.get("speculative_num_draft_tokens"),
                rec.file,
                "server_info.speculative_num_draft_tokens",
            )
    meta["num_gpus"] = _gpus(rec, server)
    split = _pd_split(rec, server)
    if split is not None:
        meta["num_prefill_gpus"], meta["num_decode_gpus"] = split
        meta["num_gpus"] = sum(split)
    return {k: v for k, v in meta.items() if v is not None}


def _pd_split(rec: Record, server: Mapping[str, Any]) -> tuple[int, int] | None:
    """(prefill GPUs, decode GPUs) of a PD-disaggregated router's server_info, whose `prefill`
    and `decode` lists hold each worker's own server_info; None unless every worker names its
    tp_size (a part of the deployment must not stand for all of it)."""
    roles = [server.get("prefill"), server.get("decode")]
    lists = [
        r for r in roles if isinstance(r, list) and r and all(isinstance(w, Mapping) for w in r)
    ]
    if len(lists) != 2:
        return None
    counts = []
    for role in lists:
        total = 0
        for worker in role:
            if worker.get("tp_size") is None:
                return None
            total += _worker_gpus(rec, worker)
        counts.append(total)
    return counts[0], counts[1]


def _worker_gpus(rec: Record, server: Mapping[str, Any]) -> int:
    """tp × pp × dp of one server (dp not multiplying under DP attention)."""
    with at_row(rec):
        tp, pp, dp = (
            integer(server.get(k), rec.file, f"server_info.{k}") or 1
            for k in ("tp_size", "pp_size", "dp_size")
        )
    if server.get("enable_dp_attention"):
        dp = 1
    return tp * pp * dp


def _gpus(rec: Record, server: Mapping[str, Any]) -> int | None:
    mode = text(server.get("disaggregation_mode"))
    if "prefill" in server or "decode" in server or (mode and mode != "null"):
        return None
    if server.get("tp_size") is None:
        return None
    return _worker_gpus(rec, server)


def _point(rec: Record) -> ParsedPoint:
    require_keys(rec, REQUIRED)
    d = rec.data
    values: dict[str, Any] = {}
    used = {"max_concurrency", "request_rate", "completed", "duration", "concurrency"}
    values["concurrency"] = num(rec, "max_concurrency")
    if d.get("request_rate") != "trace":
        values["request_rate"] = num(rec, "request_rate", allow_inf=True)
    values["achieved_concurrency"] = num(rec, "concurrency")
    completed = whole(rec, "completed")
    values["num_requests"] = completed
    values["duration_s"] = num(rec, "duration")
    for key, column in (("total_input_tokens", "input_len"), ("total_output_tokens", "output_len")):
        total = num(rec, key)
        if total is not None and completed:
            values[column] = total / completed
    for key, column in (
        ("output_throughput", "output_tok_s"),
        ("total_throughput", "total_tok_s"),
        ("request_throughput", "requests_per_s"),
    ):
        used.add(key)
        values[column] = num(rec, key)
    used |= latency_stats(rec, values, METRICS)
    point = ParsedPoint(values={k: v for k, v in values.items() if v is not None}, row=rec.row)
    detail = request_samples(rec)
    if detail is not None:
        point.samples, point.values["num_failed"] = detail.samples, detail.failed
        count_empty_streams(
            point, check_completed(rec, point.samples, completed, detail.empty_streams)
        )
        attach_cached(rec, point)  # cached input tokens per request (issue 50)
        used |= set(DETAIL_KEYS) | {"cached_tokens", "cached_tokens_details"}
    if d.get("request_rate") == "trace":
        used.discard("request_rate")
    point.extra = {
        k: json_safe(v) for k, v in d.items() if k not in used and k != "generated_texts"
    } | point.extra
    point.extra |= cache_report(rec)
    accept = num(rec, "accept_length")  # mean tokens per decode step under spec decoding
    if accept is not None:
        point.extra[ACCEPTANCE_LENGTH] = accept
    return point


IMPORTER = SglangImporter()
