"""Regression rules of `paretoscope check`: does a candidate sweep fall behind its baseline?

A candidate regresses when, at the same SLO and prices,
- the baseline met the SLO and the candidate does not; or
- goodput fell by more than the tolerance (relative) AND the interval of the ratio candidate ÷
  baseline (app.domain.gate_ratio: paired where both runs replayed the same prompts) lies
  wholly below 1× (without a ratio interval, the tolerance alone decides, said so); or
- $/Mtok under some price rose by more than the tolerance.
A side whose SLO status is unknown cannot be compared, nor two sides neither of which meets the
SLO (no goodput to compare): that is unknown, not a verdict.
When the operating point moved to another load within noise (`moved_within_noise`), the
goodput and $/Mtok falls read there are reported but are not a regression; the goodput is then
also compared at the lighter of the two operating loads, where both sides meet the SLO
(`matched_load`), by the same rule: the same configuration measured twice. Both calibrated
on A/A pairs and on a 10 % drop by bench/calibration.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from app.domain.gate_ratio import GateRatio
from app.domain.intervals import Method
from app.domain.numbers import fmt_percent
from app.domain.point import PointMetrics
from app.domain.slo import Readoff

Verdict = Literal["pass", "regression", "unknown"]


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    level: float
    method: Method | None = None


@dataclass(frozen=True)
class Side:
    """One sweep's read-off at the check's SLO: the figures the rules compare."""

    meets_slo: bool | None  # None: unknown
    goodput_tok_s_per_gpu: float | None
    goodput_interval: Interval | None = None
    # $/Mtok per price column label (None: no goodput, or the price does not apply)
    usd_per_mtok: dict[str, float | None] = field(default_factory=dict)
    usd_per_mtok_interval: dict[str, Interval | None] = field(default_factory=dict)
    # Why a price column has no $/Mtok (e.g. no price for this GPU in the set), by label
    usd_per_mtok_reason: dict[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Finding:
    # "frontier": `check --scope frontier` (app.domain.frontier_gate), its figures the mean
    # tok/s per GPU of each frontier over the shared range.
    figure: Literal["meets_slo", "goodput_tok_s_per_gpu", "usd_per_mtok", "frontier"]
    label: str
    baseline: float | bool | None
    candidate: float | bool | None
    change: float | None  # relative: (candidate - baseline) / baseline
    regression: bool
    note: str
    baseline_interval: Interval | None = None
    candidate_interval: Interval | None = None
    # The goodput findings' candidate ÷ baseline with its own interval: what the rule judges.
    ratio: GateRatio | None = None


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    findings: tuple[Finding, ...]
    reason: str | None = None  # why the verdict is unknown


def relative_change(baseline: float, candidate: float) -> float | None:
    return None if baseline == 0 else (candidate - baseline) / baseline


NEITHER = "neither sweep meets the SLO: no goodput to compare"


NOISE = (
    "the operating point moved to another load, but the SLO's verdict at one of the two "
    "loads is borderline (within noise): not a regression"
)


@dataclass(frozen=True)
class Matched:
    """Both sides' goodput at one load where both meet the SLO (`matched_load`)."""

    load: float
    baseline: Side
    candidate: Side
    ratio: GateRatio | None = None  # candidate ÷ baseline goodput at `load`, its interval


def compare(
    baseline: Side,
    candidate: Side,
    tolerance: float,
    within_noise: bool = False,
    matched: Matched | None = None,
    ratio: GateRatio | None = None,
) -> Outcome:
    """Apply the rules; `tolerance` is a fraction (0.05 = 5 %); `ratio` is the goodput's
    candidate ÷ baseline with its interval (None: the tolerance alone decides). `within_noise`
    (`moved_within_noise`): the goodput and $/Mtok, read at operating points the noise moved
    apart, are reported but never a regression; `matched` then adds the goodput at the load
    both meet the SLO at, which can be one."""
    outcome = _compare(baseline, candidate, tolerance, ratio)
    if not within_noise or outcome.verdict == "unknown":
        return outcome
    findings = tuple(
        replace(f, regression=False, note=f"{f.note}; {NOISE}")
        if f.regression and f.figure in ("goodput_tok_s_per_gpu", "usd_per_mtok")
        else f
        for f in outcome.findings
    )
    if matched is not None:
        findings += (_matched_finding(matched, tolerance),)
    verdict: Verdict = "regression" if any(f.regression for f in findings) else "pass"
    return Outcome(verdict, findings)


def _matched_finding(matched: Matched, tolerance: float) -> Finding:
    b, c = matched.baseline, matched.candidate
    assert b.goodput_tok_s_per_gpu is not None and c.goodput_tok_s_per_gpu is not None
    found = _goodput_finding(
        b, c, b.goodput_tok_s_per_gpu, c.goodput_tok_s_per_gpu, tolerance, matched.ratio
    )
    return replace(
        found,
        label=f"goodput at load {matched.load:g}",
        note=f"at load {matched.load:g}, where both meet the SLO: {found.note}",
    )


def _compare(baseline: Side, candidate: Side, tolerance: float, ratio: GateRatio | None) -> Outcome:
    for name, side in (("baseline", baseline), ("candidate", candidate)):
        if side.meets_slo is None:
            return Outcome("unknown", (), f"the {name}'s SLO status is unknown")
    if not baseline.meets_slo and not candidate.meets_slo:
        return Outcome("unknown", (), NEITHER)
    findings = [_slo_finding(baseline.meets_slo, candidate.meets_slo)]
    b, c = baseline.goodput_tok_s_per_gpu, candidate.goodput_tok_s_per_gpu
    if b is not None and c is not None:
        findings.append(_goodput_finding(baseline, candidate, b, c, tolerance, ratio))
    for label, b_cost in baseline.usd_per_mtok.items():
        c_cost = candidate.usd_per_mtok.get(label)
        if b_cost is None or c_cost is None:
            # Unknown, not dropped: the line says which side has no $/Mtok and why.
            findings.append(_unknown_cost(label, baseline, candidate))
            continue
        change = relative_change(b_cost, c_cost)
        rose = change is not None and change > tolerance
        findings.append(
            Finding(
                "usd_per_mtok",
                label,
                b_cost,
                c_cost,
                change,
                rose,
                "rose by more than the tolerance" if rose else "within the tolerance",
                baseline.usd_per_mtok_interval.get(label),
                candidate.usd_per_mtok_interval.get(label),
            )
        )
    verdict: Verdict = "regression" if any(f.regression for f in findings) else "pass"
    return Outcome(verdict, tuple(findings))


def _unknown_cost(label: str, baseline: Side, candidate: Side) -> Finding:
    whys = []
    for name, side in (("baseline", baseline), ("candidate", candidate)):
        if side.usd_per_mtok.get(label) is None:
            why = side.usd_per_mtok_reason.get(label) or "no $/Mtok"
            whys.append(f"{name}: {why}")
    return Finding(
        "usd_per_mtok",
        label,
        baseline.usd_per_mtok.get(label),
        candidate.usd_per_mtok.get(label),
        None,
        False,
        "; ".join(whys),
    )


def _slo_finding(base: bool | None, cand: bool | None) -> Finding:
    if base and not cand:
        note = "the SLO is no longer met"
    elif cand and not base:
        note = "the SLO is now met"
    elif cand:
        note = "both meet the SLO"
    else:
        note = "neither meets the SLO"
    return Finding("meets_slo", "meets SLO", base, cand, None, bool(base and not cand), note)


def _goodput_finding(
    baseline: Side,
    candidate: Side,
    b: float,
    c: float,
    tolerance: float,
    ratio: GateRatio | None,
) -> Finding:
    change = relative_change(b, c)
    fell = change is not None and change < -tolerance
    below = None if ratio is None else ratio.below_one
    if not fell:
        note = "within the tolerance" if change is None or change <= 0 else "rose"
    elif below is None:
        note = "fell by more than the tolerance"
    elif below:
        note = "fell by more than the tolerance, and the ratio's interval lies below 1×"
    else:
        note = "fell by more than the tolerance, but the ratio's interval reaches 1×"
    note += _ratio_words(ratio)
    return Finding(
        "goodput_tok_s_per_gpu",
        "goodput",
        b,
        c,
        change,
        fell and below is not False,
        note,
        baseline.goodput_interval,
        candidate.goodput_interval,
        ratio,
    )


def _ratio_words(ratio: GateRatio | None) -> str:
    """The ratio and its interval in words, or why the tolerance alone decides."""
    if ratio is None:
        return " (no ratio interval: the tolerance alone decides)"
    if ratio.low is None or ratio.high is None:
        return f" ({ratio.reason or 'no ratio interval: the tolerance alone decides'})"
    how = "paired requests" if ratio.paired else _METHOD_WORDS.get(ratio.method or "", "")
    return (
        f" (candidate ÷ baseline {ratio.value:.3f}×, {fmt_percent(ratio.level)} interval "
        f"{ratio.low:.3f}–{ratio.high:.3f}×" + (f", {how}" if how else "") + ")"
    )


_METHOD_WORDS = {"ratio-bootstrap": "unpaired requests", "ratio-t-log": "repeated runs"}


def moved_within_noise(
    baseline: Readoff,
    baseline_points: Sequence[PointMetrics],
    candidate: Readoff,
    candidate_points: Sequence[PointMetrics],
) -> bool:
    """Whether the operating point moved to another load only within noise: the SLO's verdict
    at either side's operating load is not settled on either side. Per request, an attainment
    interval there straddles the target (borderline); with repeated runs, some of the runs at
    that load meet the SLO and some do not. Then the goodput (read at another load) cannot
    show a regression: the same system, measured again, lands on either side of the limit."""
    b_op, c_op = baseline.operating_point, candidate.operating_point
    if b_op is None or c_op is None:
        return False
    b_load = _load_of(baseline_points, b_op.point_id)
    c_load = _load_of(candidate_points, c_op.point_id)
    if b_load is None or b_load == c_load:
        return False
    for readoff, points in ((baseline, baseline_points), (candidate, candidate_points)):
        for load in (b_load, c_load):
            at = {p.point_id for p in points if p.load() == load}
            verdicts = [v for v in readoff.verdicts if v.point_id in at]
            if any(v.borderline for v in verdicts):
                return True
            if len({v.status for v in verdicts if v.status != "unknown"}) > 1:
                return True  # runs at that load both meet and miss the SLO
    return False


def matched_load(
    baseline: Readoff,
    baseline_points: Sequence[PointMetrics],
    candidate: Readoff,
    candidate_points: Sequence[PointMetrics],
) -> float | None:
    """Where to compare goodput when the operating point moved within noise: the lighter of
    the two operating loads. One side met the SLO there; the other, which met it at a heavier
    load, nearly always does too (`at_load` says). None without both operating loads."""
    b_op, c_op = baseline.operating_point, candidate.operating_point
    if b_op is None or c_op is None:
        return None
    b_load = _load_of(baseline_points, b_op.point_id)
    c_load = _load_of(candidate_points, c_op.point_id)
    return None if b_load is None or c_load is None else min(b_load, c_load)


def _load_of(points: Sequence[PointMetrics], point_id: int) -> float | None:
    return next((p.load() for p in points if p.point_id == point_id), None)
