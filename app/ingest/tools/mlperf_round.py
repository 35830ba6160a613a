"""An MLPerf Inference round's results table → a point per system, benchmark and scenario.

Two shapes of the same table are read (tests/fixtures/mlperf/SOURCES.md):

* `summary_results.json` (mlcommons/inference_results_v4.1 and earlier): a JSON list of rows
  with `Submitter`, `Platform`, `Model`, `Scenario`, `Accelerator`, `a#` (accelerators of the
  system), `Nodes`, `Software`, `version`, `has_power`, `Performance_Result` and
  `Performance_Units`;
* `summary.json` (v6.x): an object of rows keyed "0", "1", … with `Organization`, `Platform`,
  `Model`, `Scenario`, `accelerator_model_name`, `total_accelerators`, `framework`, `Result`
  and `Units`.

Only rows whose unit is tokens per second are LLM throughputs: each becomes one point with
output_tok_s = the result (the whole system's completed tokens per second; Paretoscope divides
by the accelerators). Rows in other units (samples/s, queries/s, latency) are skipped and
counted in a warning. A row publishes no latency percentiles: the point has no interactivity
axis, and is judged only on what a read-off can check (unknown otherwise). Published results
are VALID by rule (the submission checker refuses others): `harness_result` is VALID.
Power: `Power_Result` (W) when `has_power` is true is kept in extra as the system's measured
power (unverified key: see SOURCES.md).

Rows of one system, benchmark and scenario form one sweep (the table repeats a result under
two accuracy targets, llama2-70b-99 and -99.9, which stay two sweeps).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.ingest.common import json_safe
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile

TOOL = "MLPerf results table"
HARNESS = "MLPerf Inference LoadGen"
# (result, unit, accelerator, count, submitter, software) keys of the two shapes
_SHAPES = (
    ("Performance_Result", "Performance_Units", "Accelerator", "a#", "Submitter", "Software"),
    (
        "Result",
        "Units",
        "accelerator_model_name",
        "total_accelerators",
        "Organization",
        "framework",
    ),
)
_TOKENS = "tokens/s"


class RoundTableImporter:
    name = "MLPerf round results table"
    priority = 12

    def sniff(self, file: SourceFile) -> bool:
        head = file.head(8192)
        if head[:1] not in (b"[", b"{"):
            return False
        return (b'"Performance_Result"' in head and b'"a#"' in head) or (
            b'"total_accelerators"' in head and b'"MlperfModel"' in head
        )

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        sweeps: list[ParsedSweep] = []
        for file in files:
            sweeps.extend(_sweeps(file))
        return sweeps


def _rows(file: SourceFile) -> list[tuple[str, Mapping[str, Any]]]:
    document = file.json()
    if file.json_error is not None:
        raise IngestError.one(file.name, f"not valid JSON ({file.json_error})")
    if isinstance(document, list):
        items = [(str(i), row) for i, row in enumerate(document, start=1)]
    elif isinstance(document, dict):
        items = [(str(k), row) for k, row in document.items()]
    else:
        raise IngestError.one(file.name, "expected a list or an object of result rows")
    for where, row in items:
        if not isinstance(row, dict):
            raise IngestError.one(file.name, f"row {where}: expected a JSON object")
    return items


def _shape(row: Mapping[str, Any]) -> tuple[str, str, str, str, str, str]:
    return _SHAPES[0] if "Performance_Result" in row else _SHAPES[1]


def _sweeps(file: SourceFile) -> list[ParsedSweep]:
    out: list[ParsedSweep] = []
    skipped = 0
    for where, row in _rows(file):
        result_key, unit_key, accel_key, count_key, who_key, software_key = _shape(row)
        unit = str(row.get(unit_key) or "").strip().lower()
        if unit != _TOKENS:
            skipped += 1
            continue
        out.append(
            _sweep(file, where, row, result_key, accel_key, count_key, who_key, software_key)
        )
    if not out:
        raise IngestError.one(
            file.name, f"no row in tokens per second (of {skipped}): no LLM result to import"
        )
    if skipped:
        out[0].warnings.append(
            f"{skipped} rows in other units (samples/s, queries/s, latency) are not LLM "
            "throughputs and were skipped"
        )
    return out


def _field(file: str, where: str, row: Mapping[str, Any], key: str) -> float:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise IngestError.one(file, f"row {where}, key '{key}': expected a number, got {value!r}")
    if value <= 0:
        raise IngestError.one(file, f"row {where}, key '{key}': expected a number above 0")
    return float(value)


def _sweep(
    file: SourceFile,
    where: str,
    row: Mapping[str, Any],
    result_key: str,
    accel_key: str,
    count_key: str,
    who_key: str,
    software_key: str,
) -> ParsedSweep:
    result = _field(file.name, where, row, result_key)
    count = _field(file.name, where, row, count_key)
    if count != int(count):
        raise IngestError.one(file.name, f"row {where}, key '{count_key}': expected a whole number")
    scenario = str(row.get("Scenario") or "")
    values: dict[str, Any] = {"output_tok_s": result}
    # Offline is all requests at once; a Server row does not state the rate it was run at.
    if scenario == "Offline":
        values["request_rate"] = math.inf
    extra: dict[str, Any] = {k: json_safe(v) for k, v in row.items() if k != result_key}
    extra["harness_result"] = "VALID"
    extra["mlperf_scenario"] = scenario
    if row.get("has_power") is True and row.get("Power_Result") is not None:
        extra["system_power_w"] = _field(file.name, where, row, "Power_Result")
    model = str(row.get("Model") or row.get("MlperfModel") or "") or None
    version = str(row.get("version") or "") or None
    meta: dict[str, Any] = {
        "hardware": str(row.get(accel_key) or "") or None,
        "num_gpus": int(count),
        "model": model,
        "source_tool": TOOL,
        "source_kind": "public",
        "harness": HARNESS,
        "harness_version": version,
        "provenance": "independent",
        "notes": f"{row.get(who_key)} · {row.get(software_key)}",
    }
    meta = {k: v for k, v in meta.items() if v is not None}
    meta["sweep"] = " · ".join(
        str(p)
        for p in (
            model,
            f"MLPerf {version or ''} {scenario}".replace("  ", " "),
            row.get(who_key),
            row.get("Platform"),
        )
        if p
    )
    point = ParsedPoint(values, row=None, extra=extra)
    return ParsedSweep(meta, [point], file.name, "MLPerf round results table", first_row=None)


IMPORTER = RoundTableImporter()
