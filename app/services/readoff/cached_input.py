"""A sweep's cached (prefix-hit) input per point, with its source (issue 50): the same share
the read-off uses (app.domain.token_classes.point_share), for the sweep page and its JSON."""

from __future__ import annotations

import polars as pl

from app.domain.covariates import point_covariates
from app.domain.token_classes import UNKNOWN_SOURCE, point_share
from app.schemas.answers.typed.sweeps import CachedInputRowDict
from app.services.readoff.token_classes import UNKNOWN_WORDS, sample_counts
from app.store.models import Sweep


def cached_rows(sweep: Sweep, samples: pl.DataFrame | None) -> list[CachedInputRowDict]:
    """Each point's cached share of input tokens and where it comes from (`measured`,
    `client`, `theoretical`; `unknown` with a null share); [] when no point has one."""
    counts = {} if samples is None else sample_counts(samples)
    rows: list[CachedInputRowDict] = []
    for point in sweep.points:
        found = point_share(
            point_covariates(point.extra or {}), point.input_len, counts.get(point.id)
        )
        rows.append(
            {
                "point_id": point.id,
                "concurrency": point.concurrency,
                "request_rate": point.request_rate,
                "cached_input_share": None if found is None else found.share,
                "cached_input_source": UNKNOWN_SOURCE if found is None else found.source,
                "cached_input_source_words": UNKNOWN_WORDS if found is None else found.source_words,
                "cached_input_from": None if found is None else found.how,
            }
        )
    return rows if any(r["cached_input_share"] is not None for r in rows) else []
