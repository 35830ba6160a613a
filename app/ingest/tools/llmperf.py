"""Anyscale / ray-project LLMPerf (`token_benchmark_ray.py`, results version "2023-08-31").

Reads the pair one run writes (benchmark-formats.md §4):

* `<model>_<in>_<out>_summary.json`: flat keys (`LLMPerfResults.to_dict` joins nested keys with
  `_`; a nested `results` object is flattened the same way), latencies in seconds:
  `results_{ttft_s,end_to_end_latency_s,inter_token_latency_s}_{mean,quantiles_p25..p99,min,max,
  stddev}`, `num_concurrent_requests`, `results_num_completed_requests(_per_min)`,
  `results_number_errors`, `results_mean_output_throughput_token_per_s`, `timestamp`, and any
  `--metadata` keys (the leaderboard adds `framework`, `model_size`, `api`);
* `<model>_<in>_<out>_individual_responses.json`: the per-request list → request samples.

Mapping: `num_concurrent_requests` → concurrency (closed loop; LLMPerf has no request rate),
ttft/e2el seconds × 1000 → ttft_*/e2el_* (mean, p50, p90, p95, p99; p25/p75 stay in extra),
`results_mean_output_throughput_token_per_s` → output_tok_s, completed per minute ÷ 60 →
requests_per_s, completed × 60 ÷ completed per minute → duration_s (the inverse of LLMPerf's own
formula), `results_num_completed_requests` → num_requests, `results_number_errors` → num_failed,
input/output token means → input_len/output_len; meta model, isl/osl (`mean_input_tokens`,
`mean_output_tokens`), measured_at (`timestamp`, UTC).

TPOT (decided after reading LLMPerf's client, see `_llmperf_requests`): `inter_token_latency_s`
includes the wait for the first token, so it fills neither tpot_* nor itl_* (it stays in extra,
raw). tpot_* is computed per request from the individual responses, which must therefore be
uploaded with the summary. They are paired by file name (`X_summary` ↔ `X_individual_responses`,
`summary_X` ↔ `individual_X`, `summary/X` ↔ `individual/X`), else by being the only two, else by
content (request count and mean TTFT). A summary without its individual responses (the whole
public llmperf leaderboard is summaries) imports like SGLang's pooled-ITL files: TTFT, E2EL and
throughput, no TPOT, no samples, and a sweep warning saying to upload the individual responses to
get TPOT. Individual responses without their summary (they state neither the concurrency nor the
duration) are refused with a message saying what to add. Summaries of one model, lengths and
metadata form one sweep, ordered by concurrency.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.ingest.common import integer, number
from app.ingest.errors import IngestError
from app.ingest.import_warnings import NO_TPOT_WARNING
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._llmperf_requests import (
    Individual,
    consistent,
    is_individual,
    pair_key,
    read_individual,
    tpot_values,
)

TOOL = "LLMPerf"
SOURCE_TOOL = "llmperf token_benchmark_ray"
CONFIG_KEYS = frozenset(
    {
        "version",
        "name",
        "model",
        "mean_input_tokens",
        "stddev_input_tokens",
        "mean_output_tokens",
        "stddev_output_tokens",
        "num_concurrent_requests",
        "additional_sampling_params",
        "timestamp",
    }
)
LABEL_KEYS = ("label", "tag", "framework")
RESULT_MARKERS = (
    "results_ttft_s_",
    "results_end_to_end_latency_s_",
    "results_inter_token_latency_s_",
    "results_mean_output_throughput_token_per_s",
)
STATS = (
    ("mean", "mean"),
    ("p50", "quantiles_p50"),
    ("p90", "quantiles_p90"),
    ("p95", "quantiles_p95"),
    ("p99", "quantiles_p99"),
)
SUMMARY_ONLY_NOTE = (
    "summary without its individual responses: no tpot_* (results_inter_token_latency_s "
    "includes the first token's wait and is kept raw), no request samples"
)
TPOT_NOTE = (
    "tpot_* computed per request from the individual responses as (E2EL - TTFT) / "
    "(output tokens - 1); LLMPerf's results_inter_token_latency_s includes the first token's "
    "wait and is kept raw"
)


@dataclass
class Member:
    point: ParsedPoint
    meta: dict[str, Any]
    summary: SourceFile
    names: str  # "summary, individual responses"
    individual: bool  # False: a summary alone (no TPOT, no samples)


def flatten(obj: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = f"{prefix}_{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(flatten(value, name))
        else:
            out[name] = value
    return out


def summary_doc(file: SourceFile) -> dict[str, Any] | None:
    """The flat summary when the file is an LLMPerf summary, else None. Never raises."""
    head = file.head(SNIFF_BYTES)
    if not head.startswith(b"{") or b'"results' not in file.data[:SNIFF_BYTES]:
        return None
    try:
        doc = file.json()
    except IngestError:  # not UTF-8 text, or past a JSON bound
        return None
    if not isinstance(doc, dict):
        return None
    flat = flatten(doc)
    return flat if any(k.startswith(RESULT_MARKERS) for k in flat) else None


def point_from(file: SourceFile, s: Mapping[str, Any]) -> ParsedPoint:
    name = file.name
    for key in ("num_concurrent_requests", "results_mean_output_throughput_token_per_s"):
        if key not in s:
            raise IngestError.one(name, f"required key {key!r} is missing")
    values: dict[str, Any] = {
        "concurrency": number(s["num_concurrent_requests"], name, "num_concurrent_requests"),
        "output_tok_s": number(
            s["results_mean_output_throughput_token_per_s"],
            name,
            "results_mean_output_throughput_token_per_s",
        ),
    }
    for metric, prefix in (("ttft_s", "ttft"), ("end_to_end_latency_s", "e2el")):
        for stat, suffix in STATS:
            key = f"results_{metric}_{suffix}"
            value = number(s.get(key), name, key)
            if value is not None:
                values[f"{prefix}_{stat}_ms"] = value * 1000.0
    for column, key in (
        ("input_len", "results_number_input_tokens_mean"),
        ("output_len", "results_number_output_tokens_mean"),
    ):
        value = number(s.get(key), name, key)
        if value is not None:
            values[column] = value
    completed = integer(
        s.get("results_num_completed_requests"), name, "results_num_completed_requests"
    )
    failed = integer(s.get("results_number_errors"), name, "results_number_errors")
    per_min = number(
        s.get("results_num_completed_requests_per_min"),
        name,
        "results_num_completed_requests_per_min",
    )
    if completed is not None:
        values["num_requests"] = completed
    if failed is not None:
        values["num_failed"] = failed
    if per_min is not None:
        values["requests_per_s"] = per_min / 60.0
        if completed and per_min > 0:
            values["duration_s"] = completed * 60.0 / per_min
    extra = {
        k: (str(v) if isinstance(v, float) and not math.isfinite(v) else v) for k, v in s.items()
    }
    # p75 in ms under the name the read-off looks up (a stored percentile beats samples).
    for metric, prefix in (("ttft_s", "ttft"), ("end_to_end_latency_s", "e2el")):
        key = f"results_{metric}_quantiles_p75"
        value = number(s.get(key), name, key)
        if value is not None:
            extra[f"{prefix}_p75_ms"] = value * 1000.0
    return ParsedPoint(values={k: v for k, v in values.items() if v is not None}, extra=extra)


def meta_from(file: SourceFile, s: Mapping[str, Any]) -> dict[str, Any]:
    name = file.name
    meta: dict[str, Any] = {"source_tool": SOURCE_TOOL}
    if isinstance(s.get("model"), str) and s["model"]:
        meta["model"] = s["model"]
    for column, key in (("isl", "mean_input_tokens"), ("osl", "mean_output_tokens")):
        value = number(s.get(key), name, key)
        if value is not None and value > 0:
            meta[column] = int(round(value))
    stamp = number(s.get("timestamp"), name, "timestamp")
    if stamp is not None:
        try:
            meta["measured_at"] = dt.datetime.fromtimestamp(stamp, dt.UTC).date()
        except (OverflowError, OSError, ValueError):
            raise IngestError.one(name, f"key 'timestamp': {stamp!r} is not a date") from None
    return meta


def pair(
    summaries: list[SourceFile],
    individuals: list[Individual],
    docs: Mapping[str, Mapping[str, Any]],
) -> dict[str, Individual]:
    """Summary file name → its individual responses; anything unpaired is an error."""
    paired: dict[str, Individual] = {}
    left = list(individuals)
    by_key = {pair_key(f): f for f in summaries}
    for ind in list(left):
        summary = by_key.get(pair_key(ind.file))
        if summary is not None and summary.name not in paired:
            paired[summary.name] = ind
            left.remove(ind)
    open_summaries = [f for f in summaries if f.name not in paired]
    if len(left) == 1 and len(open_summaries) == 1:
        paired[open_summaries[0].name] = left.pop()
    for ind in list(left):
        fits = [f for f in open_summaries if f.name not in paired and consistent(docs[f.name], ind)]
        if len(fits) == 1:
            paired[fits[0].name] = ind
            left.remove(ind)
    if left:
        raise IngestError.one(
            left[0].file.name,
            "LLMPerf individual responses need their *_summary.json in the same upload (they "
            "state neither the concurrency nor the run's duration); no summary matches this file "
            "by name (X_summary.json / X_individual_responses.json) or by its requests",
        )
    for summary in summaries:
        found = paired.get(summary.name)
        if found is None:
            continue  # imported without TPOT, with summary_only_warning
        if not consistent(docs[summary.name], found):
            raise IngestError.one(
                found.file.name,
                f"holds {found.started} requests (mean TTFT {found.mean_ttft_s} s), which does not "
                f"match {summary.name} (results_num_requests_started, results_ttft_s_mean)",
            )
    return paired


class LLMPerfImporter:
    name = TOOL
    priority = 60

    def sniff(self, file: SourceFile) -> bool:
        return summary_doc(file) is not None or is_individual(file)

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        docs: dict[str, dict[str, Any]] = {}
        summaries: list[SourceFile] = []
        individuals: list[Individual] = []
        for f in files:
            doc = summary_doc(f)
            if doc is not None:
                docs[f.name] = doc
                summaries.append(f)
            else:
                individuals.append(read_individual(f))
        paired = pair(summaries, individuals, docs)
        groups: dict[tuple[Any, ...], list[Member]] = {}
        for f in summaries:
            s = docs[f.name]
            point = point_from(f, s)
            ind = paired.get(f.name)
            if ind is not None:
                point.values.update(tpot_values(ind))
                point.samples = ind.samples
                point.extra["import_notes"] = [TPOT_NOTE]
            else:
                point.extra["import_notes"] = [SUMMARY_ONLY_NOTE]
            meta = meta_from(f, s)
            user = tuple(sorted((k, str(v)) for k, v in s.items() if _is_user_key(k)))
            key = (
                meta.get("model"),
                meta.get("isl"),
                meta.get("osl"),
                str(s.get("additional_sampling_params")),
                user,
            )
            names = f"{f.name}, {ind.file.name}" if ind is not None else f.name
            member = Member(point, meta, f, names, ind is not None)
            groups.setdefault(key, []).append(member)
        sweeps = []
        for members in groups.values():
            loads = [m.point.values.get("concurrency") for m in members]
            if len(set(loads)) == len(loads):
                sweeps.append(_sweep(members))
                continue
            # Two runs at one concurrency are two sweeps: one per results directory.
            by_folder: dict[str, list[Member]] = {}
            for m in members:
                by_folder.setdefault(m.summary.folder, []).append(m)
            sweeps += [_sweep(part, folder) for folder, part in by_folder.items()]
        return sweeps


def _is_user_key(key: str) -> bool:
    return key not in CONFIG_KEYS and not key.startswith("results_")


def _sweep(members: list[Member], folder: str = "") -> ParsedSweep:
    members.sort(key=lambda m: (m.point.values.get("concurrency") or 0.0, m.names))
    meta = members[0].meta
    extra = members[0].point.extra
    label = next((str(extra[k]) for k in LABEL_KEYS if extra.get(k)), None)
    if label is None and meta.get("isl") is not None:
        label = f"ISL {meta.get('isl')} / OSL {meta.get('osl')}"
    model = meta.get("model")
    base = model.rsplit("/", 1)[-1] if isinstance(model, str) else None
    where = folder.rsplit("/", 1)[-1] if folder else None
    sweep_meta = {**meta, "sweep": " · ".join(p for p in (base, TOOL, label, where) if p)}
    version = extra.get("version")
    alone = [m for m in members if not m.individual]
    fmt = "token_benchmark_ray summary" + ("" if alone else " + individual responses")
    names = ", ".join(m.names for m in members)
    sweep = ParsedSweep(
        meta=sweep_meta,
        points=[m.point for m in members],
        source_file=names if len(names) <= 500 else names[:497] + "...",
        source_format=f"{TOOL} {fmt}" + (f" (results version {version})" if version else ""),
    )
    if alone:
        sweep.warnings.append(summary_only_warning([m.summary.name for m in alone]))
    return sweep


def summary_only_warning(names: list[str]) -> str:
    """Why a summary alone has no TPOT and what to upload to get one."""
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (
        f"{NO_TPOT_WARNING}. To get TPOT (and per-request samples), upload the matching "
        f"*_individual_responses.json beside {shown}: LLMPerf's results_inter_token_latency_s "
        "includes the wait for the first token, so it is not a TPOT and is kept raw only"
    )


IMPORTER = LLMPerfImporter()
