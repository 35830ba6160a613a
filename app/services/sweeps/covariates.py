"""A sweep's covariates (split, speculative decoding, prefix caching, measured power): each
point's from its stored extra fields, and their means, kept once per process per sweep."""

from __future__ import annotations

from functools import partial

from app.domain.covariates import Covariates, of_sweep, summarise
from app.services.sweeps.memo import remember
from app.store.points import SweepPoints


def of(sweep: SweepPoints) -> tuple[list[dict[str, float]], Covariates]:
    """Each point's covariates in point order, and the sweep's (its description, which may be
    edited, with the points' means: 40,960 points took 40 ms a request when not kept)."""
    points = _point_covariates(sweep)
    means = remember(
        sweep.derived, ("covariate means",), partial(summarise, Covariates("", 0), points)
    )
    return points, of_sweep(sweep.meta, points, means)


def _point_covariates(sweep: SweepPoints) -> list[dict[str, float]]:
    """Each point's covariates from its stored extra fields, once per process per sweep."""
    key = ("point covariates",)
    if key not in sweep.derived:
        sweep.derived[key] = [dict(r.get("covariates") or {}) for r in sweep.rows]
    found: list[dict[str, float]] = sweep.derived[key]
    return found
