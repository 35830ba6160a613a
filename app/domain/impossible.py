"""Values no benchmark run can have measured: falling percentiles, a mean outside [min, max],
more requests done than issued, a fractional or non-positive concurrency, a zero duration.

One pure function over a point's canonical values and its extra fields, so every importer's
points get the same checks. Pure math: imports only the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.domain.numbers import finite_number, real_number
from app.domain.stat_names import statistic_field

# The latency metrics whose statistics are checked (canonical columns and extra fields alike).
METRICS: tuple[str, ...] = ("ttft", "tpot", "itl", "e2el")
# Where a file states how many requests it issued (vLLM bench serve and its InferenceX fork).
ISSUED_KEYS: tuple[str, ...] = ("num_prompts",)

KIND_ORDER = "percentile order"
KIND_MEAN = "mean outside min and max"
KIND_COUNTS = "counts"
KIND_CONCURRENCY = "concurrency"
KIND_DURATION = "duration"


@dataclass(frozen=True)
class Impossible:
    """One impossible value: the field at fault (a column or an extra field), what kind of
    rule it breaks, and why, with the numbers."""

    field: str
    kind: str
    message: str


def impossible_values(values: Mapping[str, Any], extra: Mapping[str, Any]) -> list[Impossible]:
    """What no run can have measured in a point's canonical `values` and `extra` fields."""
    found: list[Impossible] = []
    stats = _statistics(values, extra)
    for metric in METRICS:
        found += _metric_problems(metric, stats.get(metric, {}))
    found += _count_problems(values, extra)
    concurrency = real_number(values.get("concurrency"))
    if concurrency is not None and (
        concurrency <= 0 or not math.isfinite(concurrency) or concurrency != int(concurrency)
    ):
        found.append(
            Impossible(
                "concurrency",
                KIND_CONCURRENCY,
                f"concurrency {concurrency:g} is not a positive whole number of requests",
            )
        )
    duration = real_number(values.get("duration_s"))
    if duration is not None and duration <= 0:
        rates = [k for k in _RATES if values.get(k) is not None]
        if rates:
            found.append(
                Impossible(
                    "duration_s",
                    KIND_DURATION,
                    f"duration {duration:g} s, but {', '.join(rates)} "
                    f"{'is a rate' if len(rates) == 1 else 'are rates'} over it "
                    "(a rate over no time is undefined)",
                )
            )
    return found


_RATES = ("output_tok_s", "total_tok_s", "requests_per_s", "goodput_requests_per_s")


def statistic_rank(stat: str) -> float:
    """Where a statistic sits in a metric's order: min, then percentiles, then max (mean: none)."""
    return {"min": -1.0, "max": 101.0}.get(stat) or float(stat[1:])


def _statistics(
    values: Mapping[str, Any], extra: Mapping[str, Any]
) -> dict[str, dict[str, tuple[str, float]]]:
    """{metric: {stat: (field, ms)}} from the columns and the extra fields; a column wins over
    an extra field naming the same statistic."""
    out: dict[str, dict[str, tuple[str, float]]] = {}
    for source in (extra, values):
        for key, value in source.items():
            named = statistic_field(key) if isinstance(key, str) else None
            number = finite_number(value) if named is not None else None
            if named is not None and number is not None:
                out.setdefault(named[0], {})[named[1]] = (key, number)
    return out


def _metric_problems(metric: str, stats: dict[str, tuple[str, float]]) -> list[Impossible]:
    found: list[Impossible] = []
    ranked = sorted(
        (statistic_rank(stat), stat, field, value)
        for stat, (field, value) in stats.items()
        if stat != "mean"
    )
    low, high = stats.get("min"), stats.get("max")
    # Each statistic against the highest below it: one message per falling value.
    top: tuple[float, str, str, float] | None = None
    for rank in ranked:
        if top is not None and rank[3] < top[3]:
            found.append(
                Impossible(
                    rank[2],
                    KIND_ORDER,
                    f"{metric.upper()} {rank[1]} {rank[3]:g} ms is below its {top[1]} "
                    f"{top[3]:g} ms (a higher percentile can never be lower)",
                )
            )
            continue
        top = rank
    mean = stats.get("mean")
    if mean is not None and low is not None and high is not None and low[1] <= high[1]:
        if not low[1] <= mean[1] <= high[1]:
            found.append(
                Impossible(
                    mean[0],
                    KIND_MEAN,
                    f"{metric.upper()} mean {mean[1]:g} ms is outside its min {low[1]:g} ms "
                    f"and max {high[1]:g} ms",
                )
            )
    return found


def _count_problems(values: Mapping[str, Any], extra: Mapping[str, Any]) -> list[Impossible]:
    completed = _whole(values.get("num_requests"))
    failed = _whole(values.get("num_failed"))
    if completed is None and failed is None:
        return []
    for key in ISSUED_KEYS:
        issued = _whole(extra.get(key))
        if issued is None:
            continue
        done = (completed or 0) + (failed or 0)
        if done > issued:
            field = "num_failed" if failed and (completed or 0) <= issued else "num_requests"
            return [
                Impossible(
                    field,
                    KIND_COUNTS,
                    f"{completed or 0} completed + {failed or 0} failed = {done} requests, "
                    f"but the file says it issued {issued} ({key})",
                )
            ]
    return []


def _whole(value: Any) -> int | None:
    number = finite_number(value)
    if number is None or number != int(number):
        return None
    return int(number)
