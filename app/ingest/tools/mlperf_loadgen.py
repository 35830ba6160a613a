"""MLPerf Inference LoadGen `mlperf_log_summary.txt` → one point per file (LLM benchmarks).

The summary is text, `key : value` lines in three sections (checked against real files of
mlcommons/inference_results_v4.1, tests/fixtures/mlperf/SOURCES.md):

* "MLPerf Results Summary": `Scenario` (Server, Interactive, Offline), `Mode`, the throughput
  (`Completed samples per second` / `Completed tokens per second` in Server and Interactive,
  `Samples per second` / `Tokens per second` in Offline), `Result is : VALID|INVALID` and the
  indented constraint lines under it (`Performance constraints satisfied : Yes`, …).
* "Additional Stats": request latency (`Mean latency (ns)`, `50.00 percentile latency (ns)`),
  first-token latency (`… first token latency (ns)`) and time per output token (`… time to
  output token (ns)`), all in NANOSECONDS → ms. 99.90 percentiles stay in extra as p99.9.
* "Test Parameters Used": `target_qps` (the offered Poisson rate in Server and Interactive →
  request_rate; Offline sends everything at once → rate inf), and the scenario's constraints
  `ttft_latency (ns)` / `tpot_latency (ns)`: the run's stated SLO, kept as `goodput_slo`
  ("p99 ttft:2000 tpot:200": LoadGen judges the 99th percentiles).

The verdict is kept as the point's `harness_result` (VALID / INVALID) with the constraint lines:
an INVALID point never meets an SLO (app.domain.checks), whatever its percentiles say.

The summary names neither the accelerator nor its count: those sit in the submission's
`systems/<system>.json` (`accelerator_model_name`, `accelerators_per_node` × `number_of_nodes`),
which this importer also claims. Uploaded with the submission's layout,
`results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_summary.txt`, a summary
takes its hardware, GPU count and framework from its system's file and its model from the
benchmark folder; alone, they come from the upload form. MLPerf's own figure is completed tokens
per second of the whole system; Paretoscope divides by the GPUs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile

TOOL = "MLPerf LoadGen"
HARNESS = "MLPerf Inference LoadGen"
MARK = b"MLPerf Results Summary"
MAX_LINES = 2000  # a real summary has about 80 lines
SCENARIOS = ("Server", "Interactive", "Offline", "SingleStream", "MultiStream")
_LINE = re.compile(r"^(\s*)([^:]{1,120}?)\s*:\s*(.*)$")
_PERCENTILE = re.compile(
    r"^(\d{1,2}\.\d{2}) percentile (latency|first token latency|time to output token) \(ns\)$"
)
_MEAN = {
    "Mean latency (ns)": "e2el",
    "Mean First Token latency (ns)": "ttft",
    "Mean Time to Output Token (ns)": "tpot",
}
_METRIC = {"latency": "e2el", "first token latency": "ttft", "time to output token": "tpot"}
_COLUMN_PERCENTILES = {"50.00": "p50", "90.00": "p90", "95.00": "p95", "99.00": "p99"}
_THROUGHPUT = {
    "Completed tokens per second": "output_tok_s",
    "Tokens per second": "output_tok_s",
    "Completed samples per second": "requests_per_s",
    "Samples per second": "requests_per_s",
}
NS_PER_MS = 1e6


class LoadGenSummaryImporter:
    name = "MLPerf LoadGen summary"
    priority = 12

    def sniff(self, file: SourceFile) -> bool:
        head = file.head(4096)
        if head[:1] == b"{":  # a system description, not a round's table of results
            return all(key in head for key in SYSTEM_KEYS) and b'"Scenario"' not in head
        return head[:1] == b"=" and MARK in head

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        systems = {f.basename.removesuffix(".json"): _system(f) for f in files if f.head(1) == b"{"}
        summaries = [f for f in files if f.head(1) != b"{"]
        if not summaries:
            raise IngestError.one(
                files[0].name,
                "an MLPerf system description without a LoadGen summary: upload it with the "
                "submission's results/<system>/…/mlperf_log_summary.txt",
            )
        return [_sweep(file, systems) for file in summaries]


SYSTEM_KEYS = (b'"accelerators_per_node"', b'"accelerator_model_name"', b'"number_of_nodes"')


def _system(file: SourceFile) -> dict[str, Any]:
    """The system's hardware, GPU count and framework from systems/<system>.json."""
    doc = file.json()
    if file.json_error is not None or not isinstance(doc, dict):
        raise IngestError.one(file.name, "not a JSON object: expected an MLPerf system description")
    count = 1
    for key in ("accelerators_per_node", "number_of_nodes"):
        value = doc.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise IngestError.one(file.name, f"key '{key}': expected a whole number above 0")
        count *= value
    system: dict[str, Any] = {
        "hardware": str(doc.get("accelerator_model_name") or "") or None,
        "num_gpus": count,
        "system_name": doc.get("system_name"),
        "framework": doc.get("framework"),
    }
    return system


def _place(name: str) -> tuple[str | None, str | None]:
    """(system, benchmark) from results/<system>/<benchmark>/<scenario>/performance/run_N/…."""
    parts = name.split("/")
    if "results" not in parts:
        return None, None
    at = len(parts) - 1 - parts[::-1].index("results")
    rest = parts[at + 1 :]
    return (rest[0] if len(rest) > 2 else None), (rest[1] if len(rest) > 3 else None)


def read_summary(file: SourceFile) -> tuple[dict[str, str], dict[str, str]]:
    """(every `key : value` line, the indented constraint lines under `Result is`)."""
    lines = file.text.splitlines()
    if len(lines) > MAX_LINES:
        raise IngestError.one(file.name, f"more than {MAX_LINES} lines: not a LoadGen summary")
    fields: dict[str, str] = {}
    constraints: dict[str, str] = {}
    for line in lines:
        match = _LINE.match(line)
        if not match or line.lstrip().startswith("*"):
            continue
        indent, key, value = match.groups()
        key = key.strip()
        if indent and key.endswith("satisfied"):
            constraints[key] = value.strip()
        else:
            fields.setdefault(key, value.strip())
    return fields, constraints


def _number(file: str, fields: Mapping[str, str], key: str) -> float | None:
    raw = fields.get(key)
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        raise IngestError.one(file, f"line '{key}': expected a number, got {raw[:40]!r}") from None
    if not math.isfinite(value) or value < 0:
        raise IngestError.one(file, f"line '{key}': expected a number ≥ 0, got {raw[:40]!r}")
    return value


def _point(file: SourceFile) -> tuple[ParsedPoint, str, str | None]:
    fields, constraints = read_summary(file)
    scenario = fields.get("Scenario")
    if scenario not in SCENARIOS:
        raise IngestError.one(
            file.name, f"line 'Scenario': expected one of {', '.join(SCENARIOS)}, got {scenario!r}"
        )
    result = fields.get("Result is")
    if result not in ("VALID", "INVALID"):
        raise IngestError.one(
            file.name, f"line 'Result is': expected VALID or INVALID, got {result!r}"
        )
    values: dict[str, Any] = {}
    for key, column in _THROUGHPUT.items():
        value = _number(file.name, fields, key)
        if value is not None and column not in values:
            values[column] = value
    if "output_tok_s" not in values:
        raise IngestError.one(
            file.name,
            "no 'Completed tokens per second' (or Offline 'Tokens per second') line: "
            "not an LLM benchmark's summary",
        )
    extra: dict[str, Any] = {
        "harness_result": result,
        "harness_constraints": constraints,
        "mlperf_scenario": scenario,
        "mlperf_mode": fields.get("Mode"),
        "sut_name": fields.get("SUT name"),
    }
    for key in fields:
        mean_metric = _MEAN.get(key)
        if mean_metric is not None:
            values[f"{mean_metric}_mean_ms"] = (_number(file.name, fields, key) or 0) / NS_PER_MS
            continue
        match = _PERCENTILE.match(key)
        if match is None:
            continue
        ms = (_number(file.name, fields, key) or 0) / NS_PER_MS
        metric, level = _METRIC[match.group(2)], match.group(1)
        stat = _COLUMN_PERCENTILES.get(level)
        if stat is not None:
            values[f"{metric}_{stat}_ms"] = ms
        else:  # 97.00 and 99.90: stored statistics a read-off may ask for
            extra[f"{metric}_p{float(level):g}_ms"] = ms
    target = _number(file.name, fields, "target_qps")
    if target is not None:
        extra["target_qps"] = target
    values["request_rate"] = math.inf if scenario == "Offline" else target
    ttft = _number(file.name, fields, "ttft_latency (ns)")
    tpot = _number(file.name, fields, "tpot_latency (ns)")
    slo = None
    if scenario != "Offline" and ttft and tpot:
        slo = f"p99 ttft:{ttft / NS_PER_MS:g} tpot:{tpot / NS_PER_MS:g}"
        values["goodput_slo"] = slo
    point = ParsedPoint({k: v for k, v in values.items() if v is not None}, extra=extra)
    return point, scenario, slo


def _sweep(file: SourceFile, systems: Mapping[str, dict[str, Any]]) -> ParsedSweep:
    point, scenario, slo = _point(file)
    result = point.extra["harness_result"]
    system_key, benchmark = _place(file.name)
    system = systems.get(system_key or "")
    where = (
        f"{benchmark} · {system_key}" if benchmark and system_key else file.folder or file.basename
    )
    meta: dict[str, Any] = {
        "sweep": f"MLPerf {scenario} · {where} · {result}",
        "model": benchmark,
        "source_tool": TOOL,
        "source_kind": "public",
        "harness": HARNESS,
        "provenance": "independent",
        # A scenario is its own configuration (its own load pattern and constraints): Server
        # and Offline summaries of one system never join into one sweep.
        "config": f"scenario={scenario}",
    }
    if system is not None:
        meta["hardware"] = system["hardware"]
        meta["num_gpus"] = system["num_gpus"]
        meta["notes"] = f"{system['system_name']} · {system['framework']}"
    meta = {k: v for k, v in meta.items() if v is not None}
    warnings = []
    if result == "INVALID":
        failed = [k for k, v in point.extra["harness_constraints"].items() if v.upper() != "YES"]
        warnings.append(
            "LoadGen ruled this run INVALID"
            + (f" ({', '.join(failed)}: NO)" if failed else "")
            + ": it is kept, shown as INVALID and never counts as meeting an SLO"
        )
    if slo:
        warnings.append(f"the {scenario} scenario's stated SLO: {slo} ms")
    return ParsedSweep(
        meta, [point], file.name, f"MLPerf LoadGen summary ({scenario})", warnings=warnings
    )


IMPORTER = LoadGenSummaryImporter()
