"""A TypedDict for every answer model of app.schemas.answers, written from the models
themselves by tools/answer_types.py (`make test` fails when it differs): a builder annotated
with one is held by mypy to its model's keys and value types. Do not edit by hand."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class HardwareOutDict(TypedDict):
    """app.schemas.answers.catalog.HardwareOut"""

    key: str
    name: str
    vendor: str | None
    memory_gb: float | None
    memory_kind: str | None
    mem_bw_tb_s: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None
    fp4_tflops: float | None
    tdp_w: float | None
    allin_kw: float | None
    gpus_per_node: int | None
    source: str | None
    aliases: list[str]


class HardwareUseDict(TypedDict):
    """app.schemas.answers.catalog.HardwareUse"""

    sweeps: int
    pricing_profiles: int
    claims: int


class HardwareDetailDict(TypedDict):
    """app.schemas.answers.catalog.HardwareDetail"""

    key: str
    name: str
    vendor: str | None
    memory_gb: float | None
    memory_kind: str | None
    mem_bw_tb_s: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None
    fp4_tflops: float | None
    tdp_w: float | None
    allin_kw: float | None
    gpus_per_node: int | None
    source: str | None
    aliases: list[str]
    used_by: HardwareUseDict


class HardwareListDict(TypedDict):
    """app.schemas.answers.catalog.HardwareList"""

    hardware: list[HardwareOutDict]


class HardwareMatchDict(TypedDict):
    """app.schemas.answers.catalog.HardwareMatch"""

    typed: str
    key: str | None
    via: str | None
    nearest: list[str]
    add_url: str | None


class ModelSpecOutDict(TypedDict):
    """app.schemas.answers.catalog.ModelSpecOut"""

    key: str
    name: str
    total_params_b: float
    active_params_b: float
    prefill_active_params_b: float | None
    decode_active_params_b: float | None
    layers: int
    d_model: int | None
    kv_heads: int | None
    head_dim: int | None
    kv_lora_rank: int | None
    rope_dim: int | None
    experts: int | None
    top_k: int | None
    source: str | None


class ModelSpecUseDict(TypedDict):
    """app.schemas.answers.catalog.ModelSpecUse"""

    sweeps: int
    claims: int


class ModelSpecDetailDict(TypedDict):
    """app.schemas.answers.catalog.ModelSpecDetail"""

    key: str
    name: str
    total_params_b: float
    active_params_b: float
    prefill_active_params_b: float | None
    decode_active_params_b: float | None
    layers: int
    d_model: int | None
    kv_heads: int | None
    head_dim: int | None
    kv_lora_rank: int | None
    rope_dim: int | None
    experts: int | None
    top_k: int | None
    source: str | None
    used_by: ModelSpecUseDict


class ModelSpecListDict(TypedDict):
    """app.schemas.answers.catalog.ModelSpecList"""

    models: list[ModelSpecOutDict]


class CatalogOutDict(TypedDict):
    """app.schemas.answers.catalog.CatalogOut"""

    hardware: list[HardwareOutDict]
    models: list[ModelSpecOutDict]


class CheckedSweepDict(TypedDict):
    """app.schemas.answers.check.CheckedSweep"""

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
    price_cells: list[PriceCellOutDict]
    histogram_attainment: NotRequired[list[HistogramAttainmentOutDict] | None]
    token_classes: NotRequired[TokenClassesOutDict | None]
    ttft_vs_context: NotRequired[TtftContextOutDict | None]
    ref: str
    resolved_by: Literal["id", "tag", "name"]


class FindingIntervalDict(TypedDict):
    """app.schemas.answers.check.FindingInterval"""

    ci_low: float | None
    ci_high: float | None
    ci_level: float
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )


class GateRatioOutDict(TypedDict):
    """app.schemas.answers.check.GateRatioOut"""

    value: float
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    ci_method: Literal["ratio-bootstrap", "ratio-t-log", "ratio-log-normal"] | None
    ci_reason: str | None
    paired: bool
    n_baseline: NotRequired[int | None]
    n_candidate: NotRequired[int | None]


class FindingDict(TypedDict):
    """app.schemas.answers.check.Finding"""

    figure: Literal["meets_slo", "goodput_tok_s_per_gpu", "usd_per_mtok", "frontier"]
    label: str
    baseline: bool | float | None
    candidate: bool | float | None
    change: float | None
    regression: bool
    note: str
    baseline_interval: FindingIntervalDict | None
    candidate_interval: FindingIntervalDict | None
    ratio: NotRequired[GateRatioOutDict | None]


class CaveatOutDict(TypedDict):
    """app.schemas.answers.check.CaveatOut"""

    kind: Literal["split", "spec_method", "acceptance", "prefix_cache"]
    text: str


class CheckAnswerDict(TypedDict):
    """app.schemas.answers.check.CheckAnswer"""

    verdict: Literal["pass", "regression", "comparison"]
    same_configuration: bool
    differences: list[DifferenceDict]
    caveats: list[CaveatOutDict]
    allow_different: bool
    scope: Literal["slo", "frontier"]
    tolerance: float
    share: float
    slo: SloOutDict
    price_columns: list[str]
    candidate: CheckedSweepDict
    baseline: CheckedSweepDict
    findings: list[FindingDict]
    regressions: list[str]
    compare_url: str
    headline: str
    summary: str
    check_id: int


class ClaimOutDict(TypedDict):
    """app.schemas.answers.claims.ClaimOut"""

    id: int
    vendor: str
    hardware: str
    gpu_scope: str
    scope_gpus: int
    model: str | None
    precision: str | None
    value_tok_s: float
    measures: str
    token_basis: str
    interactivity_tok_s_user: float | None
    batch: int | None
    isl: int | None
    osl: int | None
    spec_decode: str | None
    source_url: str | None
    claimed_at: str | None
    notes: str | None
    example: bool
    harness: str | None
    provenance: str | None
    provenance_text: str
    created_at: str | None


class ClaimListedDict(TypedDict):
    """app.schemas.answers.claims.ClaimListed"""

    id: int
    vendor: str
    hardware: str
    gpu_scope: str
    scope_gpus: int
    model: str | None
    precision: str | None
    value_tok_s: float
    measures: str
    token_basis: str
    interactivity_tok_s_user: float | None
    batch: int | None
    isl: int | None
    osl: int | None
    spec_decode: str | None
    source_url: str | None
    claimed_at: str | None
    notes: str | None
    example: bool
    harness: str | None
    provenance: str | None
    provenance_text: str
    created_at: str | None
    verdict: Literal[
        "physically possible",
        "impossible",
        "possible only with speculative decoding",
        "cannot check",
    ]


class ClaimListDict(TypedDict):
    """app.schemas.answers.claims.ClaimList"""

    claims: list[ClaimListedDict]


class ModelSpecNameDict(TypedDict):
    """app.schemas.answers.claims.ModelSpecName"""

    key: str
    name: str


class PhysicsStepDict(TypedDict):
    """app.schemas.answers.claims.PhysicsStep"""

    label: str
    formula: str
    value: float | None
    unit: str
    shown: str


class PhysicsContextDict(TypedDict):
    """app.schemas.answers.claims.PhysicsContext"""

    step_tokens: int
    capacity_tokens: int
    rule: str


class PhysicsOutDict(TypedDict):
    """app.schemas.answers.claims.PhysicsOut"""

    verdict: Literal[
        "physically possible",
        "impossible",
        "possible only with speculative decoding",
        "cannot check",
    ]
    summary: str
    missing: list[str]
    assumptions: list[str]
    steps: list[PhysicsStepDict]
    context: PhysicsContextDict | None
    weight_precision: str | None
    kv_precision: str
    num_gpus: int
    compared_tok_s: float | None
    compared_as: str
    ceiling_tok_s_user: float | None
    ceiling_tok_s: float | None
    ceiling_batch: int | None
    compute_bound_tok_s: float | None
    b_max: int | None
    required_bandwidth_tb_s: float | None
    required_accepted_length: float | None


class AuditSweepsDict(TypedDict):
    """app.schemas.answers.claims.AuditSweeps"""

    matching: list[int]
    compared: list[int]
    chosen: bool


class AuditCostDict(TypedDict):
    """app.schemas.answers.claims.AuditCost"""

    name: str
    profile_id: int | None
    usd_per_gpu_hour: float
    claim_usd_per_mtok: float | None
    goodput_usd_per_mtok: float | None
    reason: str | None


class AuditComparisonDict(TypedDict):
    """app.schemas.answers.claims.AuditComparison"""

    sweep_id: int
    name: str
    provenance: str
    basis: str
    claim_tok_s_per_gpu: float | None
    claim_per_gpu_from: str | None
    goodput_tok_s_per_gpu: float | None
    headline_inflation: float | None
    reason: str | None
    interactivity_at_goodput: float | None
    per_user_inflation: float | None
    costs: list[AuditCostDict]


class AuditAtSloDict(TypedDict):
    """app.schemas.answers.claims.AuditAtSlo"""

    preset: str | None
    pricing: list[int]
    readoff: ReadoffOutDict
    comparisons: list[AuditComparisonDict]


class VerdictSweepDict(TypedDict):
    """app.schemas.answers.claims.VerdictSweep"""

    sweep_id: int
    name: str
    hardware: str | None
    model: str | None
    same_hardware: bool
    same_model: bool
    tok_s_per_gpu: float | None
    interactivity_tok_s_user: float | None
    reason: str | None
    has_throughput: bool
    claim_ratio: float | None


class AuditVerdictDict(TypedDict):
    """app.schemas.answers.claims.AuditVerdict"""

    state: Literal["holds", "does_not_hold", "cannot_say"]
    sentence: str
    at_tok_s_user: float | None
    claim_tok_s_per_gpu: float | None
    best_sweep_id: int | None
    best_tok_s_per_gpu: float | None
    ratio: float | None
    basis: str
    stat: str
    architecture: str | None
    rule: str
    sweeps: list[VerdictSweepDict]
    sweeps_found: int


class ClaimAuditDict(TypedDict):
    """app.schemas.answers.claims.ClaimAudit"""

    claim: ClaimOutDict
    verdict: AuditVerdictDict
    model_spec: ModelSpecNameDict | None
    physics: PhysicsOutDict
    open_questions: list[str]
    sweeps: AuditSweepsDict
    at_slo: AuditAtSloDict
    figure: PlotlyFigureDict


class RooflineInputsDict(TypedDict):
    """app.schemas.answers.claims.RooflineInputs"""

    hardware: str
    gpus: int
    model: str
    params_b: float
    active_params_b: float
    prefill_active_params_b: float
    decode_active_params_b: float
    phases: str | None
    precision: str
    kv_precision: str
    ctx: int
    accepted_length: float
    efficiency: float
    mem_frac: float
    sweep: int | None


class DecodeStepOutDict(TypedDict):
    """app.schemas.answers.claims.DecodeStepOut"""

    batch: int
    bytes_per_step: float
    flops_per_step: float
    memory_s: float
    compute_s: float
    step_s: float
    bound: Literal["memory", "compute"]
    interactivity_tok_s_user: float
    aggregate_tok_s: float
    tok_s_per_gpu: float
    expert_coverage: NotRequired[float | None]


class PrefillOutDict(TypedDict):
    """app.schemas.answers.claims.PrefillOut"""

    prompt_tokens: int
    mfu: float
    flops: float
    attention_share: float | None
    ttft_lower_bound_s: float | None


class CeilingPointDict(TypedDict):
    """app.schemas.answers.claims.CeilingPoint"""

    batch: int
    interactivity_tok_s_user: float
    tok_s_per_gpu: float
    bound: Literal["memory", "compute"]


class PointShareDict(TypedDict):
    """app.schemas.answers.claims.PointShare"""

    point_id: int
    concurrency: float | None
    interactivity_tok_s_user: float | None
    tok_s_per_gpu: float | None
    note: NotRequired[str | None]
    batch: NotRequired[int | None]
    ceiling_interactivity_tok_s_user: NotRequired[float | None]
    ceiling_tok_s_per_gpu: NotRequired[float | None]
    share_of_ceiling: float | None
    throughput_share: NotRequired[float | None]
    reason: NotRequired[str | None]


class RooflineDict(TypedDict):
    """app.schemas.answers.claims.Roofline"""

    inputs: RooflineInputsDict
    name: str
    weight_bytes: float
    kv_bytes_per_token: float
    b_max: int | None
    compute_bound_tok_s: float | None
    step: DecodeStepOutDict
    prefill: PrefillOutDict
    curve: list[CeilingPointDict]
    points: list[PointShareDict]


class AnswerDict(TypedDict):
    """app.schemas.answers.common.Answer"""


class PlotlyFigureDict(TypedDict):
    """app.schemas.answers.common.PlotlyFigure"""

    data: list[dict[str, Any]]
    layout: dict[str, Any]
    config: NotRequired[dict[str, Any] | None]
    notes: NotRequired[list[str] | None]


class NamedDict(TypedDict):
    """app.schemas.answers.common.Named"""

    id: int
    name: str


class CiFieldsDict(TypedDict):
    """app.schemas.answers.common.CiFields"""

    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )
    ci_reason: str | None


class FigureIntervalDict(TypedDict):
    """app.schemas.answers.common.FigureInterval"""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )
    ci_reason: str | None


class DifferenceDict(TypedDict):
    """app.schemas.answers.common.Difference"""

    field: str
    label: str
    kind: Literal["served", "system", "source"]
    values: list[str]
    differs: bool
    text: str


class SessionsBriefDict(TypedDict):
    """app.schemas.answers.compare.SessionsBrief"""

    count: int
    attainment: float | None
    attainment_low: float | None
    attainment_high: float | None
    cut: int


class TurnsBriefDict(TypedDict):
    """app.schemas.answers.compare.TurnsBrief"""

    ttft_first_ms: float | None
    ttft_later_ms: float | None


class PairSideDict(TypedDict):
    """app.schemas.answers.compare.PairSide"""

    sweep_id: int
    name: str
    provenance: str
    sessions: NotRequired[SessionsBriefDict | None]
    turns: NotRequired[TurnsBriefDict | None]


class RatioIntervalDict(TypedDict):
    """app.schemas.answers.compare.RatioInterval"""

    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )
    ci_reason: str | None
    distinguishable: bool | None
    verdict: str
    more_a: int | None
    more_b: int | None
    unit_a: str | None
    unit_b: str | None


class CurvePointDict(TypedDict):
    """app.schemas.answers.compare.CurvePoint"""

    x_tok_s_user: float
    a_tok_s_per_gpu: float
    b_tok_s_per_gpu: float
    throughput_ratio: float
    cost_ratios: list[float | None]
    at_range_end: list[str]


class HeadlineDict(TypedDict):
    """app.schemas.answers.compare.Headline"""

    x_tok_s_user: float
    throughput_ratio: float | None
    cost_ratios: dict[str, float | None]
    at_range_end: list[str]
    interval: RatioIntervalDict | None


class PairAtSloDict(TypedDict):
    """app.schemas.answers.compare.PairAtSlo"""

    a_goodput_tok_s_per_gpu: float | None
    b_goodput_tok_s_per_gpu: float | None
    a_operating_point: OperatingPointDict | None
    b_operating_point: OperatingPointDict | None
    throughput_ratio: float | None
    at_range_end: list[str]
    cost_ratios: dict[str, float | None]
    cost_reasons: dict[str, str | None]
    interval: RatioIntervalDict | None
    cost_ratio_intervals: dict[str, CiFieldsDict] | None


class StretchOutDict(TypedDict):
    """app.schemas.answers.compare.StretchOut"""

    side: Literal["above", "below", "same", "unknown"]
    from_tok_s_user: float
    to_tok_s_user: float
    ratio_low: float | None
    ratio_high: float | None


class AreaOutDict(TypedDict):
    """app.schemas.answers.compare.AreaOut"""

    from_tok_s_user: float
    to_tok_s_user: float
    stated: bool
    reason: str | None
    a: FigureIntervalDict
    b: FigureIntervalDict
    ratio: FigureIntervalDict


class PairBandsOutDict(TypedDict):
    """app.schemas.answers.compare.PairBandsOut"""

    reason: str | None
    headline: str | None
    x_tok_s_user: list[float]
    ratio: list[float | None]
    ratio_low: list[float | None]
    ratio_high: list[float | None]
    stretches: list[StretchOutDict]
    area: AreaOutDict | None


class PairOutDict(TypedDict):
    """app.schemas.answers.compare.PairOut"""

    a: PairSideDict
    b: PairSideDict
    same_configuration: bool
    refused: str | None
    differences: list[DifferenceDict]
    caveats: list[CaveatOutDict]
    shared_range_tok_s_user: tuple[float, float] | None
    reason: str | None
    curve: list[CurvePointDict]
    headlines: list[HeadlineDict]
    at_slo: PairAtSloDict
    bands: PairBandsOutDict | None


class CompareFiguresDict(TypedDict):
    """app.schemas.answers.compare.CompareFigures"""

    frontier: PlotlyFigureDict
    throughput_ratio: PlotlyFigureDict
    cost_ratio: PlotlyFigureDict
    sensitivity: PlotlyFigureDict | None


class CompareAnswerDict(TypedDict):
    """app.schemas.answers.compare.CompareAnswer"""

    query: str
    interactivity: Literal["tpot", "e2e"]
    interactivity_axis: str
    baseline: int | None
    dropped: list[NamedDict]
    price_columns: list[str]
    pairs: list[PairOutDict]
    bands: list[BandOutDict] | None
    public_record: list[AgainstPublicOutDict] | None
    figures: CompareFiguresDict
    token_classes: list[SweepTokenClassesOutDict]


class WorkGroupOutDict(TypedDict):
    """app.schemas.answers.explore.WorkGroupOut"""

    key: str
    label: str
    sweeps: int


class LeadersDict(TypedDict):
    """app.schemas.answers.explore.Leaders"""

    chosen: list[int]
    dropped: list[int]
    frontier_points: dict[str, int]
    truncated: bool
    group: WorkGroupOutDict | None
    groups: list[WorkGroupOutDict]
    needs_group: bool
    include_demo: bool
    excluded: list[NamedDict]
    ranked_per: str


class PickerSweepDict(TypedDict):
    """app.schemas.answers.explore.PickerSweep"""

    id: int
    name: str
    model: str | None
    hardware: str
    num_gpus: int
    engine: str | None
    precision: str | None


class PickerGroupDict(TypedDict):
    """app.schemas.answers.explore.PickerGroup"""

    model: str | None
    hardware: str
    label: str
    sweeps: list[PickerSweepDict]


class PickerOutDict(TypedDict):
    """app.schemas.answers.explore.PickerOut"""

    q: str | None
    total: int
    listed: int
    limit: int
    narrowed: bool
    selected: list[PickerSweepDict]
    groups: list[PickerGroupDict]


class PickerAnswerDict(TypedDict):
    """app.schemas.answers.explore.PickerAnswer"""

    query: str
    selected: list[int]
    max_series: int
    dropped: list[NamedDict]
    leaders: LeadersDict | None
    picker: PickerOutDict | None


class AnswerStripDict(TypedDict):
    """app.schemas.answers.explore.AnswerStrip"""

    order: list[int]
    shown_first: int


class ExploreAnswerDict(TypedDict):
    """app.schemas.answers.explore.ExploreAnswer"""

    query: str
    candidates: list[NamedDict]
    selected: list[int]
    max_series: int
    dropped: list[NamedDict]
    leaders: LeadersDict | None
    picker: PickerOutDict | None
    slo: SloOutDict
    price_columns: list[PriceColumnOutDict]
    results: list[ReadoffRowDict]
    answer: AnswerStripDict
    figure: PlotlyFigureDict
    bands: list[BandOutDict] | None
    sensitivity: PlotlyFigureDict | None


class HistogramLimitShareDict(TypedDict):
    """app.schemas.answers.histograms.HistogramLimitShare"""

    metric: Literal["ttft", "tpot", "e2el"]
    limit_ms: float
    share_low: float
    share_high: float
    exact: bool
    text: str


class HistogramAttainmentOutDict(TypedDict):
    """app.schemas.answers.histograms.HistogramAttainmentOut"""

    point_id: int
    attainment_low: float
    attainment_high: float
    text: str
    target: float
    verdict: Literal["pass", "fail", "unknown"]
    issued: float
    limits: list[HistogramLimitShareDict]
    rule: str


class HistogramLimitDict(TypedDict):
    """app.schemas.answers.histograms.HistogramLimit"""

    metric: Literal["ttft", "tpot", "e2el"]
    limit_ms: float


class SweepHistogramRowDict(TypedDict):
    """app.schemas.answers.histograms.SweepHistogramRow"""

    point_id: int
    attainment_low: float
    attainment_high: float
    text: str
    target: float
    verdict: Literal["pass", "fail", "unknown"]
    issued: float
    limits: list[HistogramLimitShareDict]
    rule: str
    position: int


class SweepHistogramAttainmentDict(TypedDict):
    """app.schemas.answers.histograms.SweepHistogramAttainment"""

    slo: str
    limits: list[HistogramLimitDict]
    target: float
    points: list[SweepHistogramRowDict]
    rule: str


class HistoryConfigDict(TypedDict):
    """app.schemas.answers.history.HistoryConfig"""

    hardware: str
    num_gpus: int
    model: str | None
    engine: str | None
    precision: str | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: NotRequired[str | None]


class CheckMarkDict(TypedDict):
    """app.schemas.answers.history.CheckMark"""

    check_id: int
    baseline_sweep_id: int
    baseline_ref: str
    created_at: str | None
    headline: str
    same_configuration: bool
    differences: list[DifferenceDict]


class RepeatedRunsDict(TypedDict):
    """app.schemas.answers.history.RepeatedRuns"""

    load: float
    runs: int
    tok_s_per_gpu: tuple[float | None, float | None]
    interactivity_tok_s_user: tuple[float | None, float | None]


class HistorySweepDict(TypedDict):
    """app.schemas.answers.history.HistorySweep"""

    sweep_id: int
    name: str
    date: str | None
    date_source: Literal["measured", "unknown"]
    uploaded: str | None
    goodput_tok_s_per_gpu: float | None
    goodput_statistic: str | None
    best_run_tok_s_per_gpu: float | None
    reason: str | None
    costs: list[float | None]
    cost_reasons: list[str | None]
    regressions: list[CheckMarkDict]
    comparisons: list[CheckMarkDict]
    repeated_runs: list[RepeatedRunsDict]
    scenario: NotRequired[str | None]
    sessions: NotRequired[SessionsOutDict | None]
    turns: NotRequired[TurnsOutDict | None]
    e2e_interactivity_tok_s_user: NotRequired[float | None]


class ConfigurationHistoryDict(TypedDict):
    """app.schemas.answers.history.ConfigurationHistory"""

    config: HistoryConfigDict
    label: str
    sweeps: list[HistorySweepDict]


class HistoryAnswerDict(TypedDict):
    """app.schemas.answers.history.HistoryAnswer"""

    query: str
    configurations: list[ConfigurationHistoryDict]
    price_columns: list[str]
    figure: PlotlyFigureDict
    sessions_figure: NotRequired[PlotlyFigureDict | None]
    e2e_figure: NotRequired[PlotlyFigureDict | None]


class HealthDict(TypedDict):
    """app.schemas.answers.misc.Health"""

    status: Literal["ok", "unavailable"]
    database: NotRequired[Literal["unreachable", "schema_not_at_head"] | None]
    revision: NotRequired[str | None]


class DefinitionOutDict(TypedDict):
    """app.schemas.answers.misc.DefinitionOut"""

    id: str
    title: str
    formula: str
    text: str


class DefinitionsDict(TypedDict):
    """app.schemas.answers.misc.Definitions"""

    definitions: list[DefinitionOutDict]


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


class PlanOutDict(TypedDict):
    """app.schemas.answers.plan.PlanOut"""

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
    figure: PlotlyFigureDict
    token_classes: list[SweepTokenClassesOutDict]
    physics: list[PlanPhysicsOutDict]


class HourlyCostDict(TypedDict):
    """app.schemas.answers.pricing.HourlyCost"""

    capital_usd_per_hour: NotRequired[float | None]
    power_usd_per_hour: NotRequired[float | None]
    colo_usd_per_hour: NotRequired[float | None]
    opex_usd_per_hour: NotRequired[float | None]
    tco_usd_per_hour: NotRequired[float | None]
    rental_usd_per_hour: NotRequired[float | None]
    total_usd_per_gpu_hour: float
    utilization: float
    usd_per_useful_gpu_hour: float | None


class PricingProfileOutDict(TypedDict):
    """app.schemas.answers.pricing.PricingProfileOut"""

    id: int
    name: str
    kind: str
    hardware: str | None
    key: str | None
    usd_per_gpu_hour: float | None
    capex_usd: float | None
    life_years: float | None
    cost_of_capital: float | None
    power_kw: float | None
    pue: float | None
    usd_per_kwh: float | None
    colo_usd_per_kw_month: float | None
    other_opex_pct_per_year: float | None
    utilization: float
    usd_per_mtok_input: float | None
    usd_per_mtok_cached_input: float | None
    usd_per_mtok_output: float | None
    tier: str | None
    as_of: str | None
    source: str | None
    hourly_cost: HourlyCostDict


class PricingProfilesDict(TypedDict):
    """app.schemas.answers.pricing.PricingProfiles"""

    profiles: list[PricingProfileOutDict]


class BreakEvenDict(TypedDict):
    """app.schemas.answers.pricing.BreakEven"""

    profile_id: int
    usd_per_useful_gpu_hour: float
    output_to_input_ratio: float
    usd_per_mtok_input: float | None
    usd_per_mtok_output: float | None


class RefusedWindowDict(TypedDict):
    """app.schemas.answers.production.RefusedWindow"""

    start_s: float
    end_s: float
    reason: str


class ProductionStoredDict(TypedDict):
    """app.schemas.answers.production.ProductionStored"""

    deployment_id: int
    deployment: str
    created: bool
    engine: str
    source: str
    stored_windows: int
    already_stored_windows: int
    refused_windows: list[RefusedWindowDict]
    notes: list[str]


class DeploymentOutDict(TypedDict):
    """app.schemas.answers.production.DeploymentOut"""

    id: int
    name: str
    model: str | None
    hardware: str | None
    num_gpus: int | None
    engine: str | None
    engine_version: str | None


class DeploymentListedDict(TypedDict):
    """app.schemas.answers.production.DeploymentListed"""

    id: int
    name: str
    model: str | None
    hardware: str | None
    num_gpus: int | None
    engine: str | None
    engine_version: str | None
    windows: int


class DeploymentListDict(TypedDict):
    """app.schemas.answers.production.DeploymentList"""

    deployments: list[DeploymentListedDict]


class EfficiencyOutDict(TypedDict):
    """app.schemas.answers.production.EfficiencyOut"""

    value: float | None
    frontier_tok_s_per_gpu: float | None
    reason: str | None
    bounds: list[float | None]
    interactivity_range: list[float | None] | None


class TpotOutDict(TypedDict):
    """app.schemas.answers.production.TpotOut"""

    stat: str
    value_ms: float | None
    exact: bool
    bucket_ms: list[float | None] | None
    reason: str | None


class WindowOutDict(TypedDict):
    """app.schemas.answers.production.WindowOut"""

    id: int
    source: str
    selector: str
    start: str
    end: str
    start_s: float
    end_s: float
    duration_s: float
    requests: float
    request_rate: float
    output_tok_s: float
    total_tok_s: float | None
    tok_s_per_gpu: float | None
    num_gpus: int | None
    concurrency: float | None
    concurrency_reason: str | None
    cached_input_share: float | None
    cached_input_source: Literal["measured", "unknown"]
    cached_tokens: float | None
    queried_tokens: float | None
    cached_input_reason: str | None
    interactivity_tok_s_user: float | None
    percentiles: dict[str, dict[str, dict[str, Any]]]
    series: dict[str, str]
    per_token_tpot: bool
    tpot: TpotOutDict
    efficiency: EfficiencyOutDict
    slo: dict[str, Any] | None
    usd_per_mtok: float | None
    usd_per_mtok_reason: str | None
    flags: list[str]
    notes: list[str]


class FrontierUsedDict(TypedDict):
    """app.schemas.answers.production.FrontierUsed"""

    sweep_id: int
    sweep: str
    matched: bool
    xs: list[float]
    ys: list[float]


class PriceUsedDict(TypedDict):
    """app.schemas.answers.production.PriceUsed"""

    name: str | None
    usd_per_gpu_hour: float | None
    utilization: float
    reason: str | None


class ProductionReportDict(TypedDict):
    """app.schemas.answers.production.ProductionReport"""

    deployment: DeploymentOutDict
    frontier: FrontierUsedDict | None
    options: dict[str, Any]
    price: PriceUsedDict
    rules: dict[str, str]
    share_basis: dict[str, str]
    windows: list[WindowOutDict]
    flagged: int


class PublicRunOutDict(TypedDict):
    """app.schemas.answers.public_record.PublicRunOut"""

    sweep_id: int
    name: str
    date: str | None
    run_id: str | None
    run_url: str | None
    goodput_tok_s_per_gpu: float | None
    reason: str | None
    ratio: float | None


class PublicBandOutDict(TypedDict):
    """app.schemas.answers.public_record.PublicBandOut"""

    name: str
    dates: int
    runs: list[PublicRunOutDict]
    median_tok_s_per_gpu: float | None
    low_tok_s_per_gpu: float | None
    high_tok_s_per_gpu: float | None
    spread: float | None
    best_date: str | None
    latest_date: str | None
    best_is_earlier: bool
    best_over_latest: float | None


class PublicSweepOutDict(TypedDict):
    """app.schemas.answers.public_record.PublicSweepOut"""

    sweep_id: int
    name: str


class AgainstPublicOutDict(TypedDict):
    """app.schemas.answers.public_record.AgainstPublicOut"""

    yours: PublicSweepOutDict | None
    yours_goodput_tok_s_per_gpu: float | None
    band: PublicBandOutDict
    ratio: float | None
    ratio_low: float | None
    ratio_high: float | None
    reason: str | None
    rule: str
    differences: list[DifferenceDict]
    figure: PlotlyFigureDict


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


class ReadoffRowDict(TypedDict):
    """app.schemas.answers.readoff.ReadoffRow"""

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


class SweepFieldsDict(TypedDict):
    """app.schemas.answers.sweeps.SweepFields"""

    id: int
    name: str
    hardware: str
    num_gpus: int
    model: str | None
    engine: str | None
    engine_version: str | None
    precision: str | None
    spec_decode: str | None
    draft_model: str | None
    num_spec_tokens: int | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: str | None
    trace_dataset: str | None
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    config: str | None
    source_kind: str
    source_tool: str | None
    harness: str | None
    harness_version: str | None
    provenance: str | None
    notes: str | None
    measured_at: str | None
    run_id: str | None
    run_url: str | None
    image: str | None
    source_file: str | None
    created_at: str


class SweepListedDict(TypedDict):
    """app.schemas.answers.sweeps.SweepListed"""

    id: int
    name: str
    hardware: str
    num_gpus: int
    model: str | None
    engine: str | None
    engine_version: str | None
    precision: str | None
    spec_decode: str | None
    draft_model: str | None
    num_spec_tokens: int | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: str | None
    trace_dataset: str | None
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    config: str | None
    source_kind: str
    source_tool: str | None
    harness: str | None
    harness_version: str | None
    provenance: str | None
    notes: str | None
    measured_at: str | None
    run_id: str | None
    run_url: str | None
    image: str | None
    source_file: str | None
    created_at: str
    points: int
    tags: list[str]


class SweepListDict(TypedDict):
    """app.schemas.answers.sweeps.SweepList"""

    sweeps: list[SweepListedDict]
    total: int
    page: int
    per_page: int


class StoredPointDict(TypedDict):
    """app.schemas.answers.sweeps.StoredPoint"""

    id: int
    position: int
    concurrency: float | None
    request_rate: float | Literal["inf"] | None
    achieved_concurrency: float | None
    num_requests: int | None
    num_failed: int | None
    duration_s: float | None
    input_len: float | None
    output_len: float | None
    ttft_mean_ms: float | None
    ttft_p50_ms: float | None
    ttft_p90_ms: float | None
    ttft_p95_ms: float | None
    ttft_p99_ms: float | None
    tpot_mean_ms: float | None
    tpot_p50_ms: float | None
    tpot_p90_ms: float | None
    tpot_p95_ms: float | None
    tpot_p99_ms: float | None
    itl_mean_ms: float | None
    itl_p50_ms: float | None
    itl_p90_ms: float | None
    itl_p95_ms: float | None
    itl_p99_ms: float | None
    e2el_mean_ms: float | None
    e2el_p50_ms: float | None
    e2el_p90_ms: float | None
    e2el_p95_ms: float | None
    e2el_p99_ms: float | None
    output_tok_s: float | None
    total_tok_s: float | None
    requests_per_s: float | None
    goodput_requests_per_s: float | None
    goodput_slo: str | None
    extra: dict[str, Any]
    request_samples: int
    ttft_vs_context: NotRequired[TtftContextPointDict | None]


class StatedFigureOutDict(TypedDict):
    """app.schemas.answers.sweeps.StatedFigureOut"""

    point_id: int
    position: int
    load: float | None
    load_kind: Literal["concurrency", "request_rate"]
    figure: str
    unit: str
    theirs: float
    ours: float
    ours_from: str
    difference_pct: float
    status: Literal["agrees", "explained", "flagged"]
    rule: str | None


class TurnRowDict(TypedDict):
    """app.schemas.answers.sweeps.TurnRow"""

    point_id: int
    concurrency: float | None
    sessions: int
    cut: int
    unsessioned_requests: int
    ttft_first_p50_ms: float | None
    ttft_first_p90_ms: float | None
    ttft_later_p50_ms: float | None
    ttft_later_p90_ms: float | None
    first_requests: int | None
    later_requests: int | None
    e2e_interactivity_p90_tok_s_user: float | None
    e2el_per_token_p90_ms: float | None
    warmup_dropped: int | None
    error_dropped: int | None


class CachedInputRowDict(TypedDict):
    """app.schemas.answers.sweeps.CachedInputRow"""

    point_id: int
    concurrency: float | None
    request_rate: float | None
    cached_input_share: float | None
    cached_input_source: Literal["measured", "client", "theoretical", "unknown"]
    cached_input_source_words: str
    cached_input_from: str | None


class SweepDetailDict(TypedDict):
    """app.schemas.answers.sweeps.SweepDetail"""

    id: int
    name: str
    hardware: str
    num_gpus: int
    model: str | None
    engine: str | None
    engine_version: str | None
    precision: str | None
    spec_decode: str | None
    draft_model: str | None
    num_spec_tokens: int | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: str | None
    trace_dataset: str | None
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    config: str | None
    source_kind: str
    source_tool: str | None
    harness: str | None
    harness_version: str | None
    provenance: str | None
    notes: str | None
    measured_at: str | None
    run_id: str | None
    run_url: str | None
    image: str | None
    source_file: str | None
    created_at: str
    points: list[StoredPointDict]
    measured_isl: float | None
    measured_osl: float | None
    length_note: str | None
    tags: list[str]
    split: str | None
    stated_figures: list[StatedFigureOutDict]
    histogram_attainment: NotRequired[SweepHistogramAttainmentDict | None]
    turns: list[TurnRowDict]
    cached_input: list[CachedInputRowDict]


class SweepEditedDict(TypedDict):
    """app.schemas.answers.sweeps.SweepEdited"""

    id: int
    name: str
    hardware: str
    num_gpus: int
    model: str | None
    engine: str | None
    engine_version: str | None
    precision: str | None
    spec_decode: str | None
    draft_model: str | None
    num_spec_tokens: int | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: str | None
    trace_dataset: str | None
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    config: str | None
    source_kind: str
    source_tool: str | None
    harness: str | None
    harness_version: str | None
    provenance: str | None
    notes: str | None
    measured_at: str | None
    run_id: str | None
    run_url: str | None
    image: str | None
    source_file: str | None
    created_at: str
    points: int
    warnings: list[str]


class ExportedSweepDict(TypedDict):
    """app.schemas.answers.sweeps.ExportedSweep"""

    id: int
    name: str
    hardware: str
    num_gpus: int
    model: str | None
    engine: str | None
    engine_version: str | None
    precision: str | None
    spec_decode: str | None
    draft_model: str | None
    num_spec_tokens: int | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: str | None
    trace_dataset: str | None
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    config: str | None
    source_kind: str
    source_tool: str | None
    harness: str | None
    harness_version: str | None
    provenance: str | None
    notes: str | None
    measured_at: str | None
    run_id: str | None
    run_url: str | None
    image: str | None
    source_file: str | None
    created_at: str
    points: list[StoredPointDict]


class ExportedSweepsDict(TypedDict):
    """app.schemas.answers.sweeps.ExportedSweeps"""

    sweeps: list[ExportedSweepDict]


class SweepTagsDict(TypedDict):
    """app.schemas.answers.sweeps.SweepTags"""

    sweep_id: int
    tags: list[str]


class ByClassDict(TypedDict):
    """app.schemas.answers.token_classes.ByClass"""

    uncached_input: float
    cached_input: float
    output: float


class PricesByClassDict(TypedDict):
    """app.schemas.answers.token_classes.PricesByClass"""

    uncached_input: float | None
    cached_input: float | None
    output: float | None


class PointClassesOutDict(TypedDict):
    """app.schemas.answers.token_classes.PointClassesOut"""

    cached_input_share: float | None
    cached_input_source: Literal["measured", "client", "theoretical", "unknown"]
    cached_input_source_words: str
    cached_input_from: str | None
    tok_s_per_gpu: ByClassDict | None
    reason: str | None
    revenue_usd_per_gpu_hour: ByClassDict | None
    revenue_total_usd_per_gpu_hour: float | None
    blended_usd_per_mtok: float | None
    tokens_per_usd: float | None
    revenue_reason: str | None


class PointClassesRowDict(TypedDict):
    """app.schemas.answers.token_classes.PointClassesRow"""

    cached_input_share: float | None
    cached_input_source: Literal["measured", "client", "theoretical", "unknown"]
    cached_input_source_words: str
    cached_input_from: str | None
    tok_s_per_gpu: ByClassDict | None
    reason: str | None
    revenue_usd_per_gpu_hour: ByClassDict | None
    revenue_total_usd_per_gpu_hour: float | None
    blended_usd_per_mtok: float | None
    tokens_per_usd: float | None
    revenue_reason: str | None
    point_id: int


class BreakEvenOutDict(TypedDict):
    """app.schemas.answers.token_classes.BreakEvenOut"""

    label: str
    usd_per_gpu_hour: float | None
    usd_per_mtok: ByClassDict | None
    gpu_usd_per_hour: ByClassDict | None
    reason: str | None


class TokenClassesOutDict(TypedDict):
    """app.schemas.answers.token_classes.TokenClassesOut"""

    cached_input_share: float | None
    cached_input_source: Literal["measured", "client", "theoretical", "unknown"]
    cached_input_source_words: str
    cached_input_from: str | None
    tok_s_per_gpu: ByClassDict | None
    reason: str | None
    revenue_usd_per_gpu_hour: ByClassDict | None
    revenue_total_usd_per_gpu_hour: float | None
    blended_usd_per_mtok: float | None
    tokens_per_usd: float | None
    revenue_reason: str | None
    point_id: int | None
    api_prices: PricesByClassDict
    api_prices_from: str | None
    split_rule: str
    break_even: list[BreakEvenOutDict]
    points: NotRequired[list[PointClassesRowDict] | None]


class SweepTokenClassesOutDict(TypedDict):
    """app.schemas.answers.token_classes.SweepTokenClassesOut"""

    cached_input_share: float | None
    cached_input_source: Literal["measured", "client", "theoretical", "unknown"]
    cached_input_source_words: str
    cached_input_from: str | None
    tok_s_per_gpu: ByClassDict | None
    reason: str | None
    revenue_usd_per_gpu_hour: ByClassDict | None
    revenue_total_usd_per_gpu_hour: float | None
    blended_usd_per_mtok: float | None
    tokens_per_usd: float | None
    revenue_reason: str | None
    point_id: int | None
    api_prices: PricesByClassDict
    api_prices_from: str | None
    split_rule: str
    break_even: list[BreakEvenOutDict]
    points: NotRequired[list[PointClassesRowDict] | None]
    sweep_id: int


class InputBucketDict(TypedDict):
    """app.schemas.answers.ttft_context.InputBucket"""

    input_tokens_low: int
    input_tokens_high: int | None
    n: int
    median_ttft_ms: float
    max_ttft_ms: float


class TtftContextPointDict(TypedDict):
    """app.schemas.answers.ttft_context.TtftContextPoint"""

    point_id: int | None
    n: int
    prefill_tok_s: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    intercept_ms: float | None
    ms_per_token: float | None
    ttft_limit_ms: float | None
    crossing_input_tokens: float | None
    buckets: list[InputBucketDict]
    fit: str
    reason: str | None


class TtftContextOutDict(TypedDict):
    """app.schemas.answers.ttft_context.TtftContextOut"""

    point_id: int | None
    n: int
    prefill_tok_s: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    intercept_ms: float | None
    ms_per_token: float | None
    ttft_limit_ms: float | None
    crossing_input_tokens: float | None
    buckets: list[InputBucketDict]
    fit: str
    reason: str | None
    points: list[TtftContextPointDict] | None


class MissLimitDict(TypedDict):
    """app.schemas.answers.ttft_context.MissLimit"""

    metric: str
    limit_ms: float


class MissedRequestDict(TypedDict):
    """app.schemas.answers.ttft_context.MissedRequest"""

    request: int
    input_len: int | None
    output_len: int | None
    ttft_ms: float | None
    tpot_ms: float | None
    e2el_ms: float | None
    missed: list[str]


class MissesAmongDict(TypedDict):
    """app.schemas.answers.ttft_context.MissesAmong"""

    input_tokens_low: int | None
    input_tokens_high: int | None
    turn_index: int | None


class MissesOutDict(TypedDict):
    """app.schemas.answers.ttft_context.MissesOut"""

    sweep_id: int
    point_id: int
    among: MissesAmongDict
    limits: list[MissLimitDict]
    issued: int
    missed: int
    listed: int
    requests: list[MissedRequestDict]
    rule: str
    reason: str | None


class SavedSweepDict(TypedDict):
    """app.schemas.answers.uploads.SavedSweep"""

    id: int
    name: str
    points: int
    created: bool
    updated: bool


class SkippedFileDict(TypedDict):
    """app.schemas.answers.uploads.SkippedFile"""

    file: str
    reason: str


class UploadSavedDict(TypedDict):
    """app.schemas.answers.uploads.UploadSaved"""

    sweeps: list[SavedSweepDict]
    warnings: list[str]
    skipped: list[SkippedFileDict]


class UploadConfirmedDict(TypedDict):
    """app.schemas.answers.uploads.UploadConfirmed"""

    sweeps: list[SavedSweepDict]
    warnings: list[str]
    skipped: list[SkippedFileDict]
    explore_url: str


class StagedSweepDetailsDict(TypedDict):
    """app.schemas.answers.uploads.StagedSweepDetails"""

    sweep: str | None
    hardware: str | None
    num_gpus: int | None
    model: str | None
    engine: str | None
    engine_version: str | None
    precision: str | None
    spec_decode: str | None
    draft_model: str | None
    num_spec_tokens: int | None
    isl: int | None
    osl: int | None
    workload: str | None
    scenario: str | None
    trace_dataset: str | None
    num_prefill_gpus: int | None
    num_decode_gpus: int | None
    config: str | None
    source_kind: str | None
    source_tool: str | None
    harness: str | None
    harness_version: str | None
    provenance: str | None
    notes: str | None
    measured_at: str | None
    run_id: str | None
    run_url: str | None
    image: str | None


class AlreadyStoredDict(TypedDict):
    """app.schemas.answers.uploads.AlreadyStored"""

    id: int
    same_details: bool


class StagedSweepDict(TypedDict):
    """app.schemas.answers.uploads.StagedSweep"""

    index: int
    name: str
    source_file: str | None
    source_format: str
    points: int
    request_samples: int
    details: StagedSweepDetailsDict
    missing: list[str]
    warnings: list[str]
    hardware_match: HardwareMatchDict | None
    already_stored: AlreadyStoredDict | None


class StagedPreviewDict(TypedDict):
    """app.schemas.answers.uploads.StagedPreview"""

    staging: str
    expires_at: str
    keep_apart: bool
    sweeps: list[StagedSweepDict]
    warnings: list[str]
    skipped: list[SkippedFileDict]
