"""The series picker: a bounded search grouped by model and hardware, the cap on series, and the
frontier leaders of the filtered set.

Explore draws at most MAX_SERIES sweeps; a selection beyond it is cut, and every sweep cut is
named (never dropped silently).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from app.domain import likeness
from app.domain.accounting import Accounting
from app.domain.leaders import FrontierPoint, frontier_leaders
from app.domain.metrics import Basis, deployment_tok_s, interactivity_tok_s_user, tok_s_per_gpu
from app.domain.point import Stat
from app.domain.sweep_meta import SWEEP_META_FIELDS, SweepMeta
from app.schemas.answers.typed.explore import PickerOutDict, PickerSweepDict
from app.services.sweeps.likeness import DESCRIPTION
from app.services.sweeps.units import sweep_units
from app.store import point_front, sweep_search
from app.store import pricing as pricing_queries
from app.store import sweeps as sweep_queries
from app.store.db import in_values
from app.store.models import Sweep
from app.store.sweep_search import SweepFilters, where

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
class WorkGroup:
    """Matching sweeps serving one model and workload (ISL/OSL): the leaders rank within one."""

    key: str  # stable text naming the group in a URL (`leaders_group`)
    label: str  # `llama-3-8b · shared-prefix · 192/64`
    sweeps: int


@dataclass(frozen=True)
class LeaderResult:
    chosen: list[int]
    dropped: list[int]
    frontier_points: dict[int, int]
    truncated: bool  # more frontier candidates than LEADER_POINT_LIMIT: only the first were read
    group: WorkGroup | None = None  # the model and workload ranked
    # Every model and workload among the matching sweeps (demo and mock left out unless asked).
    groups: list[WorkGroup] = field(default_factory=list)
    # Demo or mock-server sweeps left out: (id, name).
    excluded: list[tuple[int, str]] = field(default_factory=list)
    include_demo: bool = False
    accounting: Accounting = "gpu"  # what frontier throughput was counted per

    @property
    def needs_group(self) -> bool:
        """The matching sweeps serve several models or workloads and none was chosen."""
        return self.group is None and len(self.groups) > 1


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


def leaders(  # noqa: PLR0913 (the page state, keyword options)
    session: Session,
    filters: SweepFilters,
    stat: Stat,
    basis: Basis,
    cap: int = MAX_SERIES,
    point_limit: int = LEADER_POINT_LIMIT,
    *,
    group: str | None = None,
    include_demo: bool = False,
    accounting: Accounting = "gpu",
) -> LeaderResult:
    """The sweeps owning points of the joint Pareto frontier (tok/s per GPU against tok/s per
    user at `stat` TPOT) of the sweeps matching `filters` that serve one model and workload,
    up to `cap` of them.

    Like with like: demo (synthetic) and mock-server sweeps are left out unless
    `include_demo`; the rest are grouped by model, workload and ISL/OSL
    (app.domain.likeness.work_key). One group is ranked: the only one, or `group` (a
    WorkGroup.key). When the matching sweeps span several and none is named, nothing is chosen
    and `groups` lists them for the user to pick one. The database narrows the points to the
    frontier's candidates; the domain decides. Throughput is counted per `accounting` unit,
    as the chart: per decode or prefill GPU a point with its own split counts its own."""
    members, groups, excluded = _work_groups(session, filters, include_demo)
    chosen_group = next((g for g in groups if g.key == group), None)
    if chosen_group is None and len(groups) == 1:
        chosen_group = groups[0]
    if chosen_group is None:
        return LeaderResult([], [], {}, False, None, groups, excluded, include_demo, accounting)
    column = f"tpot_{stat}_ms"
    only = members[chosen_group.key]
    rows = point_front.frontier_candidates(
        session,
        filters,
        column,
        basis,
        point_limit + 1,
        only=only,
        units=None if accounting == "gpu" else _units(session, only, accounting),
        own_role={"decode_gpu": "decode", "prefill_gpu": "prefill"}.get(accounting),
    )
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
    return LeaderResult(
        found.chosen,
        found.dropped,
        found.frontier_points,
        truncated,
        chosen_group,
        groups,
        excluded,
        include_demo,
        accounting,
    )


def _units(session: Session, ids: set[int], accounting: Accounting) -> dict[int, float | None]:
    """Each sweep's count of `accounting` units (None: unknown) from its split and catalog row."""
    hardware = tuple(pricing_queries.hardware_catalog(session))
    power = pricing_queries.allin_kw_by_hardware(session)
    fields = [getattr(Sweep, c) for c in SWEEP_META_FIELDS]
    metas = session.execute(select(*fields).where(in_values(session, Sweep.id, list(ids))))
    return {
        meta.id: sweep_units(accounting, meta, hardware, power).count
        for meta in (SweepMeta(*row) for row in metas)
    }


def _work_groups(
    session: Session, filters: SweepFilters, include_demo: bool
) -> tuple[dict[str, set[int]], list[WorkGroup], list[tuple[int, str]]]:
    """The matching sweeps' ids by work group, the groups (most sweeps first, then by label),
    and the demo or mock-server sweeps left out."""
    columns = [Sweep.id, Sweep.name, *(getattr(Sweep, c) for c in DESCRIPTION)]
    query = cast("Select[Any]", select(*columns))
    members: dict[str, set[int]] = {}
    labels: dict[str, str] = {}
    excluded: list[tuple[int, str]] = []
    for row in session.execute(where(query, filters).order_by(Sweep.id)):
        system = likeness.system_of(dict(zip(DESCRIPTION, row[2:], strict=True)))
        if system.source != likeness.MEASURED and not include_demo:
            excluded.append((int(row[0]), str(row[1])))
            continue
        key = json.dumps(likeness.work_key(system))
        members.setdefault(key, set()).add(int(row[0]))
        labels.setdefault(key, likeness.work_label(system))
    groups = [WorkGroup(k, labels[k], len(ids)) for k, ids in members.items()]
    groups.sort(key=lambda g: (-g.sweeps, g.label.lower(), g.key))
    return members, groups, excluded


def sweep_json(sweep: Sweep) -> PickerSweepDict:
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


def picker_json(pick: Picker) -> PickerOutDict:
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
