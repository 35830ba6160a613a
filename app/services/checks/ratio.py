"""`check --scope slo`: the goodput's candidate ÷ baseline with its own interval
(app.domain.gate_ratio), read from what each side's operating point rests on: its requests
(per-request mode, paired where both replayed the same prompts in the same order) or the
repeated runs at its load that meet the SLO (percentile mode)."""

from __future__ import annotations

import math

from app.domain import gate_ratio
from app.domain.gate_ratio import GateRatio, GateSide
from app.domain.intervals import Interval, none, ratio_interval, z_value
from app.domain.slo import Readoff
from app.services.analysis import Params, SweepAnalysis
from app.services.readoff.intervals import goodput_interval

MIXED = "the two sides are read from different data (requests and runs): no ratio interval"


def goodput_ratio(
    baseline: SweepAnalysis,
    candidate: SweepAnalysis,
    params: Params,
    shown: tuple[float | None, float | None],
    readoffs: tuple[Readoff, Readoff] | None = None,
) -> GateRatio | None:
    """candidate ÷ baseline goodput, `shown` the two goodputs as the check reports them, at the
    read-offs' operating points (default each sweep's own; `check_matched` passes both pinned
    at one load). None when either goodput is missing."""
    b_value, c_value = shown
    if b_value is None or c_value is None or not b_value > 0:
        return None
    b_ro, c_ro = readoffs or (baseline.readoff, candidate.readoff)
    found = gate_ratio.goodput_ratio(
        GateSide(b_ro, baseline.points, baseline.samples),
        GateSide(c_ro, candidate.points, candidate.samples),
        (b_value, c_value),
        params.slo,
        params.basis,
        params.ci_level,
    )
    if found is not None:
        return found
    value, level = c_value / b_value, gate_ratio.gate_level(params.ci_level)
    # One side per request, the other per run: Compare's ratio of the two intervals.
    iv = ratio_interval(
        goodput_interval(candidate) or _no_interval(level),
        goodput_interval(baseline) or _no_interval(level),
    )
    if not iv.low or not iv.high or not iv.value or readoffs is not None:
        return GateRatio(value, None, None, level, None, False, MIXED)
    # Log-normal ends at the read-off's level, widened to the gate's, centred on the ratio shown.
    half = math.log(iv.high / iv.low) / 2 * z_value(level) / z_value(iv.level)
    return GateRatio(
        value, value * math.exp(-half), value * math.exp(half), level, "ratio-log-normal"
    )


def _no_interval(level: float) -> Interval:
    return none(None, level, "no interval")
