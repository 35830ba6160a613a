"""The series picker: a bounded search grouped by model and hardware, the cap on series, and the
frontier leaders of the filtered set.

Explore draws at most MAX_SERIES sweeps; a selection beyond it is cut, and every sweep cut is
named (never dropped silently).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from app.domain.leaders import FrontierPoint, frontier_leaders
from app.domain.metrics import Basis, deployment_tok_s, interactivity_tok_s_user, tok_s_per_gpu
from app.domain.point import Stat
from app.store import point_front, sweep_search
from app.store import sweeps as sweep_queries
from app.store.models import Sweep
from app.store.sweep_search import SweepFilters

MAX_SERIES = 20  # series drawn at once: beyond about 20 a chart's legend stops being readable
PICKER_LIMIT = 50  # matches listed besides the selected; search narrows the rest
# Frontier candidates read at most (a frontier has tens of points; this only bounds the query).
LEADER_POINT_LIMIT = 10_000


@dataclass(frozen=True)
class PickerGroup:
    model: str | None
    hardware: str
    sweeps: list[Sweep]

    @property
    def label(self) -> str:
        return f"{self.model or 'model not given'} · {self.hardware}"


@dataclass
class Picker:
    """What the picker lists: the selected sweeps (always), then up to `limit` other matches."""

    q: str | None
    selected: list[Sweep]
    groups: list[PickerGroup]
    total: int  # sweeps matching the filters and the search
    limit: int

    @property
    def listed(self) -> int:
        return sum(len(g.sweeps) for g in self.groups)

    @property
    def narrowed(self) -> bool:
        """More sweeps match than the picker lists: searching would narrow them down."""
        return self.listed < self.total - len(self.selected)


@dataclass
class Selection:
    """The sweeps drawn (at most MAX_SERIES, in order) and those asked for but cut."""

    selected: list[int]
    dropped: list[Sweep] = field(default_factory=list)
    leaders: LeaderResult | None = None


@dataclass(frozen=True)
class LeaderResult:
    chosen: list[int]
    dropped: list[int]
    frontier_points: dict[int, int]
    truncated: bool  # more frontier candidates than LEADER_POINT_LIMIT: only the first were read


def cap_selection(session: Session, wanted: list[int], cap: int = MAX_SERIES) -> Selection:
    """The first `cap` distinct ids; the rest are named as dropped."""
    ids = list(dict.fromkeys(wanted))
    return Selection(ids[:cap], sweeps_named(session, ids[cap:]))


def sweeps_named(session: Session, ids: list[int]) -> list[Sweep]:
    """The stored sweeps with these ids, in this order (to name them)."""
    return sweep_queries.sweeps_in_order(session, ids)


def picker(
    session: Session, filters: SweepFilters, selected: list[int], limit: int = PICKER_LIMIT
) -> Picker:
    """The selected sweeps and the newest `limit` other matches, grouped by model and hardware."""
    page = sweep_search.search(session, filters, limit, exclude=selected)
    return Picker(
        q=filters.q,
        selected=sweep_queries.sweeps_in_order(session, selected),
        groups=group(page.sweeps),
        total=page.total,
        limit=limit,
    )


def group(sweeps: list[Sweep]) -> list[PickerGroup]:
    """By model, then hardware (alphabetically; no model last); newest first in each group."""
    groups: dict[tuple[str | None, str], list[Sweep]] = {}
    for sweep in sweeps:
        groups.setdefault((sweep.model, sweep.hardware), []).append(sweep)
    ordered = sorted(groups, key=lambda k: (k[0] is None, (k[0] or "").lower(), k[1].lower()))
    return [PickerGroup(model, hardware, groups[(model, hardware)]) for model, hardware in ordered]


def leaders(
    session: Session,
    filters: SweepFilters,
    stat: Stat,
    basis: Basis,
    cap: int = MAX_SERIES,
    point_limit: int = LEADER_POINT_LIMIT,
) -> LeaderResult:
    """The sweeps owning points of the joint Pareto frontier (tok/s per GPU against tok/s per
    user at `stat` TPOT) of every sweep matching `filters`, up to `cap` of them.

    The database narrows the points to the frontier's candidates; the domain decides."""
    column = f"tpot_{stat}_ms"
    rows = point_front.frontier_candidates(session, filters, column, basis, point_limit + 1)
    truncated = len(rows) > point_limit
    rows = rows[:point_limit]
    points = [
        FrontierPoint(
            sweep_id,
            interactivity_tok_s_user(tpot),
            tok_s_per_gpu(deployment_tok_s(output, total, basis), gpus),
        )
        for sweep_id, gpus, tpot, output, total in rows
    ]
    found = frontier_leaders(points, cap)
    return LeaderResult(found.chosen, found.dropped, found.frontier_points, truncated)


def sweep_json(sweep: Sweep) -> dict[str, Any]:
    """What the picker shows of a sweep."""
    return {
        "id": sweep.id,
        "name": sweep.name,
        "model": sweep.model,
        "hardware": sweep.hardware,
        "num_gpus": sweep.num_gpus,
        "engine": sweep.engine,
        "precision": sweep.precision,
    }


def picker_json(pick: Picker) -> dict[str, Any]:
    return {
        "q": pick.q,
        "total": pick.total,
        "listed": pick.listed,
        "limit": pick.limit,
        "narrowed": pick.narrowed,
        "selected": [sweep_json(s) for s in pick.selected],
        "groups": [
            {
                "model": g.model,
                "hardware": g.hardware,
                "label": g.label,
                "sweeps": [sweep_json(s) for s in g.sweeps],
            }
            for g in pick.groups
        ],
    }
