"""The TypedDicts of app.schemas.answers.readoff: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.common import FigureIntervalDict
    from app.schemas.answers.typed.histograms import HistogramAttainmentOutDict
    from app.schemas.answers.typed.token_classes import TokenClassesOutDict
    from app.schemas.answers.typed.ttft_context import TtftContextOutDict


class SloOutDict(TypedDict):
    """app.schemas.answers.readoff.SloOut"""

    ttft_ms: float | None
    tpot_ms: float | None
    e2el_ms: float | None
    min_tok_s_user: float | None
    percentile: str
    ttft_percentile: str
    tpot_percentile: str
    e2el_percentile: str
    mode: Literal["percentile", "requests"]
    attainment: float
    basis: Literal["output", "total", "input"]
    stat: Literal["mean", "p50", "p90", "p95", "p99"]
    interpolation: Literal["staircase", "linear", "loglinear", "steffen"]
    description: str
    ci_level: float
    accounting: Literal["gpu", "decode_gpu", "prefill_gpu", "node", "kw"]
    throughput_per: str
    interactivity: Literal["tpot", "e2e"]
    interactivity_axis: str


class PriceColumnOutDict(TypedDict):
    """app.schemas.answers.readoff.PriceColumnOut"""

    label: str
    profile_ids: list[int]


class OperatingPointDict(TypedDict):
    """app.schemas.answers.readoff.OperatingPoint"""

    point_id: int
    concurrency: float | None
    request_rate: float | Literal["inf"] | None
    interactivity_tok_s_user: float | None
    e2e_interactivity_tok_s_user: NotRequired[float | None]
    split: str | None


class EstimateOutDict(TypedDict):
    """app.schemas.answers.readoff.EstimateOut"""

    tok_s_per_gpu: float
    load: float | None
    interactivity_tok_s_user: float | None
    between_point_ids: list[int]
    label: str


class ReadoffIntervalsDict(TypedDict):
    """app.schemas.answers.readoff.ReadoffIntervals"""

    goodput_tok_s_per_gpu: FigureIntervalDict
    goodput_requests_per_s: FigureIntervalDict
    attainment: FigureIntervalDict
    borderline_attainment: FigureIntervalDict | None


class SweepCostDict(TypedDict):
    """app.schemas.answers.readoff.SweepCost"""

    profile_id: int | None
    name: str
    usd_per_gpu_hour: float
    utilization: float
    usd_per_mtok: float | None
    reason: str | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )
    ci_reason: str | None


class PriceCellOutDict(TypedDict):
    """app.schemas.answers.readoff.PriceCellOut"""

    label: str
    price: str | None
    profile_id: int | None
    usd_per_gpu_hour: float | None
    usd_per_mtok: float | None
    reason: str | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )
    ci_reason: str | None


class StoredBoundDict(TypedDict):
    """app.schemas.answers.readoff.StoredBound"""

    stored_percentile: str
    stored_ms: float
    samples_ms: float
    side: Literal["at_least", "at_most"]


class LimitCheckDict(TypedDict):
    """app.schemas.answers.readoff.LimitCheck"""

    metric: Literal["ttft", "tpot", "e2el"]
    percentile: str
    value_ms: float | None
    limit_ms: float
    status: Literal["pass", "fail", "unknown"]
    source: Literal["stored", "samples", "bound"] | None
    n_samples: int | None
    n_without_tpot: int | None
    bound: StoredBoundDict | None


class FailedRequestsDict(TypedDict):
    """app.schemas.answers.readoff.FailedRequests"""

    failed: int
    issued: int
    text: str


class PointVerdictDict(TypedDict):
    """app.schemas.answers.readoff.PointVerdict"""

    point_id: int
    status: Literal["pass", "borderline", "fail", "unknown"]
    reason: str | None
    attainment: float | None
    attainment_ci_low: float | None
    attainment_ci_high: float | None
    runs_meeting_slo: int | None
    runs_at_load: int | None
    checks: list[LimitCheckDict]


class TokensPerJouleDict(TypedDict):
    """app.schemas.answers.readoff.TokensPerJoule"""

    measured: float | None
    estimate: float | None
    token_basis: Literal["output", "total", "input"]
    measured_power: str
    estimate_power: str
    measured_reason: str | None


class SessionsOutDict(TypedDict):
    """app.schemas.answers.readoff.SessionsOut"""

    point_id: int | None
    count: int | None
    met: int | None
    attainment: float | None
    attainment_low: float | None
    attainment_high: float | None
    cut: int | None
    unsessioned_requests: int | None
    reason: str | None


class TurnsOutDict(TypedDict):
    """app.schemas.answers.readoff.TurnsOut"""

    ttft_first_ms: float | None
    ttft_later_ms: float | None
    first_requests: int | None
    later_requests: int | None
    percentile: float | None


class AgentsOutDict(TypedDict):
    """app.schemas.answers.readoff.AgentsOut"""

    concurrent_sessions: float | None
    concurrent_sessions_conservative: float | None
    per_gpu: float | None
    per_mw: float | None
    per_usd_hour: float | None
    reason: str | None


class ReadoffResultDict(TypedDict):
    """app.schemas.answers.readoff.ReadoffResult"""

    sweep_id: int
    name: str
    hardware: str
    num_gpus: int
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    split: str | None
    throughput_per: str
    status: Literal["pass", "borderline", "fail", "unknown"]
    borderline_reason: str | None
    failed_requests: FailedRequestsDict | None
    meets_slo: bool | None
    reason: str | None
    goodput_tok_s_per_gpu: float | None
    goodput_requests_per_s: float | None
    goodput_statistic: str | None
    best_run_tok_s_per_gpu: float | None
    operating_point: OperatingPointDict | None
    estimate: EstimateOutDict | None
    tok_s_per_mw: float | None
    sessions: SessionsOutDict
    turns: TurnsOutDict
    agents: AgentsOutDict
    scenario: str | None
    tokens_per_joule: TokensPerJouleDict
    joint_attainment_bounds: tuple[float, float] | None
    note: str
    ci_level: float
    intervals: ReadoffIntervalsDict | None
    costs: list[SweepCostDict]
    points: NotRequired[list[PointVerdictDict] | None]


class ReadoffRowDict(ReadoffResultDict):
    """app.schemas.answers.readoff.ReadoffRow"""

    price_cells: list[PriceCellOutDict]
    histogram_attainment: NotRequired[list[HistogramAttainmentOutDict] | None]
    token_classes: NotRequired[TokenClassesOutDict | None]
    ttft_vs_context: NotRequired[TtftContextOutDict | None]


class ReadoffOutDict(TypedDict):
    """app.schemas.answers.readoff.ReadoffOut"""

    slo: SloOutDict
    price_columns: list[PriceColumnOutDict]
    results: list[ReadoffRowDict]


class FrontierPointDict(TypedDict):
    """app.schemas.answers.readoff.FrontierPoint"""

    point_id: int
    concurrency: float | None
    request_rate: float | Literal["inf"] | None
    x: float
    y: float
    split: str | None


class ExcludedPointDict(TypedDict):
    """app.schemas.answers.readoff.ExcludedPoint"""

    point_id: int
    reason: str


class BandOutDict(TypedDict):
    """app.schemas.answers.readoff.BandOut"""

    sweep_id: int
    name: str
    reason: str | None
    method: Literal["bootstrap-requests", "bootstrap-runs"] | None
    level: float | None
    interpolation: str | None
    resamples: int | None
    seed: int | None
    x_tok_s_user: list[float]
    tok_s_per_gpu: list[float | None]
    low_tok_s_per_gpu: list[float | None]
    high_tok_s_per_gpu: list[float | None]


class SweepFrontierDict(TypedDict):
    """app.schemas.answers.readoff.SweepFrontier"""

    sweep_id: int
    name: str
    frontier: list[FrontierPointDict]
    dominated: list[FrontierPointDict]
    excluded: list[ExcludedPointDict]
    band: NotRequired[BandOutDict | None]


class FrontierOutDict(TypedDict):
    """app.schemas.answers.readoff.FrontierOut"""

    stat: Literal["mean", "p50", "p90", "p95", "p99"]
    basis: Literal["output", "total", "input"]
    accounting: Literal["gpu", "decode_gpu", "prefill_gpu", "node", "kw"]
    x: str
    interactivity: Literal["tpot", "e2e"]
    y: str
    sweeps: list[SweepFrontierDict]
