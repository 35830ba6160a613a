"""`check --scope slo` where the operating point moved within noise: both sides' goodput, with
its interval, at the lighter of the two operating loads (app.domain.regression.matched_load),
read as the page reads an operating point: the same bootstrap or runs' t interval."""

from __future__ import annotations

from app.domain import regression
from app.domain.readoff_intervals import request_intervals, runs_intervals, shown_from_runs
from app.domain.slo import Readoff, at_load
from app.services.analysis import Params, SweepAnalysis
from app.services.checks.ratio import goodput_ratio


def matched(
    baseline: SweepAnalysis, candidate: SweepAnalysis, params: Params
) -> tuple[bool, regression.Matched | None]:
    """Whether the operating point moved within noise, and then both sides at the matched
    load (None when either side has no run there that meets the SLO)."""
    b, c = baseline, candidate
    if not regression.moved_within_noise(b.readoff, b.points, c.readoff, c.points):
        return False, None
    load = regression.matched_load(b.readoff, b.points, c.readoff, c.points)
    if load is None:
        return True, None
    found = [side_at(result, load, params) for result in (b, c)]
    if found[0] is None or found[1] is None:
        return True, None
    (b_side, b_pinned), (c_side, c_pinned) = found[0], found[1]
    shown = (b_side.goodput_tok_s_per_gpu, c_side.goodput_tok_s_per_gpu)
    ratio = goodput_ratio(b, c, params, shown, (b_pinned, c_pinned))
    return True, regression.Matched(load, b_side, c_side, ratio)


def side_at(
    result: SweepAnalysis, load: float, params: Params
) -> tuple[regression.Side, Readoff] | None:
    """The read-off's goodput and interval at its best passing run at `load`, and the read-off
    pinned there (its operating point that run)."""
    pinned = at_load(result.readoff, result.points, load, params.stat)
    if pinned is None:
        return None
    operating = pinned
    if pinned.mode == "per_request":
        ivs = request_intervals(
            pinned, result.points, result.samples, params.slo, params.basis, params.ci_level
        )
    else:
        ivs = runs_intervals(pinned, result.points, params.basis, params.ci_level)
        pinned = shown_from_runs(pinned, ivs)
    g = ivs.goodput_tok_s_per_gpu
    interval = (
        regression.Interval(g.low, g.high, g.level, g.method)
        if g.low is not None and g.high is not None
        else None
    )
    return regression.Side(pinned.meets_slo, pinned.goodput_tok_s_per_gpu, interval), operating
