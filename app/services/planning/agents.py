"""A plan sized in concurrent sessions (agents, issue 49).

A replica serves the most concurrent sessions whose session attainment (the share of sessions in
which every turn met the SLO) meets the target: app.domain.sessions.agents_at_slo, read as
/api/readoff's `agents`. Replicas = ⌈peak sessions × (1 + headroom) ÷ sessions per replica⌉.
The interval: the same sizing from the most concurrent sessions whose Wilson *lower* end meets
the target (`conservative`), never fewer replicas than the point estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from app.domain import plan as domain
from app.domain.plan import Demand, Sizing, Status
from app.domain.point import PointMetrics
from app.domain.sessions import NO_JUDGED_SESSIONS, SessionStats
from app.schemas.answers.typed.plan import PlanAgentsDict
from app.services.sweeps.sessions import SweepSessions, is_multi_turn

NOT_MULTI_TURN = (
    "not a multi-turn run: concurrent sessions are sized only from request samples that carry "
    "session ids"
)


@dataclass(frozen=True)
class AgentSizing:
    """Sessions per replica at the target and at its Wilson lower end, with the fleets each
    sizes, and the sessions judged at the load level the point estimate is read at."""

    target: float
    per_replica: float
    per_replica_conservative: float | None
    concurrency_point_id: int | None
    stats: SessionStats | None
    sizing: Sizing
    conservative: Sizing | None

    def as_json(self) -> PlanAgentsDict:
        s, c = self.stats, self.conservative
        return {
            "target": self.target,
            "concurrent_sessions_per_replica": self.per_replica,
            "concurrent_sessions_per_replica_conservative": self.per_replica_conservative,
            "point_id": self.concurrency_point_id,
            # The sessions judged there, as session_stats_json gives them (null without).
            "count": None if s is None else s.count,
            "attainment": None if s is None else s.attainment,
            "attainment_low": None if s is None else s.low,
            "attainment_high": None if s is None else s.high,
            "cut": None if s is None else s.cut,
            "replicas_conservative": None if c is None else c.replicas,
            "gpus_conservative": None if c is None else c.gpus,
        }


class Planned(Protocol):
    """What of app.services.planning.sizing.PlanResult this sets."""

    status: Status
    reason: str | None
    goodput_requests_per_s_per_replica: float | None
    goodput_per_replica: float | None
    demand_requests_per_s_average: float | None
    sizing: Sizing | None


def size(
    result: Planned,
    figures: SweepSessions | None,
    scenario: str | None,
    points: list[PointMetrics],
    demand: Demand,
    gpus: int,
    target: float,
) -> AgentSizing | None:
    """Size `result` for `demand` concurrent sessions; None (status and reason set) when the
    sweep has no load level whose session attainment meets the target."""
    agents = None if figures is None else figures.agents
    if agents is None or agents.concurrency is None:
        judged = agents is not None and agents.reason != NO_JUDGED_SESSIONS
        result.status = "fail" if judged else "unknown"
        if agents is not None:
            result.reason = agents.reason
        elif not is_multi_turn(scenario) or figures is None:
            result.reason = NOT_MULTI_TURN
        else:
            result.reason = figures.reason
        return None
    assert figures is not None
    result.status, result.reason = "pass", None
    sizing = domain.size_fleet(demand, agents.concurrency, gpus)
    sure = agents.conservative
    conservative = domain.size_fleet(demand, sure, gpus) if sure else None
    point = next((p for p in points if p.point_id == figures.agents_point_id), None)
    result.goodput_per_replica = agents.concurrency
    result.sizing = sizing
    if point is not None:
        rps = point.requests_per_s
        if rps is not None and rps > 0 and math.isfinite(rps):
            result.goodput_requests_per_s_per_replica = rps
            # Each session at that load sends rps ÷ sessions requests a second.
            result.demand_requests_per_s_average = demand.average * rps / agents.concurrency
    return AgentSizing(
        target,
        agents.concurrency,
        sure,
        figures.agents_point_id,
        figures.at_agents,
        sizing,
        conservative,
    )
