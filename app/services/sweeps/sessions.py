"""Sessions, turns and agents at the SLO beside each read-off (issue 49).

Read from a sweep's request samples when they carry session ids: session attainment and TTFT by
turn at the read-off's operating point, and agents at your SLO over every load level. Samples
are decoded only for sweeps that say they are multi-turn (a scenario other than fixed-seq-len)
or whose samples the read-off has loaded anyway (per-request mode, the E2E axis), so a
fixed-length Explore view reads nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import polars as pl
from sqlalchemy.orm import Session

from app.domain.checks import percentile_percent
from app.domain.numbers import fmt_count
from app.domain.point import PointMetrics
from app.domain.sessions import (
    AgentsAtSlo,
    E2EInteractivity,
    SessionStats,
    TurnTtft,
    agents_at_slo,
    e2e_interactivity,
    session_attainment,
    ttft_by_turn,
)
from app.domain.slo import Readoff
from app.domain.sweep_meta import SweepMeta
from app.domain.verdict import Slo
from app.schemas.answers.typed.compare import SessionsBriefDict, TurnsBriefDict
from app.schemas.answers.typed.readoff import AgentsOutDict, SessionsOutDict, TurnsOutDict
from app.schemas.answers.typed.sweeps import TurnRowDict
from app.services.prices import Cost
from app.store import points as point_queries
from app.store.points import SweepPoints


class Params(Protocol):
    """What of app.services.analysis.Params this reads (analysis calls `attach`)."""

    @property
    def slo(self) -> Slo: ...
    @property
    def ci_level(self) -> float: ...
    @property
    def e2e_percentile(self) -> float: ...


class SweepAnalysis(Protocol):
    """What of app.services.analysis.SweepAnalysis this reads and sets."""

    meta: SweepMeta
    points: list[PointMetrics]
    readoff: Readoff
    costs: list[Cost]
    allin_kw: float | None
    derived: dict[Any, Any]
    sessions: SweepSessions | None


FIXED_LENGTH = "fixed-seq-len"


@dataclass
class SweepSessions:
    """A sweep's session figures; `reason` says why sessions are unknown."""

    point_id: int | None = None  # where sessions and turns are read: the operating point
    sessions: SessionStats | None = None
    turns: TurnTtft | None = None
    agents: AgentsAtSlo | None = None
    e2e: dict[int, E2EInteractivity] = field(default_factory=dict)
    reason: str | None = None
    # The load level agents are read at (the most concurrent sessions meeting the target) and
    # its sessions: what Plan sizes a fleet of concurrent sessions from.
    agents_point_id: int | None = None
    at_agents: SessionStats | None = None


def is_multi_turn(scenario: str | None) -> bool:
    return scenario is not None and scenario != FIXED_LENGTH


def attach(
    session: Session,
    results: Sequence[SweepAnalysis],
    sweeps: list[SweepPoints],
    params: Params,
    loaded: dict[int, pl.DataFrame] | None,
) -> None:
    """Set each result's `sessions` (samples decoded only where the docstring says)."""
    have = dict(loaded or {})
    wanted = [s for s in sweeps if s.meta.id not in have and is_multi_turn(s.meta.scenario)]
    if wanted:
        have |= point_queries.sweeps_samples(session, wanted)
    for result in results:
        result.sessions = of(result, params, have.get(result.meta.id))


def _ttft_percentile(params: Params) -> float:
    return percentile_percent(params.slo.stat("ttft")) if params.slo.ttft_ms else 50.0


def of(result: SweepAnalysis, params: Params, samples: pl.DataFrame | None) -> SweepSessions:
    """One sweep's session figures from its samples (None: not read)."""
    if samples is None:
        return SweepSessions(reason="not a multi-turn run: its request samples were not read")
    if samples.is_empty():
        return SweepSessions(reason="no request samples")
    e2e = e2e_interactivity(samples, params.e2e_percentile)
    if "session_id" not in samples.columns or samples["session_id"].null_count() == samples.height:
        return SweepSessions(e2e=e2e, reason="no session ids in the request samples")
    key = ("sessions", params.slo, params.ci_level)
    found = result.derived.get(key)
    if found is None:
        found = (
            session_attainment(samples, params.slo.limits(), params.ci_level),
            ttft_by_turn(samples, _ttft_percentile(params)),
        )
        result.derived[key] = found
    by_point, turns = found
    cost = next((c for c in result.costs if c.price.usd_per_gpu_hour), None)
    agents = agents_at_slo(
        [(p.concurrency, by_point.get(p.point_id)) for p in result.points],
        params.slo.attainment,
        result.meta.num_gpus,
        result.allin_kw,
        None if cost is None else cost.price.usd_per_gpu_hour,
    )
    at = _agents_point(result.points, by_point, agents, params.slo.attainment)
    at_stats = None if at is None else by_point.get(at)
    op = result.readoff.operating_point
    if op is None:
        none_met = "no operating point: no load level meets the SLO"
        return SweepSessions(
            agents=agents, e2e=e2e, reason=none_met, agents_point_id=at, at_agents=at_stats
        )
    stats = by_point.get(op.point_id)
    reason = None if stats is not None else "no session ids at the operating point"
    if stats is not None and stats.attainment is None:
        reason = f"every session at the operating point is cut ({fmt_count(stats.cut, 'session')})"
    found = SweepSessions(op.point_id, stats, turns.get(op.point_id), agents, e2e, reason)
    found.agents_point_id, found.at_agents = at, at_stats
    return found


def _agents_point(
    points: Sequence[PointMetrics],
    by_point: dict[int, SessionStats],
    agents: AgentsAtSlo,
    target: float,
) -> int | None:
    """The first load level at the agents' concurrency whose session attainment meets the target
    (repeated runs of one load: the first listed that meets it)."""
    if agents.concurrency is None:
        return None
    for p in points:
        stats = by_point.get(p.point_id)
        met = stats is not None and stats.attainment is not None and stats.attainment >= target
        if p.concurrency == agents.concurrency and met:
            return p.point_id
    return None


def sessions_json(figures: SweepSessions | None) -> SessionsOutDict:
    """`sessions` of a read-off result: count, attainment with its Wilson ends, cut."""
    stats = None if figures is None else figures.sessions
    return {
        "point_id": None if figures is None else figures.point_id,
        "count": None if stats is None else stats.count,
        "met": None if stats is None else stats.good,
        "attainment": None if stats is None else stats.attainment,
        "attainment_low": None if stats is None else stats.low,
        "attainment_high": None if stats is None else stats.high,
        "cut": None if stats is None else stats.cut,
        "unsessioned_requests": None if stats is None else stats.unsessioned,
        "reason": "not read" if figures is None else figures.reason,
    }


def turns_json(figures: SweepSessions | None) -> TurnsOutDict:
    """`turns` of a read-off result: TTFT of first turns and of later turns."""
    turns = None if figures is None else figures.turns
    return {
        "ttft_first_ms": None if turns is None else turns.first_ms,
        "ttft_later_ms": None if turns is None else turns.later_ms,
        "first_requests": None if turns is None else turns.first_requests,
        "later_requests": None if turns is None else turns.later_requests,
        "percentile": None if turns is None else turns.percentile,
    }


def compact_sessions(figures: SweepSessions | None) -> SessionsBriefDict | None:
    """`sessions` where an answer must stay small (Compare, MCP): the judged count, the share
    met with its Wilson ends, and the cut ones; None when no session was judged."""
    return session_stats_json(None if figures is None else figures.sessions)


def session_stats_json(stats: SessionStats | None) -> SessionsBriefDict | None:
    """The judged count, the share met with its Wilson ends, and the cut sessions."""
    if stats is None:
        return None
    return {
        "count": stats.count,
        "attainment": stats.attainment,
        "attainment_low": stats.low,
        "attainment_high": stats.high,
        "cut": stats.cut,
    }


def compact_turns(figures: SweepSessions | None) -> TurnsBriefDict | None:
    """`turns` where an answer must stay small: first-turn and later-turn TTFT."""
    turns = None if figures is None else figures.turns
    if turns is None:
        return None
    return {"ttft_first_ms": turns.first_ms, "ttft_later_ms": turns.later_ms}


def agents_json(figures: SweepSessions | None) -> AgentsOutDict:
    """`agents`: the most concurrent sessions meeting the target, per GPU, MW and $/hour."""
    agents = None if figures is None else figures.agents
    return {
        "concurrent_sessions": None if agents is None else agents.concurrency,
        "concurrent_sessions_conservative": None if agents is None else agents.conservative,
        "per_gpu": None if agents is None else agents.per_gpu,
        "per_mw": None if agents is None else agents.per_mw,
        "per_usd_hour": None if agents is None else agents.per_usd_hour,
        "reason": (
            (figures.reason if figures is not None else "not read")
            if agents is None
            else agents.reason
        ),
    }


def turn_rows(
    samples: pl.DataFrame, points: Sequence[tuple[int, float | None, Any]]
) -> list[TurnRowDict]:
    """The sweep page's per-turn view: per point (id, concurrency, extra) with session ids, its
    sessions (judged and cut), TTFT of first and later turns at p50 and p90, E2E-normalized
    interactivity at p90 and the request accounting (warm-up and errored records) its file
    states. [] when no sample carries a session id."""
    if (
        samples.is_empty()
        or "session_id" not in samples.columns
        or samples["session_id"].null_count() == samples.height
    ):
        return []
    sessions = session_attainment(samples, [])
    medians, tails = ttft_by_turn(samples, 50.0), ttft_by_turn(samples, 90.0)
    e2e = e2e_interactivity(samples)
    rows: list[TurnRowDict] = []
    for point_id, concurrency, extra in points:
        stats = sessions.get(point_id)
        if stats is None:
            continue
        mid, tail, speed = medians.get(point_id), tails.get(point_id), e2e.get(point_id)
        accounting = extra.get("request_accounting") if isinstance(extra, dict) else None
        counts = accounting if isinstance(accounting, dict) else {}
        rows.append(
            {
                "point_id": point_id,
                "concurrency": concurrency,
                "sessions": stats.count + stats.cut,
                "cut": stats.cut,
                "unsessioned_requests": stats.unsessioned,
                "ttft_first_p50_ms": None if mid is None else mid.first_ms,
                "ttft_first_p90_ms": None if tail is None else tail.first_ms,
                "ttft_later_p50_ms": None if mid is None else mid.later_ms,
                "ttft_later_p90_ms": None if tail is None else tail.later_ms,
                "first_requests": None if mid is None else mid.first_requests,
                "later_requests": None if mid is None else mid.later_requests,
                "e2e_interactivity_p90_tok_s_user": None if speed is None else speed.tok_s_user,
                "e2el_per_token_p90_ms": None if speed is None else speed.ms_per_token,
                "warmup_dropped": counts.get("records_warmup_dropped"),
                "error_dropped": counts.get("records_error_dropped"),
            }
        )
    return rows
