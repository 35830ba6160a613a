"""The multi-block CSV that NVIDIA GenAI-Perf and AIPerf write next to their JSON export.

Both write blocks separated by blank rows (read from the writers' source):

* GenAI-Perf (`genai_perf/export_data/csv_exporter.py`, triton-inference-server/perf_analyzer):
  `Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1` (older versions stop at p25),
  row labels `metric.replace("_", " ").title()` plus ` (unit)` (older versions drop the unit for
  token counts), numbers `f"{v:,.2f}"` WITH thousands separators ("1,524.63", quoted by the csv
  writer), missing statistics `N/A`; then `Metric,Value` (system metrics, newer versions also with
  separators); then optional GPU telemetry blocks `Metric,GPU,avg,...` and `Metric,GPU,Value`.
* AIPerf (`aiperf/exporters/csv_exporter.py`, ai-dynamo/aiperf): `Metric,avg,min,max,p1,p5,p10,p25,
  p50,p75,p90,p95,p99,std` (ascending), row label = the metric's `header` ("Time to First Token")
  plus ` (unit)` except for the units count/requests, numbers `f"{v:.2f}"` (no separators), missing
  values empty; then `Metric,Value`; then GPU telemetry sections (`=== GPU Telemetry: ... ===`, per
  metric a `GPU Index,GPU Name,...` table, or one `Endpoint,GPU_Index,...` table in newer versions).

`read_blocks` turns either into `{metric_key: {"unit": ..., "avg": ..., "p50": ...}}`, the same
shape as the JSON exports, so one mapping serves both; telemetry and unknown rows are kept raw.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.ingest.common import json_safe, refuse_duplicate_columns
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._genai_common import (
    Built,
    Run,
    common_values,
    folder_load,
    other_percentiles,
    run_label,
)

MISSING_CELLS = ("", "N/A", "NA", "n/a", "None", "null")
_LABEL = re.compile(r"^(?P<name>.*?)\s*\((?P<unit>[^()]*)\)\s*$")
# Labels whose normalised form is not the metric's tag.
_ALIASES = {
    "time_to_first_output": "time_to_first_output_token",
    "total_input_sequence_length": "total_isl",
    "total_output_sequence_length": "total_osl",
}


@dataclass
class CsvExport:
    """What a GenAI-Perf / AIPerf CSV holds, in the JSON export's shape."""

    stats: dict[str, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # metric key -> row label in the file
    telemetry: list[list[str]] = field(default_factory=list)  # raw rows, header rows included
    other: list[list[str]] = field(default_factory=list)  # rows of blocks we do not know


def csv_kind(file: SourceFile) -> str | None:
    """'genai-perf' or 'aiperf' from the first header row; None for anything else (never raises)."""
    head = file.head(SNIFF_BYTES)
    if not head.startswith((b"Metric,", b'"Metric",')):
        return None
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    header = [c.strip().strip('"') for c in first.split(",")]
    if header[1:4] != ["avg", "min", "max"] or len(header) < 5:
        return None
    if header[4] == "p99":
        return "genai-perf"
    if header[4] in ("p1", "p5", "p10", "p25", "p50") or "std" in header:
        return "aiperf"
    return None


def metric_key(label: str) -> tuple[str, str | None]:
    """('time_to_first_token', 'ms') from 'Time To First Token (ms)'."""
    match = _LABEL.match(label.strip())
    name, unit = (match["name"], match["unit"].strip()) if match else (label.strip(), None)
    key = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return _ALIASES.get(key, key), unit


def read_blocks(file: SourceFile) -> CsvExport:
    """Parse every block; a cell that is neither a number nor empty/N/A is an error."""
    try:
        rows = list(csv.reader(io.StringIO(file.text)))
    except csv.Error as exc:
        raise IngestError.one(file.name, f"not a readable CSV ({exc})") from exc
    out = CsvExport()
    header: list[str] | None = None
    for line, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            header = None
            continue
        if header is None:
            header = cells
            refuse_duplicate_columns(file.name, header, line)
            if _block_kind(header) in ("telemetry", "other"):
                _keep(out, header, cells)
            continue
        kind = _block_kind(header)
        if kind == "stats":
            _stats_row(out, file.name, line, header, cells)
        elif kind == "values":
            _value_row(out, file.name, line, cells)
        else:
            _keep(out, header, cells)
    return out


def _block_kind(header: list[str]) -> str:
    if header[:1] == ["Metric"] and header[1:4] == ["avg", "min", "max"]:
        return "stats"
    if header == ["Metric", "Value"]:
        return "values"
    joined = " ".join(header)
    if "GPU" in joined or joined.startswith("==="):
        return "telemetry"
    return "other"


def _keep(out: CsvExport, header: list[str], cells: list[str]) -> None:
    target = out.telemetry if _block_kind(header) == "telemetry" else out.other
    target.append(cells)


def _cell(file: str, line: int, label: str, stat: str, cell: str) -> float | None:
    if cell in MISSING_CELLS:
        return None
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        raise IngestError.one(
            file, f"key {label!r}, {stat}: expected a number, got {cell!r}", row=line, column=stat
        ) from None


def _stats_row(out: CsvExport, file: str, line: int, header: list[str], cells: list[str]) -> None:
    label = cells[0]
    key, unit = metric_key(label)
    if len(cells) != len(header):
        raise IngestError.one(
            file,
            f"key {label!r}: {len(cells)} cells, but the header has {len(header)}",
            row=line,
        )
    entry: dict[str, Any] = {"unit": unit}
    for stat, cell in zip(header[1:], cells[1:], strict=True):
        entry[stat] = _cell(file, line, label, stat, cell)
    out.stats[key] = entry
    out.labels[key] = label


def _value_row(out: CsvExport, file: str, line: int, cells: list[str]) -> None:
    label = cells[0]
    key, unit = metric_key(label)
    if len(cells) != 2:
        raise IngestError.one(
            file, f"key {label!r}: expected 2 cells (Metric,Value), got {len(cells)}", row=line
        )
    out.stats[key] = {"unit": unit, "avg": _cell(file, line, label, "Value", cells[1])}
    out.labels[key] = label


def csv_built(
    file: SourceFile,
    source_tool: str,
    stems: tuple[str, ...],
    more: Callable[[Mapping[str, Any], str, dict[str, Any], dict[str, Any]], None],
) -> Built:
    """One point from a CSV export; `more` adds the tool's own values (goodput, duration, ...).

    The CSV holds no configuration: the load level is read from the artifact directory name
    (`...-concurrency8`, `...-request_rate2.5`) when there is one, the model is left to the form.
    """
    export = read_blocks(file)
    if "output_token_throughput" not in export.stats:
        raise IngestError.one(
            file.name,
            "required row 'Output Token Throughput (tokens/sec)' (key 'output_token_throughput') "
            "is missing from the Metric,Value block",
        )
    values = common_values(export.stats, file.name)
    notes: list[str] = []
    load = folder_load(file.folder)
    if load is not None:
        values[load[0]] = load[1]
        notes.append(f"{load[0]} read from the artifact directory name {file.folder!r}")
    else:
        notes.append("the CSV states no load level (no input_config, no artifact directory)")
    extra: dict[str, Any] = {
        "metrics": export.stats,
        "row_labels": export.labels,
        **other_percentiles(export.stats, file.name),  # p75: answers before samples
    }
    if export.telemetry:
        extra["telemetry_rows"] = export.telemetry
    if export.other:
        extra["other_rows"] = export.other
    more(export.stats, file.name, values, extra)
    extra["import_notes"] = notes + extra.get("import_notes", [])
    run = Run(file, "csv", export.stats, {}, json_safe(extra))
    label = run_label(file, stems)
    point = ParsedPoint(values=values, extra=run.extra)
    return Built(run, point, {"source_tool": source_tool}, label, (None, None, None, label))
