"""A Prometheus query_range answer (JSON, resultType "matrix") read back as scrapes.

Pure: standard library only. Each evaluation time becomes one scrape holding every series'
value at that time, so its windows are made exactly as from exposition snapshots. The answer
must hold the raw series (counters, histogram buckets, the running gauge), e.g. from
`{__name__=~"vllm:.*", model_name="…"}` with the step you want windows to start on.
"""

from __future__ import annotations

from typing import Any

from app.domain.prom_text import MAX_LABELS, MAX_NAME_CHARS, Sample, Scrape, parse_time

MAX_SERIES = 10_000
MAX_VALUES = 11_000  # Prometheus's own bound on points per series in one query_range answer


class RangeError(ValueError):
    """The JSON is not a query_range matrix this reads; the message says where."""


def looks_like_range(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and doc.get("status") == "success"
        and isinstance(doc.get("data"), dict)
        and doc["data"].get("resultType") == "matrix"
    )


def _series_labels(metric: Any, i: int) -> tuple[str, tuple[tuple[str, str], ...]]:
    if not isinstance(metric, dict) or not isinstance(metric.get("__name__"), str):
        raise RangeError(f"result[{i}].metric has no __name__ (ask for the raw series)")
    if len(metric) > MAX_LABELS + 1:
        raise RangeError(f"result[{i}].metric has more than {MAX_LABELS} labels")
    pairs = []
    for k, v in metric.items():
        if not isinstance(k, str) or not isinstance(v, str) or len(v) > 1000:
            raise RangeError(f"result[{i}].metric: label {str(k)[:40]!r} is not short text")
        if k != "__name__":
            pairs.append((k, v))
    name = metric["__name__"]
    if len(name) > MAX_NAME_CHARS:
        raise RangeError(f"result[{i}]: metric name over {MAX_NAME_CHARS} characters")
    return name, tuple(sorted(pairs))


def scrapes_of_range(doc: Any) -> list[Scrape]:
    """One scrape per evaluation time, in time order."""
    if not looks_like_range(doc):
        raise RangeError('not a query_range answer: expected status "success" and a matrix')
    result = doc["data"].get("result")
    if not isinstance(result, list):
        raise RangeError("data.result is not a list")
    if len(result) > MAX_SERIES:
        raise RangeError(f"{len(result):,} series; at most {MAX_SERIES:,}")
    by_time: dict[float, list[Sample]] = {}
    for i, series in enumerate(result):
        if not isinstance(series, dict):
            raise RangeError(f"result[{i}] is not an object")
        name, labels = _series_labels(series.get("metric"), i)
        values = series.get("values")
        if not isinstance(values, list) or len(values) > MAX_VALUES:
            raise RangeError(f"result[{i}].values is not a list of at most {MAX_VALUES:,} pairs")
        for j, pair in enumerate(values):
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[1], str):
                raise RangeError(f'result[{i}].values[{j}] is not [time, "value"]')
            try:
                at = parse_time(str(pair[0]))
                value = float(pair[1]) if len(pair[1]) <= 40 else float("nan")
            except ValueError as exc:
                raise RangeError(f"result[{i}].values[{j}]: {exc}") from None
            if value != value:
                raise RangeError(f"result[{i}].values[{j}]: {pair[1][:40]!r} is not a number")
            by_time.setdefault(at, []).append(Sample(name, labels, value))
    return [Scrape(samples=by_time[t], scraped_at_s=t) for t in sorted(by_time)]
