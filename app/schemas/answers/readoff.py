"""A read-off as the API answers it: /api/readoff, and the same rows inside Explore, the claim
audit and check; each sweep's frontier (/api/frontier)."""

from __future__ import annotations

from typing import Literal

from app.domain.accounting import Accounting
from app.domain.checks import ShownStatus, Source, Status
from app.domain.intervals import Method
from app.domain.metrics import Basis
from app.domain.pareto import Interpolation
from app.domain.point import Metric, Stat
from app.schemas.answers.common import Answer, FigureInterval
from app.schemas.answers.histograms import HistogramAttainmentOut
from app.schemas.answers.sweeps import Rate
from app.schemas.answers.token_classes import TokenClassesOut
from app.schemas.answers.ttft_context import TtftContextOut


class SloOut(Answer):
    """The SLO applied; a limit not set is null."""

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
    basis: Basis
    stat: Stat
    interpolation: Interpolation
    description: str
    ci_level: float
    accounting: Accounting
    throughput_per: str  # the unit every tok_s_per_gpu figure is counted per
    interactivity: Literal["tpot", "e2e"]  # the x axis read (issue 49)
    interactivity_axis: str  # and its name, e.g. "E2E-normalized interactivity … p90 …"


class PriceColumnOut(Answer):
    label: str
    profile_ids: list[int]


class OperatingPoint(Answer):
    point_id: int
    concurrency: float | None
    request_rate: Rate | None
    interactivity_tok_s_user: float | None
    # E2E-normalized interactivity there (1000 / p-th percentile of E2EL ÷ OSL), present only
    # where samples were read (issue 49).
    e2e_interactivity_tok_s_user: float | None = None
    split: str | None  # its own prefill:decode split ("8P + 8D"); null for aggregated serving


class EstimateOut(Answer):
    """Goodput interpolated between the operating point and the next (failing) one."""

    tok_s_per_gpu: float
    load: float | None
    interactivity_tok_s_user: float | None
    between_point_ids: list[int]
    label: str


class ReadoffIntervals(Answer):
    goodput_tok_s_per_gpu: FigureInterval
    goodput_requests_per_s: FigureInterval
    attainment: FigureInterval
    # The attainment interval that makes a borderline read-off borderline (else null).
    borderline_attainment: FigureInterval | None


class SweepCost(Answer):
    """$/Mtok under one price that applies to the sweep's GPU (null with the reason)."""

    profile_id: int | None
    name: str
    usd_per_gpu_hour: float
    utilization: float
    usd_per_mtok: float | None
    reason: str | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: Method | None
    ci_reason: str | None


class PriceCellOut(Answer):
    """One price column: the price of the sweep's own GPU and its $/Mtok, or nulls and why."""

    label: str
    price: str | None
    profile_id: int | None
    usd_per_gpu_hour: float | None
    usd_per_mtok: float | None
    reason: str | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: Method | None
    ci_reason: str | None


class StoredBound(Answer):
    """The samples contradict a stored percentile, which bounds the value."""

    stored_percentile: str
    stored_ms: float
    samples_ms: float
    side: Literal["at_least", "at_most"]


class LimitCheck(Answer):
    metric: Metric
    percentile: str
    value_ms: float | None
    limit_ms: float
    status: Status
    source: Source | None
    n_samples: int | None
    n_without_tpot: int | None
    bound: StoredBound | None


class FailedRequests(Answer):
    failed: int
    issued: int  # successful + failed
    text: str  # "3 of 10 failed"


class PointVerdict(Answer):
    point_id: int
    status: ShownStatus
    reason: str | None
    attainment: float | None
    attainment_ci_low: float | None
    attainment_ci_high: float | None
    # Repeated runs at this point's load that disagree on the SLO: how many meet it, of how
    # many (the load is borderline, never a pass); null where the runs agree.
    runs_meeting_slo: int | None
    runs_at_load: int | None
    checks: list[LimitCheck]


class TokensPerJoule(Answer):
    """Tokens per joule at the operating point: measured (where the file carried the GPUs'
    power) and the catalog's all-in estimate, each null when not known."""

    measured: float | None
    estimate: float | None
    token_basis: Basis
    measured_power: str  # what the measured figure divides by
    estimate_power: str
    measured_reason: str | None  # why `measured` is null (no power in the file, marked invalid)


class SessionsOut(Answer):
    """Sessions at the operating point (issue 49): judged `count` (cut ones apart), the share
    that met every limit on every turn with its Wilson ends; null with `reason` if unknown."""

    point_id: int | None
    count: int | None
    met: int | None
    attainment: float | None
    attainment_low: float | None
    attainment_high: float | None
    cut: int | None  # sessions cut by the profiled window, not judged
    unsessioned_requests: int | None
    reason: str | None


class TurnsOut(Answer):
    """TTFT of first turns (cold) and later turns (warm) at the operating point."""

    ttft_first_ms: float | None
    ttft_later_ms: float | None
    first_requests: int | None
    later_requests: int | None
    percentile: float | None


class AgentsOut(Answer):
    """Agents at your SLO: the most concurrent sessions whose session attainment meets the
    target (conservative: its Wilson lower end does), per GPU, per MW all-in, per $/hour."""

    concurrent_sessions: float | None
    concurrent_sessions_conservative: float | None
    per_gpu: float | None
    per_mw: float | None
    per_usd_hour: float | None
    reason: str | None


class ReadoffResult(Answer):
    """One sweep at the SLO: pass, borderline, fail or unknown (with the reason), its goodput
    and operating point, intervals, and its costs; `points` only when asked (points=true)."""

    sweep_id: int
    name: str
    hardware: str
    num_gpus: int
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    split: str | None  # "8P + 8D" or "varies: 4P + 12D … 8P + 8D (3 splits)"; null if aggregated
    throughput_per: str  # GPU, decode GPU, prefill GPU, node or kW
    status: ShownStatus
    borderline_reason: str | None
    # Failed requests at the operating point (else where failures start): a failed request is
    # a miss at every limit; null where the file counts none.
    failed_requests: FailedRequests | None
    meets_slo: bool | None
    reason: str | None
    goodput_tok_s_per_gpu: float | None
    goodput_requests_per_s: float | None
    # Percentile mode, repeated passing runs at the operating load: the goodput is their
    # geometric mean (this says so) and the best run is a separate figure; null otherwise.
    goodput_statistic: str | None
    best_run_tok_s_per_gpu: float | None
    operating_point: OperatingPoint | None
    estimate: EstimateOut | None
    tok_s_per_mw: float | None
    sessions: SessionsOut
    turns: TurnsOut
    agents: AgentsOut
    scenario: str | None  # fixed-seq-len, chat-multiturn, agentic-coding, …; null: not stated
    tokens_per_joule: TokensPerJoule
    joint_attainment_bounds: tuple[float, float] | None
    note: str
    ci_level: float
    intervals: ReadoffIntervals | None
    costs: list[SweepCost]
    points: list[PointVerdict] | None = None


class ReadoffRow(ReadoffResult):
    price_cells: list[PriceCellOut]
    # Points whose files kept latency histograms, read at the SLO's limits (issue 51); absent
    # for sweeps without any.
    histogram_attainment: list[HistogramAttainmentOut] | None = None
    # Tokens by class at the operating point (issue 50); not in `check`'s read-offs.
    token_classes: TokenClassesOut | None = None
    # TTFT against prompt length from request samples (issue 50); null without an operating
    # point (and without points asked), and in `check`'s read-offs.
    ttft_vs_context: TtftContextOut | None = None


class ReadoffOut(Answer):
    slo: SloOut
    price_columns: list[PriceColumnOut]
    results: list[ReadoffRow]


class FrontierPoint(Answer):
    point_id: int
    concurrency: float | None
    request_rate: Rate | None
    x: float
    y: float
    split: str | None  # the point's own prefill:decode split; null for aggregated serving


class ExcludedPoint(Answer):
    point_id: int
    reason: str


class BandOut(Answer):
    """A sweep's frontier band (bands=1): at each `x_tok_s_user` the frontier's tok/s per GPU
    and its interval at `level` (null where there is none); `reason` when it has no band."""

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


class SweepFrontier(Answer):
    sweep_id: int
    name: str
    frontier: list[FrontierPoint]
    dominated: list[FrontierPoint]
    excluded: list[ExcludedPoint]
    band: BandOut | None = None  # with band=1


class FrontierOut(Answer):
    stat: Stat
    basis: Basis
    accounting: Accounting
    x: str
    interactivity: Literal["tpot", "e2e"]
    y: str
    sweeps: list[SweepFrontier]
