"""guidellm (vllm-project/guidellm) results: `benchmarks.json`, `benchmarks.yaml`, `benchmarks.csv`.

One file holds a whole sweep: every element of `benchmarks[]` (one CSV row) is one load level.
Layouts read (detected by content, see benchmark-formats.md §5):

* 0.2-0.3: `{"benchmarks": [...]}`, each with `args.strategy`, `run_stats`, `metrics` and a
  benchmark-level `request_totals`; model in `worker.backend_model`.
* 0.4-0.7 (`metadata.version` 1): top-level `args` (model in `args.model`), benchmarks with
  `config.strategy`, `scheduler_metrics` and `metrics.request_totals`.
* 0.8+ (`metadata.version` 2): top-level `config.spec` (model in `config.spec.backend.model`).
* CSV (0.4+ writer `outputs/csv.py`): a 3-row header (group, field or `Successful <units>`,
  statistic), one row per benchmark; `Percentiles` is one string
  `[min, p001, p01, p05, p10, p25, p75, p90, p95, p99, max]`.

Samples: guidellm 0.4+ lists warm-up and cool-down requests too but computes every aggregate
over the requests overlapping `scheduler_metrics.measure_start_time … measure_end_time`; only
those become samples (`_guidellm_benchmark.in_window`), so per-request goodput describes the same
requests as the aggregates. Requests straddling the window's edges are counted whole (tokens made
outside it included); the import warns how many and by how much that changes throughput.
Engine: a `vllm_python` backend (vLLM in process) fills it; the
usual `openai_http` names none.

Metric semantics (TPOT = `inter_token_latency_ms`, not `time_per_output_token_ms`) are
documented in `_guidellm_benchmark.py`. Sampled per-request stats (`requests.successful` /
`errored`) become request samples when the report kept them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

import yaml

from app.ingest.common import dig, json_safe, number, obj
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.safe_load import load_yaml
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._engines import fill_engine
from app.ingest.tools._guidellm_benchmark import (
    benchmark_point,
    load_rank,
    sweep_name,
    synthetic_lengths,
)
from app.ingest.tools._guidellm_csv import is_guidellm_csv, parse_csv

_YAML_BENCHMARKS = re.compile(rb"^benchmarks:", re.MULTILINE)
_LAYOUTS = {None: "0.2-0.3 layout", 1: "0.4-0.7 layout", 2: "0.8+ layout"}


class GuidellmImporter:
    name = "guidellm"
    priority = 72

    def sniff(self, file: SourceFile) -> bool:
        try:
            return _kind(file) is not None
        except IngestError:  # unreadable here; the upload's own checks say why
            return False

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        sweeps = []
        for file in files:
            kind = _kind(file)
            if kind == "csv":
                sweeps.append(parse_csv(file))
            else:
                doc = _load(file, kind or "json")
                sweep = parse_report(file, doc, kind or "json")
                fill_engine(sweep.meta, [_backend_kind(doc)], defaults)
                sweeps.append(sweep)
        return sweeps


def _backend_kind(doc: Mapping[str, Any]) -> Any:
    """guidellm's backend type: `openai_http` (no engine) or `vllm_python` (vLLM in process)."""
    spec_backend = dig(doc, "config", "spec", "backend")
    benchmarks = doc.get("benchmarks")
    first = benchmarks[0] if isinstance(benchmarks, list) and benchmarks else {}
    for backend in (spec_backend, dig(first, "config", "backend"), dig(doc, "args", "backend")):
        if isinstance(backend, Mapping):
            backend = backend.get("kind") or backend.get("type_")
        if isinstance(backend, str):
            return backend
    return None


def _kind(file: SourceFile) -> str | None:
    """'json', 'yaml' or 'csv' when the file is a guidellm report, else None (cheap checks)."""
    data = file.data
    head = file.head(SNIFF_BYTES)
    if head[:1] == b"{":
        if b'"benchmarks"' not in data or b"generative_benchmark" not in data:
            return None
        doc = file.json()
        if doc is None:
            return "json" if file.json_error else None  # broken: parse() says why
        benchmarks = doc.get("benchmarks") if isinstance(doc, Mapping) else None
        if isinstance(benchmarks, list) and any(
            isinstance(b, Mapping) and b.get("type_") == "generative_benchmark" for b in benchmarks
        ):
            return "json"
        return None
    if is_guidellm_csv(head):
        return "csv"
    if _may_be_yaml_mapping(head) and b"generative_benchmark" in data:
        if _YAML_BENCHMARKS.search(data):
            return "yaml"
    return None


def _may_be_yaml_mapping(head: bytes) -> bool:
    """Whether the file's first line could open a YAML report (a mapping, a directive or a
    document marker). A CSV header has no colon: a 2M-request CSV is then not scanned whole
    for a guidellm marker, which took 5% of its import."""
    for line in head.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            return stripped.startswith((b"---", b"%")) or b":" in stripped
    return True  # only comments or blanks in the head: look further


def _load(file: SourceFile, kind: str) -> Mapping[str, Any]:
    if kind == "yaml":
        try:
            doc = load_yaml(file.text, file.name)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or "unreadable"
            raise IngestError.one(file.name, f"not valid YAML ({problem}{where})") from exc
    else:
        doc = file.json()
        if doc is None and file.json_error:
            raise IngestError.one(file.name, f"not valid JSON ({file.json_error})")
    if not isinstance(doc, Mapping):
        raise IngestError.one(file.name, "expected a guidellm report object at the top level")
    return doc


def parse_report(file: SourceFile, doc: Mapping[str, Any], kind: str) -> ParsedSweep:
    """A guidellm report (JSON or YAML, any layout) → one sweep."""
    benchmarks = doc.get("benchmarks")
    if not isinstance(benchmarks, list) or not benchmarks:
        raise IngestError.one(file.name, "required key 'benchmarks' is missing or empty")
    metadata = obj(doc.get("metadata"))
    layout = metadata.get("version")
    keyed: list[tuple[tuple[int, float], ParsedPoint]] = []
    for i, bench in enumerate(benchmarks):
        point, strategy = benchmark_point(file.name, bench, i)
        point.row = i
        point.extra["report"] = json_safe({k: v for k, v in doc.items() if k != "benchmarks"})
        keyed.append((load_rank(point.values, strategy), point))
    points = [p for _, p in sorted(keyed, key=lambda kp: kp[0])]
    version = metadata.get("guidellm_version")
    tool = f"guidellm {version}" if version else f"guidellm ({_LAYOUTS.get(layout, 'layout')})"
    meta = report_meta(file, doc, benchmarks)
    if version:  # harness provenance: the tool's own version
        meta["harness"], meta["harness_version"] = "guidellm", str(version)
    if any(_later_turns(p) for p in points):  # the kind of traffic, until the user names it
        meta.setdefault("scenario", "multi-turn")
    return ParsedSweep(meta, points, file.name, f"{tool} benchmarks.{kind}")


def _later_turns(point: ParsedPoint) -> bool:
    """Whether some request is a conversation's turn after its first (`info.turn_index`)."""
    if not point.sample_count:
        return False
    top = point.samples_frame()["turn_index"].max()
    return isinstance(top, int) and top > 0


def report_meta(file: SourceFile, doc: Mapping[str, Any], benchmarks: list[Any]) -> dict[str, Any]:
    """Sweep meta the report states: model, nominal ISL/OSL of synthetic data, date, name."""
    first = benchmarks[0] if isinstance(benchmarks[0], Mapping) else {}
    config = obj(doc.get("config"))
    spec = obj(config.get("spec"))
    args = obj(doc.get("args"))
    model = (
        dig(spec, "backend", "model")
        or args.get("model")
        or dig(first, "config", "backend", "model")
        or dig(first, "worker", "backend_model")
    )
    meta: dict[str, Any] = {"source_tool": "guidellm"}
    if model:
        meta["model"] = str(model)
    data = spec.get("data") or args.get("data") or dig(first, "request_loader", "data")
    meta.update(synthetic_lengths(data))
    start = first.get("start_time") or dig(first, "run_stats", "start_time")
    when = number(start, file.name, "benchmarks[0].start_time") if start is not None else None
    if when:
        meta["measured_at"] = dt.datetime.fromtimestamp(when, tz=dt.UTC).date()
    meta["sweep"] = sweep_name(model, file.basename.rsplit(".", 1)[0])
    return meta


IMPORTER = GuidellmImporter()
