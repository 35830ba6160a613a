"""`check --scope frontier`: does the candidate's frontier fall below the baseline's band?

At each interactivity of a grid over the shared range (evenly spaced, so a share of its points
is a share of the range), the candidate is below when it is significantly below the baseline
(candidate ÷ baseline's interval, from both bands, wholly under 1×: Compare's "significantly
below" stretch) AND its frontier is under the baseline's by more than the tolerance. Where
there is no interval (a sweep without request samples or repeated runs), the tolerance alone
decides there, as the SLO rule does without an interval.
The candidate regresses when it is below over at least `share` of the range (default 30 %).

Pure math: imports only the standard library and app.domain.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.frontier_band import Band
from app.domain.numbers import fmt_number, fmt_percent
from app.domain.pareto import Interpolation
from app.domain.stretches import ratios

DEFAULT_SHARE = 0.30
# The gate reads frontiers linearly between measured points: a staircase steps where each
# sweep's points happen to fall, so two runs of one system would differ by a whole step
# wherever one's point lands a hair left of the other's (calibration: bench/calibration.py).
GATE_INTERPOLATION: Interpolation = "linear"


@dataclass(frozen=True)
class FrontierVerdict:
    """`share_below` of the grid points where both frontiers have a value; `below` the
    stretches (from, to) where the candidate is below; the mean tok/s per GPU of each frontier
    over those points (the figures a report shows)."""

    regression: bool
    share_below: float | None
    share: float
    tolerance: float
    below: tuple[tuple[float, float], ...]
    baseline_mean: float | None
    candidate_mean: float | None
    note: str


def frontier_verdict(
    baseline: Band, candidate: Band, tolerance: float, share: float = DEFAULT_SHARE
) -> FrontierVerdict:
    """Compare two bands read at the same grid (the shared range)."""
    if baseline.x != candidate.x:
        raise ValueError("the two bands must be read at the same grid")
    flags: list[tuple[float, bool]] = []
    base_ys: list[float] = []
    cand_ys: list[float] = []
    for k, (x, ratio) in enumerate(zip(baseline.x, ratios(candidate, baseline), strict=True)):
        yb, yc = baseline.y[k], candidate.y[k]
        if yb is None or yc is None:
            continue
        base_ys.append(yb)
        cand_ys.append(yc)
        # Both bands' noise: the ratio's interval (paired resamples, else both on the log
        # scale), as Compare's stretches; without one, the tolerance alone decides.
        significant = ratio.high < 1 if ratio.high is not None else True
        flags.append((x, significant and yc < (1 - tolerance) * yb))
    if not flags:
        return FrontierVerdict(
            False, None, share, tolerance, (), None, None, "no shared range to compare"
        )
    below = _stretches(flags)
    fraction = sum(1 for _, b in flags if b) / len(flags)
    regression = fraction >= share and fraction > 0
    where = ", ".join(f"{fmt_number(a)}–{fmt_number(b)}" for a, b in below)
    note = (
        f"below the baseline's band by more than {fmt_percent(tolerance)} over "
        f"{fmt_percent(fraction)} of the shared range"
        + (f" ({where} tok/s/user)" if below else "")
        + f"; the limit is {fmt_percent(share)}"
    )
    return FrontierVerdict(
        regression,
        fraction,
        share,
        tolerance,
        below,
        sum(base_ys) / len(base_ys),
        sum(cand_ys) / len(cand_ys),
        note,
    )


def _stretches(flags: list[tuple[float, bool]]) -> tuple[tuple[float, float], ...]:
    out: list[tuple[float, float]] = []
    run: list[float] = []
    for x, below in flags:
        if below:
            run.append(x)
        elif run:
            out.append((run[0], run[-1]))
            run = []
    if run:
        out.append((run[0], run[-1]))
    return tuple(out)
