"""The TypedDicts of app.schemas.answers.claims: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.common import PlotlyFigureDict
    from app.schemas.answers.typed.readoff import ReadoffOutDict


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


class ClaimListedDict(ClaimOutDict):
    """app.schemas.answers.claims.ClaimListed"""

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


class ClaimAuditBodyDict(TypedDict):
    """app.schemas.answers.claims.ClaimAuditBody"""

    claim: ClaimOutDict
    verdict: AuditVerdictDict
    model_spec: ModelSpecNameDict | None
    physics: PhysicsOutDict
    open_questions: list[str]
    sweeps: AuditSweepsDict
    at_slo: AuditAtSloDict


class ClaimAuditDict(ClaimAuditBodyDict):
    """app.schemas.answers.claims.ClaimAudit"""

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
