"""mlcommons/endpoints `result_summary.json` → one point per file.

What the endpoints client writes (checked against a real file of mlcommons/inference_results_v6.1,
tests/fixtures/mlperf/SOURCES.md): `n_samples_issued|completed|failed`, `duration_ns`, `state`,
and per metric (`ttft`, `tpot`, `latency` = E2EL, `output_sequence_lengths`) `total`, `min`,
`max`, `median`, `avg`, `std_dev`, `percentiles` {"99.9": …, "99.0": …, …} and `histogram`
{`buckets`: [[lower, upper], …], `counts`: [...]}, all latencies in NANOSECONDS. `qps` and
`tps` are the client's own request and output-token rates; with
`run_config.load_pattern.use_legacy_loadgen_qps_metrics` they divide by
`legacy_loadgen_window_duration_ns` (LoadGen's window), not by the run's `duration_ns`.

Mapping: percentiles ÷ 1e6 → ms columns (p50, p90, p95, p99; avg → mean; 99.9 and other
percentiles a read-off may ask for → extra), `tps` → output_tok_s and `qps` → requests_per_s
(the file's own figures win over a recomputation; app.domain.stated_figures shows both),
n_samples_completed → num_requests, n_samples_failed → num_failed, duration_ns → duration_s,
`output_sequence_lengths.avg` → output_len, the Poisson `target_qps` → request_rate (or
`target_concurrency` → concurrency). Each latency histogram is kept in extra as cumulative
counts per upper bound in ms (`<metric>_histogram_ms`), read like Prometheus buckets
(app.domain.prom_histogram): SLO attainment with bounds when a limit is not a bucket bound.
The file names no accelerator: hardware and GPU count come from the upload form.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.ingest.source import SourceFile

TOOL = "MLCommons endpoints"
HARNESS = "MLCommons endpoints"
METRICS = {"ttft": "ttft", "tpot": "tpot", "latency": "e2el"}
COLUMN_PERCENTILES = {50.0: "p50", 90.0: "p90", 95.0: "p95", 99.0: "p99"}
NS_PER_MS = 1e6
MAX_BUCKETS = 10_000


class EndpointsSummaryImporter:
    name = "MLCommons endpoints result_summary"
    priority = 12

    def sniff(self, file: SourceFile) -> bool:
        head = file.head(8192)
        return (
            head[:1] == b"{"
            and b'"n_samples_completed"' in head
            and b'"ttft"' in head
            and b'"percentiles"' in head
        )

    def parse(self, files: list[SourceFile], defaults: Mapping[str, Any]) -> list[ParsedSweep]:
        return [_sweep(file) for file in files]


def _num(file: str, value: Any, where: str, *, required: bool = False) -> float | None:
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise IngestError.one(file, f"key '{where}': expected a number, got {value!r}")
    if value < 0:
        raise IngestError.one(file, f"key '{where}': expected a number ≥ 0, got {value!r}")
    return float(value)


def _section(file: str, doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    section = doc.get(key)
    if not isinstance(section, dict):
        raise IngestError.one(file, f"key '{key}': expected an object of statistics")
    return section


def cumulative_histogram(
    file: str, section: Mapping[str, Any], where: str
) -> dict[str, list[float]]:
    """The [lower, upper] buckets and their counts as cumulative counts per upper bound in ms,
    the last bound +Inf (as Prometheus buckets are; app.domain.prom_histogram reads them)."""
    hist = section.get("histogram")
    if not isinstance(hist, dict):
        return {}
    buckets, counts = hist.get("buckets"), hist.get("counts")
    if not isinstance(buckets, list) or not isinstance(counts, list) or len(buckets) != len(counts):
        raise IngestError.one(file, f"key '{where}.histogram': buckets and counts differ in length")
    if len(buckets) > MAX_BUCKETS:
        raise IngestError.one(file, f"key '{where}.histogram': more than {MAX_BUCKETS} buckets")
    bounds: list[float] = []
    running: list[float] = []
    total = 0.0
    for i, (bucket, count) in enumerate(zip(buckets, counts, strict=True)):
        if not isinstance(bucket, list) or len(bucket) != 2:
            raise IngestError.one(
                file, f"key '{where}.histogram.buckets[{i}]': expected [lower, upper]"
            )
        upper = _num(file, bucket[1], f"{where}.histogram.buckets[{i}][1]", required=True)
        total += _num(file, count, f"{where}.histogram.counts[{i}]", required=True) or 0.0
        assert upper is not None
        if bounds and upper / NS_PER_MS <= bounds[-1]:
            raise IngestError.one(file, f"key '{where}.histogram.buckets[{i}]': bounds must rise")
        bounds.append(upper / NS_PER_MS)
        running.append(total)
    bounds.append(math.inf)
    running.append(total)
    return {"bounds_ms": bounds, "counts": running}


def _point(file: SourceFile) -> ParsedPoint:
    name = file.name
    doc = file.json()
    if file.json_error is not None:
        raise IngestError.one(name, f"not valid JSON ({file.json_error})")
    if not isinstance(doc, dict):
        raise IngestError.one(name, "expected a JSON object")
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    completed = _num(name, doc.get("n_samples_completed"), "n_samples_completed", required=True)
    values["num_requests"] = int(completed or 0)
    failed = _num(name, doc.get("n_samples_failed"), "n_samples_failed")
    if failed is not None:
        values["num_failed"] = int(failed)
    duration = _num(name, doc.get("duration_ns"), "duration_ns")
    if duration:
        values["duration_s"] = duration / 1e9
    for key, metric in METRICS.items():
        _read_metric(name, doc, key, metric, values, extra)
    lengths = doc.get("output_sequence_lengths")
    if isinstance(lengths, dict):
        values["output_len"] = _num(name, lengths.get("avg"), "output_sequence_lengths.avg")
        total = _num(name, lengths.get("total"), "output_sequence_lengths.total")
        if total is not None:
            extra["output_tokens_total"] = total
    values["output_tok_s"] = _num(name, doc.get("tps"), "tps", required=True)
    values["requests_per_s"] = _num(name, doc.get("qps"), "qps")
    window = _num(
        name, doc.get("legacy_loadgen_window_duration_ns"), "legacy_loadgen_window_duration_ns"
    )
    if window is not None:
        extra["legacy_loadgen_window_s"] = window / 1e9
    _read_load_pattern(name, doc, values, extra)
    extra["run_state"] = str(doc.get("state"))
    return ParsedPoint({k: v for k, v in values.items() if v is not None}, extra=extra)


def _read_metric(
    name: str,
    doc: dict[str, Any],
    key: str,
    metric: str,
    values: dict[str, Any],
    extra: dict[str, Any],
) -> None:
    """One latency section: its mean, the percentiles the point has columns for (the rest kept
    as extras) and its histogram."""
    section = _section(name, doc, key)
    avg = _num(name, section.get("avg"), f"{key}.avg")
    if avg is not None:
        values[f"{metric}_mean_ms"] = avg / NS_PER_MS
    percentiles = section.get("percentiles")
    if not isinstance(percentiles, dict):
        raise IngestError.one(name, f"key '{key}.percentiles': expected an object")
    for level, raw in percentiles.items():
        try:
            pct = float(level)
        except ValueError:
            raise IngestError.one(
                name, f"key '{key}.percentiles': {level!r} is no percentile"
            ) from None
        ms = (_num(name, raw, f"{key}.percentiles.{level}", required=True) or 0) / NS_PER_MS
        column = COLUMN_PERCENTILES.get(pct)
        if column is not None:
            values[f"{metric}_{column}_ms"] = ms
        elif pct >= 50:
            extra[f"{metric}_p{pct:g}_ms"] = ms
    hist = cumulative_histogram(name, section, key)
    if hist:
        extra[f"{metric}_histogram_ms"] = hist


def _read_load_pattern(
    name: str, doc: dict[str, Any], values: dict[str, Any], extra: dict[str, Any]
) -> None:
    """The run's load: a target concurrency, else a target rate."""
    config = doc.get("run_config")
    pattern = config.get("load_pattern") if isinstance(config, dict) else None
    if not isinstance(pattern, dict):
        return
    rate = _num(name, pattern.get("target_qps"), "run_config.load_pattern.target_qps")
    conc = _num(
        name, pattern.get("target_concurrency"), "run_config.load_pattern.target_concurrency"
    )
    if conc is not None:
        values["concurrency"] = conc
    elif rate is not None:
        values["request_rate"] = rate
    extra["load_pattern"] = str(pattern.get("type"))
    extra["legacy_loadgen_qps_metrics"] = pattern.get("use_legacy_loadgen_qps_metrics") is True


def _sweep(file: SourceFile) -> ParsedSweep:
    point = _point(file)
    doc = file.json()
    version = doc.get("version") if isinstance(doc.get("version"), str) else None
    where = file.folder or file.basename
    meta: dict[str, Any] = {
        "sweep": f"MLCommons endpoints · {where}",
        "source_tool": TOOL,
        "harness": HARNESS,
        "harness_version": version,
        "provenance": "independent",
    }
    warnings = []
    if doc.get("complete") is not True:
        warnings.append(f"the run's state is {doc.get('state')!r}, not complete")
    fmt = "MLCommons endpoints result_summary.json" + (f" (v{version})" if version else "")
    return ParsedSweep(
        {k: v for k, v in meta.items() if v is not None}, [point], file.name, fmt, warnings=warnings
    )


IMPORTER = EndpointsSummaryImporter()
