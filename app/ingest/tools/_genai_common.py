"""Shared by the GenAI-Perf and AIPerf importers: detection, the metric mapping and grouping.

Both tools write one `{metric: {unit, avg, min, max, std, p1..p99}}` document per run (AIPerf is
GenAI-Perf's successor and kept the metric names). Verified in the writers' source:

* `inter_token_latency` is per request `(request_latency - ttft) / (output_sequence_length - 1)`
  in both (GenAI-Perf `profile_data_parser/llm_profile_data_parser.py` `_parse_requests`; AIPerf
  `metrics/types/inter_token_latency_metric.py`), i.e. TPOT -> `tpot_*`.
* AIPerf's `inter_chunk_latency` is, since it became a list metric, every gap between consecutive
  stream chunks of every request, pooled (`metrics/types/inter_chunk_latency_metric.py`) -> `itl_*`
  (the fixture's min 0.015 ms / max 140 ms are single gaps, not per-request means).
* Exported times are in the metric's display unit (`ms`); the `unit` string is honoured anyway.

GPU count: both tools' telemetry comes from a DCGM exporter, which reports EVERY GPU of the node
(the fixtures: 8 A100s reported, one with memory in use). That is the node, not the deployment,
so `num_gpus` is never pre-filled from it; the counts are kept in `extra` as a hint.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.ingest.common import integer, number, stats_into
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES

TIME_SCALE_MS = {"ms": 1.0, "s": 1000.0, "sec": 1000.0, "us": 1e-3, "ns": 1e-6}
LATENCIES = (
    ("time_to_first_token", "ttft"),
    ("inter_token_latency", "tpot"),
    ("request_latency", "e2el"),
    ("inter_chunk_latency", "itl"),
)
# Keys only AIPerf writes (benchmark-formats.md §8 rule 1, and the AIPerf fixture).
AIPERF_ONLY = frozenset(
    {
        "goodput",
        "good_request_count",
        "telemetry_data",
        "benchmark_duration",
        "total_isl",
        "total_osl",
        "error_summary",
        "was_cancelled",
        "min_request_timestamp",
    }
)
METRIC_MARKERS = (
    "request_throughput",
    "request_latency",
    "time_to_first_token",
    "inter_token_latency",
    "output_token_throughput",
    "output_sequence_length",
    "request_count",
)
SLO_NAMES = {
    "time_to_first_token": "ttft",
    "inter_token_latency": "tpot",
    "request_latency": "e2el",
}
# Early AIPerf (its examples/artifacts/run1, October 2025) kept the metrics under `records`, each
# with its `tag`, and wrote TTFT and TTST by short tags; later releases put them at the top level
# under their long names.
SHORT_TAGS = {"ttft": "time_to_first_token", "ttst": "time_to_second_token"}


def summary_document(doc: Any) -> Any:
    """The export as the current schema writes it: an early AIPerf summary's `records` lifted
    to the top level, short tags under their long names (anything else returned as it is)."""
    if not isinstance(doc, dict):
        return doc
    records = doc.get("records")
    if not isinstance(records, dict) or not all(
        isinstance(v, dict) and "tag" in v for v in records.values()
    ):
        return doc
    lifted = {SHORT_TAGS.get(k, k): v for k, v in records.items()}
    return {**{k: v for k, v in doc.items() if k != "records"}, **lifted}


_LOAD_SUFFIX = re.compile(r"[-_](concurrency|request[-_]rate)(\d+(?:\.\d+)?)$")


def json_kind(file: SourceFile) -> str | None:
    """'genai-perf' or 'aiperf' for a profile_export_*.json; None otherwise. Never raises."""
    head = file.head(SNIFF_BYTES)
    if not head.startswith(b"{") or b'"unit"' not in head:
        return None
    try:
        doc = summary_document(file.json())
    except IngestError:  # not UTF-8 text, or past a JSON bound
        return None
    if not isinstance(doc, dict):
        return None
    if not any(isinstance(doc.get(k), dict) and "unit" in doc[k] for k in METRIC_MARKERS):
        return None
    config = doc.get("input_config")
    count = doc.get("request_count")
    if (
        AIPERF_ONLY & doc.keys()
        or (isinstance(config, dict) and "loadgen" in config)
        or (isinstance(count, dict) and count.get("unit") == "requests")
    ):
        return "aiperf"
    return "genai-perf"


@dataclass
class Run:
    """One run (one load level) as read from a JSON or CSV export."""

    file: SourceFile
    fmt: str  # "json" or "csv"
    stats: Mapping[str, Any]  # metric key -> statistics object (or anything else in the JSON)
    config: Mapping[str, Any]  # input_config ({} for CSV)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Built:
    run: Run
    point: ParsedPoint
    meta: dict[str, Any]
    label: str | None
    group: tuple[Any, ...]


def metric(stats: Mapping[str, Any], key: str, file: str) -> Mapping[str, Any] | None:
    obj = stats.get(key)
    if obj is None:
        return None
    if not isinstance(obj, Mapping):
        kind = type(obj).__name__
        raise IngestError.one(
            file, f"key {key!r}: expected an object {{unit, avg, ...}}, got {kind}"
        )
    return obj


def avg(stats: Mapping[str, Any], key: str, file: str) -> float | None:
    obj = metric(stats, key, file)
    return None if obj is None else number(obj.get("avg"), file, f"{key}.avg")


def time_scale(obj: Mapping[str, Any], key: str, file: str, default: str = "ms") -> float:
    unit = obj.get("unit") or default
    if not isinstance(unit, str) or unit.lower() not in TIME_SCALE_MS:
        raise IngestError.one(file, f"key {key}.unit: {unit!r} is not a time unit")
    return TIME_SCALE_MS[unit.lower()]


_PERCENTILE_KEY = re.compile(r"^p([0-9]+(?:\.[0-9]+)?)$")


def other_percentiles(stats: Mapping[str, Any], file: str) -> dict[str, float]:
    """The TTFT, TPOT and E2EL percentiles beyond the columns (p75, …) in ms, as
    `<metric>_<pNN>_ms` extra fields: a stored percentile answers before request samples."""
    out: dict[str, float] = {}
    for key, prefix in LATENCIES:
        obj = metric(stats, key, file) if prefix != "itl" else None
        if obj is None:
            continue
        scale = time_scale(obj, key, file)
        for name, raw in obj.items():
            match = _PERCENTILE_KEY.match(str(name))
            if match is None or name in ("p50", "p90", "p95", "p99"):
                continue
            value = number(raw, file, f"{key}.{name}")
            if value is not None and float(match.group(1)) >= 50:
                out[f"{prefix}_{name}_ms"] = value * scale
    return out


def common_values(stats: Mapping[str, Any], file: str) -> dict[str, Any]:
    """Canonical values both tools share (latencies, lengths, throughputs, request count)."""
    if metric(stats, "output_token_throughput", file) is None:
        raise IngestError.one(file, "required key 'output_token_throughput' is missing")
    values: dict[str, Any] = {}
    for key, prefix in LATENCIES:
        obj = metric(stats, key, file)
        if obj is not None:
            stats_into(values, prefix, obj, file, key, scale=time_scale(obj, key, file))
    simple = (
        ("output_tok_s", "output_token_throughput"),
        ("requests_per_s", "request_throughput"),
        ("input_len", "input_sequence_length"),
        ("output_len", "output_sequence_length"),
    )
    for column, key in simple:
        value = avg(stats, key, file)
        if value is not None:
            values[column] = value
    if values.get("output_tok_s") is None:
        raise IngestError.one(file, "key 'output_token_throughput.avg': no value")
    count = avg(stats, "request_count", file)
    if count is not None:
        values["num_requests"] = integer(count, file, "request_count.avg")
    return values


def config_number(config: Mapping[str, Any], path: str, file: str) -> float | None:
    """A number at a dotted path of input_config; None when any part is absent or null."""
    return number(config_value(config, path), file, f"input_config.{path}", allow_inf=True)


def config_value(config: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path of a nested document; None when any part is absent."""
    node: Any = config
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def first_name(value: Any) -> str | None:
    if isinstance(value, list) and value and isinstance(value[0], str):
        return value[0]
    return value if isinstance(value, str) and value else None


def positive_int(value: float | None) -> int | None:
    return int(round(value)) if value is not None and value > 0 else None


def slo_text(spec: Any) -> str | None:
    """'ttft:100 tpot:3.4 e2el:300' from a goodput spec (dict, 'k:v k:v' string or list)."""
    pairs: list[tuple[str, Any]] = []
    if isinstance(spec, Mapping):
        pairs = [(str(k), v) for k, v in spec.items()]
    elif isinstance(spec, str | list):
        items = spec.split() if isinstance(spec, str) else [str(s) for s in spec]
        for item in items:
            key, sep, value = item.partition(":")
            if sep:
                pairs.append((key, value))
    parts = []
    for key, value in pairs:
        name = SLO_NAMES.get(key.strip(), key.strip())
        try:
            parts.append(f"{name}:{float(value):g}")
        except (TypeError, ValueError):
            parts.append(f"{name}:{value}")
    return " ".join(parts) or None


def folder_load(folder: str) -> tuple[str, float] | None:
    """('concurrency', 8.0) from an artifact directory named '...-concurrency8'."""
    match = _LOAD_SUFFIX.search(folder.rsplit("/", 1)[-1])
    if not match:
        return None
    kind = "concurrency" if match[1] == "concurrency" else "request_rate"
    return kind, float(match[2])


def run_label(file: SourceFile, stems: Iterable[str]) -> str | None:
    """A readable label: the artifact directory (load suffix removed) or the file stem."""
    if file.folder:
        name = _LOAD_SUFFIX.sub("", file.folder.rsplit("/", 1)[-1])
        if name and not name.endswith((".zip", ".tar", ".gz", ".tgz")):
            return name
    stem = file.basename.rsplit(".", 1)[0]
    for known in stems:
        stem = stem.replace(known, "")
    return stem.strip("_- ") or None


def parse_date(value: Any) -> dt.date | None:
    if not isinstance(value, str):
        return None
    try:
        return dt.datetime.fromisoformat(value).date()
    except ValueError:
        return None


def sweeps_from(
    built: list[Built],
    tool: str,
    fmt_names: Mapping[str, str],
    defaults: Mapping[str, Any],
    samples_format: str = "",
) -> list[ParsedSweep]:
    """Group points into sweeps (same model, lengths, endpoint and label), ordered by load.

    The sweep's default name uses the form's model when the file names none (CSV exports).
    """
    groups: dict[tuple[Any, ...], list[Built]] = {}
    for item in built:
        groups.setdefault(item.group, []).append(item)
    sweeps = []
    for members in groups.values():
        for part in _split_duplicate_loads(members):
            sweeps.append(_sweep(part, tool, fmt_names, samples_format, defaults))
    return sweeps


def _load_key(item: Built) -> tuple[float, float, str]:
    c, r = item.point.values.get("concurrency"), item.point.values.get("request_rate")
    return (math.inf if c is None else c, math.inf if r is None else r, item.run.file.name)


def _split_duplicate_loads(members: list[Built]) -> list[list[Built]]:
    """Two points at the same load are two runs: split them by folder, then by file."""
    for key in (lambda b: "", lambda b: b.run.file.folder, lambda b: b.run.file.name):
        parts: dict[str, list[Built]] = {}
        for item in members:
            parts.setdefault(key(item), []).append(item)
        if all(len({_load_key(b)[:2] for b in p}) == len(p) for p in parts.values()):
            return list(parts.values())
    return [[m] for m in members]


def _sweep(
    members: list[Built],
    tool: str,
    fmt_names: Mapping[str, str],
    samples_format: str,
    defaults: Mapping[str, Any],
) -> ParsedSweep:
    members = sorted(members, key=_load_key)
    first = members[0]
    meta = dict(first.meta)
    model = meta.get("model") or defaults.get("model")
    label = first.label if len({m.label for m in members}) == 1 else None
    base = model.rsplit("/", 1)[-1] if isinstance(model, str) else None
    meta["sweep"] = " · ".join(p for p in (base, tool, label) if p) or tool
    fmts = " + ".join(sorted({fmt_names[m.run.fmt] for m in members}))
    if samples_format and any(m.point.samples is not None for m in members):
        fmts += f" + {samples_format}"
    names = ", ".join(m.run.file.name for m in members)
    return ParsedSweep(
        meta=meta,
        points=[m.point for m in members],
        source_file=names if len(names) <= 500 else names[:497] + "...",
        source_format=f"{tool} {fmts}",
    )
