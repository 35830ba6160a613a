"""/api/plan's answer: from demand at an SLO to replicas, GPUs, $/month and power per sweep."""

from __future__ import annotations

from typing import Literal

from app.domain.checks import Status
from app.domain.metrics import Basis
from app.schemas.answers.common import Answer, Difference, PlotlyFigure
from app.schemas.answers.readoff import SloOut
from app.schemas.answers.token_classes import SweepTokenClassesOut


class DemandOut(Answer):
    unit: str
    average: float
    peak: float
    peak_to_average: float
    headroom: float
    sized_for: float
    hours_per_month: float


class PlanOption(Answer):
    """A sweep under one price: what it costs a month at the demand (or just above it)."""

    key: str
    label: str
    sweep_id: int
    profile_id: int | None
    price: str
    usd_per_month: float | None


class PlanOperatingPoint(Answer):
    point_id: int
    concurrency: float | None
    request_rate: float | None
    interactivity_tok_s_user: float | None
    e2e_interactivity_tok_s_user: float | None = None  # only where samples were read (issue 49)
    split: str | None  # its own prefill:decode split ("8P + 8D"); null for aggregated serving


class PlanCost(Answer):
    """`breakdown_usd_per_month` splits an ownership profile's cost into its parts
    (capital_usd_per_month, power_usd_per_month, …); null for other kinds."""

    profile_id: int | None
    name: str
    kind: Literal["rental", "ownership", "inline"]
    usd_per_gpu_hour: float
    usd_per_month: float | None
    breakdown_usd_per_month: dict[str, float] | None
    usd_per_mtok_average: float | None
    cheapest: bool
    reason: str | None


class Unpriced(Answer):
    label: str
    reason: str


class PlanAgents(Answer):
    """Sized in concurrent sessions: the most a replica serves with session attainment ≥
    `target`, the attainment's Wilson interval there, and (conservative) the most whose lower
    end meets the target, with the fleet that sizes."""

    target: float
    concurrent_sessions_per_replica: float
    concurrent_sessions_per_replica_conservative: float | None
    point_id: int | None
    count: int | None
    attainment: float | None
    attainment_low: float | None
    attainment_high: float | None
    cut: int | None
    replicas_conservative: int | None
    gpus_conservative: int | None


class PlanResultOut(Answer):
    sweep_id: int
    name: str
    hardware: str
    num_gpus: int
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    fleet_prefill_gpus: int | None  # replicas × prefill GPUs (null: aggregated or not sized)
    fleet_decode_gpus: int | None
    throughput_per: str  # the accounting unit of goodput_tok_s_per_unit
    goodput_tok_s_per_unit: float | None
    status: Status
    reason: str | None
    cheapest: bool
    operating_point: PlanOperatingPoint | None
    goodput_tok_s_per_gpu: float | None
    goodput_requests_per_s: float | None
    input_tokens_per_request: float | None
    output_tokens_per_request: float | None
    goodput_requests_per_s_per_replica: float | None
    goodput_per_replica: float | None
    demand_requests_per_s_average: float | None
    replicas: int | None
    gpus: int | None
    utilization_peak: float | None
    utilization_average: float | None
    kw: float | None
    mwh_per_month: float | None
    power_reason: str | None
    basis: Basis
    costs: list[PlanCost]
    unpriced: list[Unpriced]
    usd_per_month: float | None
    agents: PlanAgents | None = None  # a demand in concurrent sessions (issue 49)


class ChartRange(Answer):
    low: float
    high: float


class Crossover(Answer):
    demand: float
    demand_multiple: float
    cheapest_below: PlanOption
    cheapest_above: PlanOption


class PlanPhysicsOut(Answer):
    """What physics allows a planned system (issue 50): the decode ceiling at its operating
    point with the decode phase's active parameters, the prefill bound with the prefill
    phase's, and whether the KV cache at the point's context bounds the batch (`rule`)."""

    sweep_id: int
    model_spec: str | None
    phases: str | None  # how the phases' active parameters differ; null when one count serves
    prefill_active_params_b: float | None
    decode_active_params_b: float | None
    ctx_tokens: int | None  # input + half the output tokens at the operating point
    kv_bytes_per_token: float | None
    kv_max_batch: int | None  # sequences whose KV fits after the weights
    batch: int | None  # the operating point's concurrency
    kv_binds: bool | None  # the concurrency is above the KV bound
    decode_ceiling_tok_s_per_gpu: float | None
    prefill_bound_tok_s_per_gpu: float | None  # prompt tokens per second per GPU
    words: str | None
    rule: str
    reason: str | None


class PlanCore(Answer):
    """The plan itself: what `paretoscope plan --format json` writes, and /api/plan begins with."""

    slo: SloOut
    demand: DemandOut
    cheapest: PlanOption | None
    refused: str | None  # why no cheapest is named (different scenarios, issue 49)
    same_configuration: bool
    differences: list[Difference]
    results: list[PlanResultOut]
    chart_range: ChartRange
    crossovers: list[Crossover]
    crossovers_exact: bool


class PlanOut(PlanCore):
    figure: PlotlyFigure
    # Each system's tokens by class at its operating point, at the API prices given (issue 50).
    token_classes: list[SweepTokenClassesOut]
    # Each system's physics: phases' active parameters and the KV bound (issue 50).
    physics: list[PlanPhysicsOut]
