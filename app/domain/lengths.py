"""Configured against measured sequence lengths: a sweep labelled ISL/OSL 1024/1024 whose
requests averaged 510/530 tokens (random ranges) measures a different workload than its label.

Pure math: standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.numbers import fmt_number

# Beyond this relative gap the measured mean is shown beside the configured value.
LENGTH_TOLERANCE = 0.10


@dataclass(frozen=True)
class LengthCheck:
    """Measured mean input/output tokens per request and, when they differ, a sentence saying so."""

    measured_isl: float | None
    measured_osl: float | None
    note: str | None  # set only when a configured length differs by more than the tolerance


def measured_mean(lengths: Sequence[tuple[float | None, float | None]]) -> float | None:
    """Mean tokens per request over points given as (mean length, requests).

    Weighted by the point's request count when every point states one, so a point of 10
    requests does not count as much as one of 1000; a plain mean of the point means otherwise.
    """
    known = [(length, n) for length, n in lengths if length is not None]
    if not known:
        return None
    if all(n is not None and n > 0 for _, n in known):
        total = sum(float(n or 0) for _, n in known)
        return sum(length * float(n or 0) for length, n in known) / total
    return sum(length for length, _ in known) / len(known)


def check_lengths(
    isl: int | None,
    osl: int | None,
    points: Sequence[tuple[float | None, float | None, float | None]],
) -> LengthCheck:
    """Points as (input_len, output_len, num_requests); isl/osl as configured (None: not stated)."""
    measured_isl = measured_mean([(p[0], p[2]) for p in points])
    measured_osl = measured_mean([(p[1], p[2]) for p in points])
    parts: list[str] = []
    for label, configured, measured in (("ISL", isl, measured_isl), ("OSL", osl, measured_osl)):
        if configured is None or configured <= 0 or measured is None:
            continue
        gap = measured / configured - 1.0
        # Compared in tokens, not as a ratio, so exactly 10 % off is still within tolerance.
        if abs(measured - configured) > LENGTH_TOLERANCE * configured:
            sign = "+" if gap > 0 else "−"
            parts.append(
                f"{label} configured {fmt_number(configured)}, "
                f"measured mean {fmt_number(measured)} ({sign}{fmt_number(abs(gap) * 100, '%')})"
            )
    note = None
    if parts:
        limit = fmt_number(LENGTH_TOLERANCE * 100)
        note = (
            "; ".join(parts) + f": the measured mean differs from the configured length by more "
            f"than {limit} %, so the sweep measured a different workload than its ISL/OSL says"
        )
    return LengthCheck(measured_isl, measured_osl, note)
