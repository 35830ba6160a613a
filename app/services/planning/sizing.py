"""A capacity plan: the read-off of /api/readoff per sweep, sized for a demand and priced per month.

The operating point and goodput come from `analysis.run` with the same parameters /api/readoff
uses, so a plan never disagrees with the read-off table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import polars as pl
from sqlalchemy.orm import Session

from app.domain import plan as domain
from app.domain.accounting import UNIT_WORDS, from_per_gpu
from app.domain.likeness import Likeness, between, scenario_refusal
from app.domain.metrics import Basis
from app.domain.plan import Crossover, Demand, RequestShape, Sizing, Status, StepOption
from app.domain.request_goodput import request_counts
from app.schemas.readoff import ReadoffQuery
from app.services import analysis
from app.services.analysis import Params, SweepAnalysis
from app.services.planning import agents as agent_sizing
from app.services.planning import costs
from app.services.planning.agents import AgentSizing
from app.services.planning.costs import PlanCost
from app.services.readoff import price_columns
from app.services.readoff.document import operating_split_counts
from app.services.readoff.query import params_of
from app.services.sweeps.units import sweep_units
from app.store import pricing as pricing_queries
from app.store import sweeps as sweep_queries

# The tokens a demand unit counts: output tokens/s, or input + output tokens a day.
TOKEN_BASIS: dict[str, Basis] = {"output_tok_s": "output", "tokens_per_day": "total"}


@dataclass
class PlanResult:
    analysis: SweepAnalysis
    status: Status
    reason: str | None
    shape: RequestShape
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    goodput_requests_per_s_per_replica: float | None = None
    goodput_per_replica: float | None = None  # in the demand unit
    demand_requests_per_s_average: float | None = None
    sizing: Sizing | None = None
    kw: float | None = None
    mwh_per_month: float | None = None
    power_reason: str | None = None
    # The read-off's goodput per the query's accounting unit (issue 37): sizing stays per GPU.
    throughput_per: str = "GPU"
    goodput_tok_s_per_unit: float | None = None
    costs: list[PlanCost] = field(default_factory=list)  # the prices of its own GPU (and yours)
    # (price column, why it has no price for this GPU): never another GPU's price
    unpriced: list[tuple[str, str]] = field(default_factory=list)
    cheapest: bool = False
    agents: AgentSizing | None = None  # a demand in concurrent sessions (issue 49)

    @property
    def sweep_id(self) -> int:
        return int(self.analysis.meta.id)

    @property
    def fleet_split(self) -> tuple[int, int] | None:
        """The fleet's prefill and decode GPUs apart (replicas × each side), None when the
        sweep is aggregated or not sized."""
        p, d, s = self.num_prefill_gpus, self.num_decode_gpus, self.sizing
        if p is None or d is None or s is None:
            return None
        return s.replicas * p, s.replicas * d

    @property
    def name(self) -> str:
        return str(self.analysis.meta.name)


@dataclass(frozen=True)
class Option:
    """A line on the chart: one sweep under one price that meets the SLO."""

    result: PlanResult
    cost: PlanCost
    step: StepOption

    @property
    def label(self) -> str:
        return f"{self.result.name} · {self.cost.price.name}"


@dataclass
class Plan:
    demand: Demand
    params: Params
    results: list[PlanResult]
    options: list[Option]
    crossovers: list[Crossover]
    crossovers_exact: bool
    allow_different: bool = False  # rank systems of different scenarios together (issue 49)

    @property
    def refused(self) -> str | None:
        """Why no cheapest is named: the systems measured different scenarios (an agentic
        replay and a fixed-length run), and the query did not allow it."""
        return None if self.allow_different else scenario_refusal(self.likeness)

    @property
    def cheapest(self) -> Option | None:
        if self.refused:
            return None
        return next((o for o in self.options if o.cost.cheapest), None)

    def option(self, key: str) -> Option:
        return next(o for o in self.options if o.step.key == key)

    @property
    def likeness(self) -> Likeness:
        """What differs among the systems planned: the cheapest of different models or
        workloads serves different work."""
        return between(*(r.analysis.meta.as_dict() for r in self.results))


def run(session: Session, sweep_ids: list[int], query: ReadoffQuery, demand: Demand) -> Plan:
    """Read off each sweep exactly as /api/readoff does, then size and price its fleet."""
    # Sizing counts whole deployments per GPU; the accounting mode only restates the goodput.
    params = replace(params_of(query), accounting="gpu")
    # The prices on screen: a price set stands for one profile per GPU, as on Explore.
    columns = price_columns.columns_for(
        session, query.price_set, query.pricing, query.usd_per_gpu_hour
    )
    profile_ids = price_columns.profile_ids(columns)
    analyses, prices = analysis.run(session, sweep_ids, params, profile_ids, query.usd_per_gpu_hour)
    kinds, hourly = costs.price_details(session, profile_ids)
    split = {
        s.id: (s.num_prefill_gpus, s.num_decode_gpus)
        for s in sweep_queries.sweeps_in_order(session, sweep_ids)
    }
    catalog_rows = tuple(pricing_queries.hardware_catalog(session))
    power = pricing_queries.allin_kw_by_hardware(session)
    results = []
    for a in analyses:
        prefill, decode = split.get(int(a.meta.id), (None, None))
        if a.point_splits:  # the split changes along the sweep: the operating point's own
            prefill, decode = operating_split_counts(a) or (prefill, decode)
        result = _plan_one(a, params, demand, prefill, decode)
        meta = replace(a.meta, num_prefill_gpus=prefill, num_decode_gpus=decode)
        counted = sweep_units(query.accounting, meta, catalog_rows, power)
        result.throughput_per = UNIT_WORDS[query.accounting]
        result.goodput_tok_s_per_unit = from_per_gpu(
            a.readoff.goodput_tok_s_per_gpu, a.meta.num_gpus, counted.count
        )
        hardware = str(a.meta.hardware or "")
        own = [p for p in prices if p.applies_to(hardware)]
        result.costs = [costs.cost_of(result, p, kinds, hourly, params.basis) for p in own]
        result.unpriced = costs.unpriced(columns, prices, hardware)
        results.append(result)
    options = _options(results, demand)
    _mark_cheapest(options)
    low, high = domain.demand_range(demand.average)
    found, exact = domain.crossovers([o.step for o in options], low, high, demand.sizing_factor)
    return Plan(demand, params, results, options, found, exact, query.allow_different)


def _plan_one(
    a: SweepAnalysis,
    params: Params,
    demand: Demand,
    prefill: int | None,
    decode: int | None,
) -> PlanResult:
    readoff = a.readoff
    op = readoff.operating_point
    shape = _shape(a, op.point_id) if op is not None else RequestShape(None, None)
    status = readoff.status  # the same three states as /api/readoff
    result = PlanResult(a, status, readoff.reason, shape, prefill, decode)
    _power(result, a)
    if demand.unit == "concurrent_sessions":
        return _plan_agents(result, a, params, demand)
    if status != "pass":
        return result
    goodput = readoff.goodput_requests_per_s
    if goodput is None or not goodput > 0:
        return _unknown(result, "meets the SLO, but request throughput was not measured there")
    per_request = domain.unit_per_request(demand.unit, shape)
    if per_request is None:
        return _unknown(result, f"meets the SLO, but {domain.missing_lengths(demand.unit)}")
    gpus = int(a.meta.num_gpus)
    capacity = goodput * per_request
    if demand.unit != "requests_per_s":
        basis = TOKEN_BASIS[demand.unit]
        token_goodput = _token_goodput(a, params, basis)
        if token_goodput is not None and not token_goodput > 0:
            return _unknown(result, f"meets the SLO, but no {basis} tokens were measured there")
        if token_goodput is not None:
            # The read-off's own token goodput × GPUs (× a day): good requests' tokens, never
            # good requests × the mean length of all requests.
            per_day = demand.unit == "tokens_per_day"
            capacity = token_goodput * gpus * (domain.SECONDS_PER_DAY if per_day else 1.0)
    result.goodput_requests_per_s_per_replica = goodput
    result.goodput_per_replica = capacity
    result.demand_requests_per_s_average = demand.average / per_request
    result.sizing = domain.size_fleet(demand, result.goodput_per_replica, gpus)
    return _fleet_power(result, a)


def _fleet_power(result: PlanResult, a: SweepAnalysis) -> PlanResult:
    if a.allin_kw is not None and result.sizing is not None:
        result.kw = domain.fleet_kw(a.allin_kw, result.sizing.gpus)
        result.mwh_per_month = domain.mwh_per_month(result.kw)
    return result


def _plan_agents(
    result: PlanResult, a: SweepAnalysis, params: Params, demand: Demand
) -> PlanResult:
    """Sized in concurrent sessions: from the sweep's agents at the SLO, not its goodput."""
    result.agents = agent_sizing.size(
        result,
        a.sessions,
        a.meta.scenario,
        a.points,
        demand,
        int(a.meta.num_gpus),
        params.slo.attainment,
    )
    at = None if result.agents is None else result.agents.concurrency_point_id
    if at is not None:  # $/Mtok from the request shape at the load the sessions are read at
        result.shape = _shape(a, at)
    return _fleet_power(result, a)


def _token_goodput(a: SweepAnalysis, params: Params, basis: Basis) -> float | None:
    """Token goodput per GPU on `basis` at the read-off's operating point: the read-off's own
    on its basis; on another, the operating point's measured throughput (percentile mode) or
    its good requests' tokens ÷ duration (per-request mode). None when not measured."""
    readoff = a.readoff
    op = readoff.operating_point
    if op is None:
        return None
    if readoff.basis == basis:
        return readoff.goodput_tok_s_per_gpu
    point = next(p for p in a.points if p.point_id == op.point_id)
    if readoff.mode != "per_request":
        return point.tok_s_per_gpu(basis)
    if a.samples is None or point.duration_s is None or not point.duration_s > 0:
        return None
    mine = a.samples.filter(pl.col("point_id") == op.point_id)
    counted = request_counts(mine, params.slo.limits(), basis, params.ci_level).get(op.point_id)
    if counted is None:
        return None
    return counted.stats(point.duration_s, point.num_gpus).goodput_tok_s_per_gpu


def _unknown(result: PlanResult, reason: str) -> PlanResult:
    result.status = "unknown"
    result.reason = reason
    return result


def _power(result: PlanResult, a: SweepAnalysis) -> None:
    if a.allin_kw is None:
        result.power_reason = f"the hardware catalog has no all-in kW for {a.meta.hardware}"


def _shape(a: SweepAnalysis, point_id: int) -> RequestShape:
    """Mean tokens per request at the operating point: the length columns, else tok/s ÷ req/s."""
    point = next(p for p in a.points if p.point_id == point_id)
    out, inp, rps = point.output_len, point.input_len, point.requests_per_s
    out_tok_s, total_tok_s = point.output_tok_s, point.total_tok_s
    if rps is not None and rps > 0 and math.isfinite(rps):
        if out is None and out_tok_s is not None:
            out = out_tok_s / rps
        if inp is None and out_tok_s is not None and total_tok_s is not None:
            inp = (total_tok_s - out_tok_s) / rps
    return RequestShape(inp, out)


def _options(results: list[PlanResult], demand: Demand) -> list[Option]:
    options = []
    for r in results:
        if r.status != "pass" or r.goodput_per_replica is None:
            continue
        gpus = int(r.analysis.meta.num_gpus)
        for i, c in enumerate(r.costs):
            if c.usd_per_month is None:
                continue
            step = StepOption(
                key=f"{r.sweep_id}:{i}",
                goodput_per_replica=r.goodput_per_replica,
                usd_per_month_per_replica=domain.usd_per_month(c.price.usd_per_gpu_hour, gpus),
            )
            options.append(Option(r, c, step))
    return options


def _mark_cheapest(options: list[Option]) -> None:
    """The lowest $/month among options that meet the SLO (the first listed on a tie)."""
    best: Option | None = None
    for option in options:
        monthly = option.cost.usd_per_month
        if monthly is None:
            continue
        if best is None or monthly < (best.cost.usd_per_month or math.inf):
            best = option
    if best is not None:
        best.cost.cheapest = True
        best.result.cheapest = True
