"""Why a read-off has no goodput, in words that name the real cause: points that meet the SLO
but lack throughput on the basis, else the lightest failing load, and the unknown points.

Pure math: imports only the standard library and app.domain.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.estimate import load_order
from app.domain.metrics import Basis
from app.domain.numbers import fmt_load
from app.domain.point import PointMetrics
from app.domain.run_agreement import unsettled
from app.domain.verdict import Verdict, runs_text


def no_pass_reason(
    points: Sequence[PointMetrics], verdicts: Sequence[Verdict], basis: Basis
) -> str:
    """Why no point gives a goodput: points meeting the SLO without throughput on the basis
    (the goodput is then unknown, whatever heavier loads do), else the lightest failing load,
    and unknown points."""
    if not points:
        return "no measured points"
    order = load_order(points) or list(range(len(points)))
    ordered = [verdicts[i] for i in order]
    parts: list[str] = []
    passing = [points[i] for i in order if verdicts[i].status == "pass"]
    if passing:
        parts.append(_unmeasured_goodput(passing, len(points), basis))
    fails = [v for v in ordered if v.status == "fail"]
    if not passing:
        parts += _borderline(points, ordered)
    if fails and not passing and not (parts and fails[0].runs is not None):
        lead = "lightest load" if ordered[0] is fails[0] else "lightest checked load"
        parts.append(f"no point meets the SLO: {lead} fails {fails[0].reason}")
    unknowns = [v for v in ordered if v.status == "unknown"]
    if unknowns:
        reasons = "; ".join(dict.fromkeys(v.reason for v in unknowns))
        noun = "point" if len(unknowns) == 1 else "points"
        parts.append(f"{len(unknowns)} {noun} unknown: {reasons}")
    return "; ".join(parts)


def _borderline(points: Sequence[PointMetrics], ordered: Sequence[Verdict]) -> list[str]:
    """The borderline point's runs and load, when the runs leave one unsettled."""
    borderline = unsettled(ordered)
    if borderline is None or borderline.runs is None:
        return []
    point = next((p for p in points if p.point_id == borderline.point_id), None)
    at = f" at {load_words(point)}" if point is not None and point.load() is not None else ""
    return [f"{runs_text(*borderline.runs)}{at}: borderline, not a pass"]


def _unmeasured_goodput(passing: Sequence[PointMetrics], total: int, basis: Basis) -> str:
    """Why the points meeting the SLO give no goodput: what their throughput lacks."""
    verb = "meets" if len(passing) == 1 else "meet"
    count = f"{len(passing)} of {total} points {verb}" if total > 1 else "the point meets"
    if all(p.num_gpus <= 0 for p in passing):
        return f"{count} the SLO, but the GPU count is not recorded: no tok/s per GPU"
    missing = {
        "output": "output throughput is",
        "total": "total throughput (input + output tokens/s) is",
        "input": "total throughput, and so input throughput (total − output), is",
    }[basis]
    return (
        f"{count} the SLO, but {'its' if len(passing) == 1 else 'their'} {missing} not "
        f"measured: goodput on the {basis} basis "
        "is unknown (another basis may have it)"
    )


def load_words(point: PointMetrics) -> str:
    """The point's load as set: "concurrency 4" or "2 req/s"."""
    if point.concurrency is not None:
        return f"concurrency {fmt_load(point.concurrency)}"
    return fmt_load(point.request_rate, "req/s")
