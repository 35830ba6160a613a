"""Vendor claims, a claim's audit, and the decode roofline, as the API answers them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.domain.claim_work import Verdict
from app.domain.roofline import Bound
from app.schemas.answers.common import Answer, PlotlyFigure
from app.schemas.answers.readoff import ReadoffOut


class ClaimOut(Answer):
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
    harness: str | None  # who measured the number
    provenance: str | None  # independent | vendor; null: not stated
    provenance_text: str  # "MLPerf Inference v5.1 · independent harness"
    created_at: str | None


class ClaimListed(ClaimOut):
    verdict: Verdict


class ClaimList(Answer):
    claims: list[ClaimListed]


class ModelSpecName(Answer):
    key: str
    name: str


class PhysicsStep(Answer):
    """One line of the arithmetic; `shown` is the value to six significant digits."""

    label: str
    formula: str
    value: float | None
    unit: str
    shown: str


class PhysicsContext(Answer):
    step_tokens: int
    capacity_tokens: int
    rule: str


class PhysicsOut(Answer):
    verdict: Verdict
    summary: str
    missing: list[str]
    assumptions: list[str]
    steps: list[PhysicsStep]
    context: PhysicsContext | None
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


class AuditSweeps(Answer):
    matching: list[int]
    compared: list[int]
    chosen: bool


class AuditCost(Answer):
    name: str
    profile_id: int | None
    usd_per_gpu_hour: float
    claim_usd_per_mtok: float | None
    goodput_usd_per_mtok: float | None
    reason: str | None


class AuditComparison(Answer):
    """The claim beside what one matching sweep delivers at the SLO."""

    sweep_id: int
    name: str
    provenance: str = Field(
        description="who made the sweep's numbers: harness, version, independent or vendor"
    )
    basis: str
    claim_tok_s_per_gpu: float | None
    claim_per_gpu_from: str | None
    goodput_tok_s_per_gpu: float | None
    headline_inflation: float | None
    reason: str | None
    interactivity_at_goodput: float | None
    per_user_inflation: float | None
    costs: list[AuditCost]


class AuditAtSlo(Answer):
    preset: str | None
    pricing: list[int]
    readoff: ReadoffOut
    comparisons: list[AuditComparison]


class VerdictSweep(Answer):
    """One sweep of the claim's model architecture read at the claim's interactivity."""

    sweep_id: int
    name: str
    hardware: str | None
    model: str | None
    same_hardware: bool  # False: listed, marked as other hardware, does not judge the claim
    same_model: bool  # False: another model of the same architecture
    tok_s_per_gpu: float | None  # the most of its points at or above the claim's tok/s/user
    interactivity_tok_s_user: float | None
    reason: str | None
    has_throughput: bool  # False: no tok/s per GPU on the basis at any of its points
    claim_ratio: float | None  # claim ÷ this sweep's read


class AuditVerdict(Answer):
    """Whether the claim holds, in one sentence: holds / does not hold / cannot say."""

    state: Literal["holds", "does_not_hold", "cannot_say"]
    sentence: str
    at_tok_s_user: float | None
    claim_tok_s_per_gpu: float | None
    best_sweep_id: int | None
    best_tok_s_per_gpu: float | None
    ratio: float | None  # claim ÷ the best measured
    basis: str
    stat: str
    architecture: str | None  # the claim's model spec; null: matched by model name only
    rule: str
    sweeps: list[VerdictSweep]
    sweeps_found: int  # before the cap on how many are read


class ClaimAuditBody(Answer):
    """The audit as app.services.claims.audit writes it; the answer adds its chart."""

    claim: ClaimOut
    verdict: AuditVerdict
    model_spec: ModelSpecName | None
    physics: PhysicsOut
    open_questions: list[str]
    sweeps: AuditSweeps
    at_slo: AuditAtSlo


class ClaimAudit(ClaimAuditBody):
    figure: PlotlyFigure


class RooflineInputs(Answer):
    hardware: str
    gpus: int
    model: str
    params_b: float
    active_params_b: float
    prefill_active_params_b: float  # the prefill bound's (active_params_b unless the spec differs)
    decode_active_params_b: float  # the decode ceilings' and the compute bound's
    phases: str | None  # "prefill 8B, decode 16B active per token"; null when one count serves
    precision: str
    kv_precision: str
    ctx: int
    accepted_length: float
    efficiency: float
    mem_frac: float
    sweep: int | None


class DecodeStepOut(Answer):
    """One decode step's arithmetic; `expert_coverage` only for a mixture-of-experts model."""

    batch: int
    bytes_per_step: float
    flops_per_step: float
    memory_s: float
    compute_s: float
    step_s: float
    bound: Bound
    interactivity_tok_s_user: float
    aggregate_tok_s: float
    tok_s_per_gpu: float
    expert_coverage: float | None = None


class PrefillOut(Answer):
    prompt_tokens: int
    mfu: float
    flops: float
    attention_share: float | None
    ttft_lower_bound_s: float | None


class CeilingPoint(Answer):
    batch: int
    interactivity_tok_s_user: float
    tok_s_per_gpu: float
    bound: Bound


class PointShare(Answer):
    """A measured point's speed and throughput ÷ the ceiling at batch ≈ its concurrency; with
    no concurrency (or no B_max) the shares are null and `reason` says why; `note` when the
    point ran above B_max."""

    point_id: int
    concurrency: float | None
    interactivity_tok_s_user: float | None
    tok_s_per_gpu: float | None
    note: str | None = None
    batch: int | None = None
    ceiling_interactivity_tok_s_user: float | None = None
    ceiling_tok_s_per_gpu: float | None = None
    share_of_ceiling: float | None
    throughput_share: float | None = None
    reason: str | None = None


class Roofline(Answer):
    inputs: RooflineInputs
    name: str
    weight_bytes: float
    kv_bytes_per_token: float
    b_max: int | None
    compute_bound_tok_s: float | None
    step: DecodeStepOut
    prefill: PrefillOut
    curve: list[CeilingPoint]
    points: list[PointShare]
