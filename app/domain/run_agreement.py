"""Repeated runs at one load that disagree on the SLO: the load is only as good as its runs.

Where some runs at a load meet the SLO and others miss it, the load is *borderline*: every
run there is judged a miss (status fail, marked borderline, with how many runs met it), so no
goodput is read at that load, and a sweep with nothing else passing shows "borderline".
Runs that could not be checked (unknown) neither confirm nor contradict the others.

Pure math: imports only the standard library and app.domain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from app.domain.point import PointMetrics
from app.domain.verdict import Verdict


def settle_runs(
    points: Sequence[PointMetrics], verdicts: tuple[Verdict, ...]
) -> tuple[Verdict, ...]:
    """The verdicts with every load whose runs disagree settled as above (in the same order;
    the same tuple when no load was measured more than once)."""
    groups: dict[float, list[int]] = {}
    for i, point in enumerate(points):
        load = point.load()
        if load is not None:
            groups.setdefault(load, []).append(i)
    out: list[Verdict] | None = None
    for idx in groups.values():
        if len(idx) < 2:
            continue
        statuses = [verdicts[i].status for i in idx]
        meeting = statuses.count("pass")
        if meeting == 0 or meeting == len(idx):
            continue
        if "fail" not in statuses:
            continue  # the others are unknown: nothing contradicts the passing runs
        if out is None:
            out = list(verdicts)
        checked = len(idx) - statuses.count("unknown")
        for i in idx:
            verdict = verdicts[i]
            if verdict.status != "unknown":
                out[i] = replace(verdict, status="fail", borderline=True, runs=(meeting, checked))
    return verdicts if out is None else tuple(out)


def unsettled(verdicts: Sequence[Verdict]) -> Verdict | None:
    """The first verdict of a load whose runs disagree (borderline by its runs), if any."""
    return next((v for v in verdicts if v.runs is not None and v.borderline), None)
