"""guidellm `benchmarks.csv` (0.4+ writer, `benchmark/outputs/csv.py`) → one sweep.

The file has a 3-row header: row 1 the group (`Run Info`, `Benchmark`, `Timings`,
`Request Counts`, `Time to First Token`, …), row 2 the field or `<Status> <units>`
(`Successful ms`, `Successful Sec`, …), row 3 the statistic (`Mean`, `Median`, `Std Dev`,
`Percentiles`). `Percentiles` is one string `[min, p001, p01, p05, p10, p25, p75, p90, p95,
p99, max]`. The load level is not a column of its own: it comes from `Benchmark/Strategy`
plus the JSON in `Run Info/Profile` indexed by `Run Info/Run Index` (rate or streams list;
a sweep profile's interpolated rates only when the profile lists `measured_rates`).
Every column without a canonical home is kept in `extra` under "group / field / stat".
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
from collections.abc import Mapping
from typing import Any

from app.ingest.common import dig, obj, refuse_duplicate_columns
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.safe_load import loads_json
from app.ingest.source import SourceFile
from app.ingest.tools._guidellm_benchmark import (
    TPOT_NOTE,
    load_rank,
    sweep_name,
    synthetic_lengths,
)

Label = tuple[str, str, str]
# (group, units) → canonical latency metric and scale to ms.
LATENCIES: dict[tuple[str, str], tuple[str, float]] = {
    ("Time to First Token", "ms"): ("ttft", 1.0),
    ("Inter Token Latency", "ms"): ("tpot", 1.0),
    ("Request Latency", "Sec"): ("e2el", 1000.0),
    ("Time per Output Token", "ms"): ("time_per_output_token", 1.0),  # extra only
}
MEANS: dict[tuple[str, str], str] = {
    ("Server Throughput", "Requests/Sec"): "requests_per_s",
    ("Server Throughput", "Concurrency"): "achieved_concurrency",
    ("Token Metrics", "Input Tokens"): "input_len",
    ("Token Metrics", "Output Tokens"): "output_len",
    ("Token Throughput", "Output Tokens/Sec"): "output_tok_s",
    ("Token Throughput", "Total Tokens/Sec"): "total_tok_s",
}
PERCENTILES = ("min", "p0.1", "p1", "p5", "p10", "p25", "p75", "p90", "p95", "p99", "max")
STRATEGY: Label = ("Benchmark", "Strategy", "")


def is_guidellm_csv(head: bytes) -> bool:
    first = head.split(b"\n", 1)[0]
    return first.startswith((b"Run Info,", b'"Run Info",')) and b"Benchmark" in first


class _Row:
    """One benchmark row with typed, error-naming accessors."""

    def __init__(self, file: str, line: int, cells: list[str], index: dict[Label, int]):
        self.file, self.line, self.cells, self.index = file, line, cells, index
        self.used: set[Label] = set()

    def text(self, label: Label) -> str | None:
        self.used.add(label)
        i = self.index.get(label)
        if i is None or i >= len(self.cells) or not self.cells[i].strip():
            return None
        return self.cells[i].strip()

    def number(self, label: Label) -> float | None:
        raw = self.text(label)
        if raw is None:
            return None
        try:
            value = float(raw)
        except ValueError:
            raise self.error(label, f"{raw!r} is not a number") from None
        if math.isnan(value):
            raise self.error(label, "NaN is not a number")
        return value

    def json(self, label: Label) -> Any:
        raw = self.text(label)
        if raw is None:
            return None
        try:
            return loads_json(raw, self.file, self.line)
        except json.JSONDecodeError:
            raise self.error(label, "not valid JSON") from None

    def percentiles(self, label: Label) -> dict[str, float]:
        raw = self.text(label)
        if raw is None:
            return {}
        parts = raw.strip("[] ").split(",")
        try:
            numbers = [float(p) for p in parts]
        except ValueError:
            raise self.error(label, f"{raw!r} is not a list of numbers") from None
        if len(numbers) != len(PERCENTILES):
            raise self.error(label, f"expected {len(PERCENTILES)} values, got {len(numbers)}")
        return dict(zip(PERCENTILES, numbers, strict=True))

    def error(self, label: Label, message: str) -> IngestError:
        column = " / ".join(p for p in label if p)
        return IngestError.one(self.file, message, row=self.line, column=column)


def parse_csv(file: SourceFile) -> ParsedSweep:
    rows = list(csv.reader(io.StringIO(file.text)))
    if len(rows) < 4:
        raise IngestError.one(
            file.name, "a guidellm CSV needs its 3 header rows and at least one benchmark row"
        )
    width = len(rows[0])
    labels: list[Label] = [
        (rows[0][i].strip(), _cell(rows[1], i), _cell(rows[2], i)) for i in range(width)
    ]
    refuse_duplicate_columns(file.name, [" / ".join(p for p in label if p) for label in labels])
    index = {label: i for i, label in reversed(list(enumerate(labels)))}
    if STRATEGY not in index:
        raise IngestError.one(file.name, "required column 'Benchmark / Strategy' is missing", 2)
    keyed: list[tuple[tuple[int, float], ParsedPoint]] = []
    first: _Row | None = None
    for line, cells in enumerate(rows[3:], start=4):
        if not any(c.strip() for c in cells):
            continue
        row = _Row(file.name, line, cells, index)
        first = first or row
        point, strategy = _point(row, labels)
        keyed.append((load_rank(point.values, strategy), point))
    if first is None:
        raise IngestError.one(file.name, "the CSV holds no benchmark rows")
    points = [p for _, p in sorted(keyed, key=lambda kp: kp[0])]
    metadata = first.json(("Runtime Info", "Metadata", "")) or {}
    version = metadata.get("guidellm_version") if isinstance(metadata, Mapping) else None
    tool = f"guidellm {version}" if version else "guidellm (0.4+ CSV)"
    return ParsedSweep(_meta(file, first), points, file.name, f"{tool} benchmarks.csv")


def _cell(row: list[str], i: int) -> str:
    return row[i].strip() if i < len(row) else ""


def _point(row: _Row, labels: list[Label]) -> tuple[ParsedPoint, str | None]:
    strategy = row.text(STRATEGY)
    if strategy is None:
        raise row.error(STRATEGY, "required value is empty")
    values: dict[str, Any] = _load(row, strategy)
    extra: dict[str, Any] = {"tpot_source": TPOT_NOTE}
    for (group, units), (metric, scale) in LATENCIES.items():
        field = f"Successful {units}"
        target = values if metric != "time_per_output_token" else extra
        mean = row.number((group, field, "Mean"))
        if mean is not None:
            target[f"{metric}_mean_ms"] = mean * scale
        median = row.number((group, field, "Median"))
        if median is not None:
            target[f"{metric}_p50_ms"] = median * scale
        std = row.number((group, field, "Std Dev"))
        if std is not None:
            extra[f"{metric}_std_dev_ms"] = std * scale
        for name, pct in row.percentiles((group, field, "Percentiles")).items():
            home = target if name in ("p90", "p95", "p99") else extra
            home[f"{metric}_{name}_ms"] = pct * scale
    for (group, units), column in MEANS.items():
        value = row.number((group, f"Successful {units}", "Mean"))
        if value is not None:
            values[column] = value
    for status, column in (("Successful", "num_requests"), ("Errored", "num_failed")):
        count = row.number(("Request Counts", status, ""))
        if count is not None:
            values[column] = int(count)
    duration = row.number(("Timings", "Duration", "Sec"))
    if duration is not None:
        values["duration_s"] = duration
    for i, label in enumerate(labels):
        if label not in row.used and i < len(row.cells) and row.cells[i].strip():
            extra[" / ".join(p for p in label if p)] = _plain(row.cells[i].strip())
    return ParsedPoint(values=values, row=row.line, extra=extra), strategy


def _load(row: _Row, strategy: str) -> dict[str, Any]:
    """Load level from the strategy type and the profile's per-strategy list."""
    if strategy == "synchronous":
        return {"concurrency": 1.0}
    if strategy == "throughput":
        return {"request_rate": math.inf}
    profile = row.json(("Run Info", "Profile", ""))
    profile = profile if isinstance(profile, Mapping) else {}
    run_index = int(row.number(("Run Info", "Run Index", "")) or 0)
    if strategy == "concurrent":
        value = _pick(profile.get("streams"), run_index)
        return {"concurrency": value} if value is not None else {}
    if strategy in ("constant", "poisson"):
        if (profile.get("kind") or profile.get("type_")) == "sweep":
            value = _pick(profile.get("measured_rates"), run_index - 2)
        else:
            value = _pick(profile.get("rate"), run_index)
        return {"request_rate": value} if value is not None else {}
    return {}


def _pick(values: Any, i: int) -> float | None:
    if isinstance(values, list) and 0 <= i < len(values):
        values = values[i]
    if isinstance(values, int | float) and not isinstance(values, bool) and values > 0:
        return float(values)
    return None


def _plain(raw: str) -> Any:
    """A cell as a number, a parsed JSON object/list, or the string itself."""
    if raw[:1] in ("{", "["):
        try:
            return loads_json(raw, "(cell)")
        except (json.JSONDecodeError, IngestError):
            return raw  # kept as text (a cell too deep or too long to be worth parsing)
    try:
        value = float(raw)
    except ValueError:
        return raw
    return value if math.isfinite(value) else raw


def _meta(file: SourceFile, row: _Row) -> dict[str, Any]:
    backend = row.json(("Run Info", "Backend", ""))
    args = obj(row.json(("Runtime Info", "Arguments", "")))
    spec = obj(args.get("spec")) or args
    model = dig(backend, "model") or spec.get("model") or dig(spec, "backend", "model")
    meta: dict[str, Any] = {"source_tool": "guidellm"}
    if model:
        meta["model"] = str(model)
    meta.update(synthetic_lengths(spec.get("data")))
    start = row.text(("Timings", "Start Time", ""))
    if start:
        try:
            meta["measured_at"] = dt.datetime.strptime(start, "%Y-%m-%d %H:%M:%S").date()
        except ValueError:
            pass
    meta["sweep"] = sweep_name(model, file.basename.rsplit(".", 1)[0])
    return meta
