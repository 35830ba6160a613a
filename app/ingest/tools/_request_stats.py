"""A point's statistics from the per-request values a tool wrote, when it wrote no summary of
its own (vLLM's multi-turn benchmark): mean and linear-interpolated percentiles (numpy's
default, and pandas' `describe`, which that benchmark prints), per metric, into the point's
canonical columns. Not an importer (no IMPORTER here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.domain.metrics import percentile_linear

# canonical stat → percentile (None: the mean)
STATS: tuple[tuple[str, float | None], ...] = (
    ("mean", None),
    ("p50", 50.0),
    ("p90", 90.0),
    ("p95", 95.0),
    ("p99", 99.0),
)


def latency_columns(metrics: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """`{metric}_{stat}_ms` of each canonical metric (ttft, tpot, e2el, …) from its values in
    ms; a metric without values gives no column (not measured, never 0)."""
    out: dict[str, float] = {}
    for metric, values in metrics.items():
        if not values:
            continue
        for stat, q in STATS:
            value = sum(values) / len(values) if q is None else percentile_linear(values, q)
            out[f"{metric}_{stat}_ms"] = value
    return out


def throughput_columns(
    starts_ms: Sequence[float],
    ends_ms: Sequence[float],
    input_lens: Sequence[int],
    output_lens: Sequence[int],
) -> dict[str, Any]:
    """The run's duration (first start to last end) and its throughputs over it, with the mean
    lengths; {} when the requests span no time."""
    duration_s = (max(ends_ms) - min(starts_ms)) / 1000.0 if starts_ms else 0.0
    if duration_s <= 0:
        return {}
    n = len(output_lens)
    return {
        "duration_s": duration_s,
        "num_requests": n,
        "requests_per_s": n / duration_s,
        "output_tok_s": sum(output_lens) / duration_s,
        "total_tok_s": (sum(input_lens) + sum(output_lens)) / duration_s,
        "input_len": sum(input_lens) / n,
        "output_len": sum(output_lens) / n,
    }
