"""A sweep list and one sweep as JSON: /api/sweeps, /api/sweeps/{id} and the MCP tools share them,
and what an answer names of the sweeps behind it (ids, names, content hashes)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.accounting import stored_splits_label
from app.domain.intervals import DEFAULT_LEVEL
from app.domain.lengths import check_lengths
from app.schemas.answers.typed.sweeps import (
    CachedInputRowDict,
    SweepDetailDict,
    SweepListDict,
    TurnRowDict,
)
from app.schemas.sweeps import SweepQuery
from app.services.readoff import cached_input, ttft_context
from app.services.sweeps import histogram_readoff, sessions
from app.services.sweeps.stated_figures import stated_rows
from app.services.upload.details import sweep_filters
from app.store import points as point_queries
from app.store import sweeps as q
from app.store import tags as tag_store
from app.store.db import in_values
from app.store.models import Sweep


def sweep_list(session: Session, params: SweepQuery) -> SweepListDict:
    """One page of the sweeps matching the filters and search, with the total: always bounded."""
    size = params.page_size
    rows, total = q.list_sweeps(session, sweep_filters(params), params.page, size)
    counts = q.point_counts(session, [s.id for s in rows])
    tags = tag_store.tags_by_sweep(session, [s.id for s in rows])
    return {
        "sweeps": [
            {**q.sweep_fields(s), "points": counts.get(s.id, 0), "tags": tags.get(s.id, [])}
            for s in rows
        ],
        "total": total,
        "page": params.page,
        "per_page": size,
    }


def sweep_detail(session: Session, sweep_id: int) -> SweepDetailDict:
    """One sweep with every stored column of its points."""
    sweep = q.get_sweep(session, sweep_id)
    samples = q.sample_counts(session, [p.id for p in sweep.points])
    points = [q.point_dict(p, samples.get(p.id, 0)) for p in sweep.points]
    frame = point_queries.samples_frame(session, sorted(samples)) if samples else None
    if frame is not None:  # TTFT against prompt length where points have request samples
        for point, row in zip(sweep.points, points, strict=True):
            if samples.get(point.id):
                row["ttft_vs_context"] = ttft_context.point_json(
                    frame, point.id, None, DEFAULT_LEVEL
                )
    # Measured mean ISL/OSL (request-weighted over points) beside the configured isl/osl; the
    # note is set only when they differ by more than 10 %, as on the page.
    lengths = check_lengths(
        sweep.isl, sweep.osl, [(p.input_len, p.output_len, p.num_requests) for p in sweep.points]
    )
    return {
        **q.sweep_fields(sweep),
        "points": points,
        "measured_isl": lengths.measured_isl,
        "measured_osl": lengths.measured_osl,
        "length_note": lengths.note,
        "tags": tag_store.tags_of(session, sweep_id),
        "split": split_of_points(sweep),
        "stated_figures": stated_rows(session, sweep.points),
        # Attainment bounds off the latency histograms a file kept, at the default SLO (issue
        # 51).
        "histogram_attainment": histogram_readoff.sweep_view(session, sweep.points),
        "cached_input": cached_input.cached_rows(sweep, frame),
        # Multi-turn runs (issue 49): sessions and TTFT by turn per point ([] for single-turn).
        "turns": turn_view(session, sweep) if any(samples.values()) else [],
    }


def cached_view(session: Session, sweep: Sweep, with_samples: bool) -> list[CachedInputRowDict]:
    """Each point's cached share of input and its source (`cached_input.cached_rows`)."""
    ids = [p.id for p in sweep.points]
    frame = point_queries.samples_frame(session, ids) if with_samples else None
    return cached_input.cached_rows(sweep, frame)


def turn_view(session: Session, sweep: Sweep) -> list[TurnRowDict]:
    """The per-turn view of a sweep with request samples (`sessions.turn_rows`)."""
    frame = point_queries.samples_frame(session, [p.id for p in sweep.points])
    points = [(p.id, p.concurrency, p.extra) for p in sweep.points]
    return sessions.turn_rows(frame, points)


def split_of_points(sweep: Sweep) -> str | None:
    """ "8P + 8D", or "varies: 4P + 12D … 8P + 8D (3 splits)" where points carry their own."""
    mine = (sweep.num_prefill_gpus, sweep.num_decode_gpus)
    return stored_splits_label(mine, (p.extra for p in sweep.points))


def sweeps_named(session: Session, sweep_ids: list[int]) -> list[dict[str, Any]]:
    """Id, name and content hash of each stored sweep of `sweep_ids`, in their order."""
    ids = list(dict.fromkeys(sweep_ids))
    if not ids:
        return []
    rows = session.execute(
        select(Sweep.id, Sweep.name, Sweep.content_hash).where(in_values(session, Sweep.id, ids))
    ).all()
    by_id = {r.id: {"id": r.id, "name": r.name, "content_hash": r.content_hash} for r in rows}
    return [by_id[i] for i in ids if i in by_id]
