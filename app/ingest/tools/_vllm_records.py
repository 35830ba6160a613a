"""Reading vLLM result files into records: one JSON object, JSONL, a JSON list, or a CSV.

- `vllm bench serve --save-result`: one JSON object (`{label}-{rate}qps-...json`; the sweep tool's
  `run=N.json` is the same object with `run_number` and the override keys merged in, indent=4).
- `--append-result`: further objects appended to the same file, one per line (JSONL).
- `vllm bench sweep serve`: `summary.json` (a JSON list of the run dicts of one combination) and
  `summary.csv` (`pandas.DataFrame.to_csv` of every run: an unnamed index column first, None/NaN
  as empty cells, lists and dicts as their Python repr, integer columns with gaps as floats).
"""

from __future__ import annotations

import ast
import csv
import io
import re
from typing import Any

from app.ingest.common import refuse_duplicate_columns
from app.ingest.errors import IngestError
from app.ingest.json_lines import json_lines_or_none
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._vllm_common import Record

FMT_SERVE = "vLLM bench serve result JSON"
FMT_LEGACY = "vLLM benchmark_serving.py result JSON (legacy schema, as InferenceX writes it)"
FMT_APPEND = "vLLM bench serve --append-result JSONL"
FMT_RUN = "vLLM bench sweep run=N.json"
FMT_SUMMARY_JSON = "vLLM bench sweep summary.json"
FMT_SUMMARY_CSV = "vLLM bench sweep summary.csv"

_INT = re.compile(r"^[+-]?\d+$")


def is_csv_summary(file: SourceFile) -> bool:
    first = file.head(SNIFF_BYTES, lstrip=False).split(b"\n", 1)[0]
    return (
        first.startswith(b",")
        and b"model_id" in first
        and b"completed" in first
        and b"request_throughput" in first
    )


def read_records(file: SourceFile) -> list[Record]:
    if is_csv_summary(file):
        return _csv_records(file)
    document = file.json()
    if file.json_error is not None:
        lines = _json_lines(file)
        if lines is None:
            raise IngestError.one(file.name, f"not valid JSON ({file.json_error})")
        return lines
    if isinstance(document, dict):
        return [Record(document, file.name, None, _object_format(document))]
    if isinstance(document, list):
        out = []
        for i, item in enumerate(document, start=1):
            if not isinstance(item, dict):
                kind = type(item).__name__
                raise IngestError.one(file.name, f"item {i}: expected a JSON object, got {kind}")
            out.append(Record(item, file.name, i, FMT_SUMMARY_JSON))
        return out
    raise IngestError.one(file.name, "expected a JSON object or a list of objects")


def _object_format(data: dict[str, Any]) -> str:
    if "run_number" in data:
        return FMT_RUN
    if "endpoint_type" not in data or "request_goodput:" in data:
        return FMT_LEGACY
    return FMT_SERVE


def _json_lines(file: SourceFile) -> list[Record] | None:
    """JSONL records with their line numbers, or None when the file is not JSONL at all."""
    lines = json_lines_or_none(file.text, file.name)
    if lines is None:
        return None
    return [Record(item, file.name, lineno, FMT_APPEND) for lineno, item in lines]


def _csv_records(file: SourceFile) -> list[Record]:
    rows = list(csv.reader(io.StringIO(file.text)))
    header = rows[0]
    refuse_duplicate_columns(file.name, header)
    names = header[1:]  # the first column is pandas' unnamed index
    out = []
    for lineno, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise IngestError.one(
                file.name, f"{len(row)} cells, but the header has {len(header)}", row=lineno
            )
        data = {name: _cell(cell) for name, cell in zip(names, row[1:], strict=True)}
        out.append(Record(data, file.name, lineno, FMT_SUMMARY_CSV))
    if not out:
        raise IngestError.one(file.name, "the summary CSV has no rows", row=1)
    return out


def _cell(cell: str) -> Any:
    """A pandas CSV cell back to a Python value (numbers stay strings for the typed reads)."""
    if cell == "":
        return None
    if cell in ("True", "False"):
        return cell == "True"
    if _INT.match(cell):
        return int(cell)
    if cell[:1] in ("[", "{"):
        try:
            return ast.literal_eval(cell)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return cell
    try:
        return float(cell)
    except ValueError:
        return cell


def dedupe(records: list[Record]) -> list[Record]:
    """One run reached through several files (run=N.json, summary.json, summary.csv of the same
    experiment) is kept once, the first seen: a run is its date, duration, count and run number."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for rec in records:
        d = rec.data
        key = (
            str(d.get("date")),
            _norm(d.get("duration")),
            _norm(d.get("completed")),
            _norm(d.get("run_number")),
            str(d.get("model_id")),
        )
        if key in seen:
            continue
        seen.add(key)
        out.append(rec)
    return out


def _norm(value: Any) -> Any:
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def read_order(file: SourceFile) -> int:
    """Single-run JSON first, then JSONL and lists, CSV last: the typed sources win a dedupe."""
    if is_csv_summary(file):
        return 2
    return 0 if file.head()[:1] == b"{" else 1
