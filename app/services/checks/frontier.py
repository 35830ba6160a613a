"""`check --scope frontier`: both sweeps' frontiers with their bands on a grid of the shared
interactivity range (read linearly, app.domain.frontier_gate), judged as one finding."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
from sqlalchemy.orm import Session

from app.domain import regression
from app.domain.compare import shared_range
from app.domain.frontier_band import Band, band, even_grid, run_replicates
from app.domain.frontier_gate import GATE_INTERPOLATION, frontier_verdict
from app.domain.gate_ratio import GateRatio
from app.services import bands
from app.services.analysis import Params, SweepAnalysis
from app.services.compare.ratios import frontier_of

NO_SHARED = "no shared interactivity range: nothing to compare"


def frontier_finding(
    session: Session,
    baseline: SweepAnalysis,
    candidate: SweepAnalysis,
    params: Params,
    tolerance: float,
    share: float,
) -> regression.Finding:
    """One finding: the candidate below the baseline's band over `share` of the range, or not.

    A sweep without request samples or repeated runs has no band: its frontier alone is read
    (the tolerance alone decides where the baseline has none)."""
    span = shared_range(frontier_of(baseline), frontier_of(candidate))
    if span is None:
        return regression.Finding("frontier", "frontier", None, None, None, False, NO_SHARED)
    grid = even_grid(*span)
    linear = replace(params, interpolation=GATE_INTERPOLATION)
    samples = bands.samples_for(session, [baseline, candidate])
    base, base_known = _band(baseline, linear, samples.get(int(baseline.meta.id)), grid)
    cand, cand_known = _band(candidate, linear, samples.get(int(candidate.meta.id)), grid)
    verdict = frontier_verdict(base, cand, tolerance, share)
    b, c = verdict.baseline_mean, verdict.candidate_mean
    change = None if b is None or c is None else regression.relative_change(b, c)
    note, ratio = verdict.note, None
    if not (base_known and cand_known) and b and c is not None:
        # No band on a side: said in the verdict, as the SLO scope says it of one run.
        note = f"{note} ({NO_BAND})"
        ratio = GateRatio(c / b, None, None, params.ci_level, None, False, NO_BAND)
    return regression.Finding(
        "frontier", "frontier", b, c, change, verdict.regression, note, ratio=ratio
    )


NO_BAND = (
    "tolerance alone where a side has no band; one run cannot separate noise: record 3 or more "
    "runs per load, or upload request samples"
)


def _band(
    result: SweepAnalysis, params: Params, samples: pl.DataFrame | None, grid: list[float]
) -> tuple[Band, bool]:
    """The sweep's band on the grid, and whether it is one (False: its frontier alone)."""
    reps = bands.replicates(result, params, samples)
    if reps is None:  # no band: the frontier alone, every "resample" the same
        reps = run_replicates([None] * len(result.points), result.xs, result.ys, 1)
        return band(reps, grid, params.ci_level, params.interpolation), False
    return band(reps, grid, params.ci_level, params.interpolation), True
