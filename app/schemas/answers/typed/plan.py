"""The TypedDicts of app.schemas.answers.plan: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.common import DifferenceDict, PlotlyFigureDict
    from app.schemas.answers.typed.readoff import SloOutDict
    from app.schemas.answers.typed.token_classes import SweepTokenClassesOutDict


class DemandOutDict(TypedDict):
    """app.schemas.answers.plan.DemandOut"""

    unit: str
    average: float
    peak: float
    peak_to_average: float
    headroom: float
    sized_for: float
    hours_per_month: float


class PlanOptionDict(TypedDict):
    """app.schemas.answers.plan.PlanOption"""

    key: str
    label: str
    sweep_id: int
    profile_id: int | None
    price: str
    usd_per_month: float | None


class PlanOperatingPointDict(TypedDict):
    """app.schemas.answers.plan.PlanOperatingPoint"""

    point_id: int
    concurrency: float | None
    request_rate: float | None
    interactivity_tok_s_user: float | None
    e2e_interactivity_tok_s_user: NotRequired[float | None]
    split: str | None


class PlanCostDict(TypedDict):
    """app.schemas.answers.plan.PlanCost"""

    profile_id: int | None
    name: str
    kind: Literal["rental", "ownership", "inline"]
    usd_per_gpu_hour: float
    usd_per_month: float | None
    breakdown_usd_per_month: dict[str, float] | None
    usd_per_mtok_average: float | None
    cheapest: bool
    reason: str | None


class UnpricedDict(TypedDict):
    """app.schemas.answers.plan.Unpriced"""

    label: str
    reason: str


class PlanAgentsDict(TypedDict):
    """app.schemas.answers.plan.PlanAgents"""

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


class PlanResultOutDict(TypedDict):
    """app.schemas.answers.plan.PlanResultOut"""

    sweep_id: int
    name: str
    hardware: str
    num_gpus: int
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    fleet_prefill_gpus: int | None
    fleet_decode_gpus: int | None
    throughput_per: str
    goodput_tok_s_per_unit: float | None
    status: Literal["pass", "fail", "unknown"]
    reason: str | None
    cheapest: bool
    operating_point: PlanOperatingPointDict | None
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
    basis: Literal["output", "total", "input"]
    costs: list[PlanCostDict]
    unpriced: list[UnpricedDict]
    usd_per_month: float | None
    agents: NotRequired[PlanAgentsDict | None]


class ChartRangeDict(TypedDict):
    """app.schemas.answers.plan.ChartRange"""

    low: float
    high: float


class CrossoverDict(TypedDict):
    """app.schemas.answers.plan.Crossover"""

    demand: float
    demand_multiple: float
    cheapest_below: PlanOptionDict
    cheapest_above: PlanOptionDict


class PlanPhysicsOutDict(TypedDict):
    """app.schemas.answers.plan.PlanPhysicsOut"""

    sweep_id: int
    model_spec: str | None
    phases: str | None
    prefill_active_params_b: float | None
    decode_active_params_b: float | None
    ctx_tokens: int | None
    kv_bytes_per_token: float | None
    kv_max_batch: int | None
    batch: int | None
    kv_binds: bool | None
    decode_ceiling_tok_s_per_gpu: float | None
    prefill_bound_tok_s_per_gpu: float | None
    words: str | None
    rule: str
    reason: str | None


class PlanCoreDict(TypedDict):
    """app.schemas.answers.plan.PlanCore"""

    slo: SloOutDict
    demand: DemandOutDict
    cheapest: PlanOptionDict | None
    refused: str | None
    same_configuration: bool
    differences: list[DifferenceDict]
    results: list[PlanResultOutDict]
    chart_range: ChartRangeDict
    crossovers: list[CrossoverDict]
    crossovers_exact: bool


class PlanOutDict(PlanCoreDict):
    """app.schemas.answers.plan.PlanOut"""

    figure: PlotlyFigureDict
    token_classes: list[SweepTokenClassesOutDict]
    physics: list[PlanPhysicsOutDict]
