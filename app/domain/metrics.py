"""Per-request and per-point metric definitions: TPOT, interactivity, token basis, percentiles.

Pure math: the standard library only (no web, database or settings modules).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

Basis = Literal["output", "total", "input"]
BASES: tuple[Basis, ...] = ("output", "total", "input")


def interactivity_tok_s_user(tpot_ms: float | None) -> float | None:
    """Per-user token rate 1000 / TPOT in tok/s/user; None if TPOT is missing, NaN or ≤ 0."""
    if tpot_ms is None or math.isnan(tpot_ms) or tpot_ms <= 0:
        return None
    return 1000.0 / tpot_ms


def deployment_tok_s(
    output_tok_s: float | None, total_tok_s: float | None, basis: Basis
) -> float | None:
    """Deployment tok/s on a token basis (input = total − output); None if a value is missing."""
    if basis == "output":
        return _finite(output_tok_s)
    if basis == "total":
        return _finite(total_tok_s)
    if basis == "input":
        out, total = _finite(output_tok_s), _finite(total_tok_s)
        if out is None or total is None or total < out:
            return None
        return total - out
    raise ValueError(f"unknown token basis {basis!r}; expected one of {BASES}")


def tok_s_per_gpu(deployment_tok_s: float | None, num_gpus: float) -> float | None:
    """Deployment tok/s divided by all its GPUs; None if throughput is missing or num_gpus ≤ 0."""
    value = _finite(deployment_tok_s)
    if value is None or num_gpus <= 0:
        return None
    return value / num_gpus


def percentile_linear(values: Sequence[float], q: float) -> float:
    """q-th percentile (q in [0, 100]) with linear interpolation: numpy.percentile's default
    and pandas.Series.quantile's (LLMPerf's summaries), written out.

    Raises ValueError on an empty sequence, a NaN value or q outside [0, 100].
    """
    if not values:
        raise ValueError("percentile of an empty sequence")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be in [0, 100], got {q}")
    if any(math.isnan(v) for v in values):
        raise ValueError("percentile of a sequence containing NaN")
    ordered = sorted(values)
    pos = q / 100 * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def frechet_bounds(attainments: Sequence[float]) -> tuple[float, float]:
    """Share meeting all K conditions given each one's share q: [max(0, Σq − (K−1)), min q].

    Every share must be in [0, 1]; no conditions gives (1, 1).
    """
    if any(not 0.0 <= q <= 1.0 for q in attainments):
        raise ValueError("attainments must be in [0, 1]")
    if not attainments:
        return (1.0, 1.0)
    lower = max(0.0, math.fsum(attainments) - (len(attainments) - 1))
    return (lower, min(attainments))


def _finite(value: float | None) -> float | None:
    """The value if it is a finite number, else None."""
    if value is None or not math.isfinite(value):
        return None
    return value
