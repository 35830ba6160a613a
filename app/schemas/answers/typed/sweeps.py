"""The TypedDicts of app.schemas.answers.sweeps: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.histograms import SweepHistogramAttainmentDict
    from app.schemas.answers.typed.ttft_context import TtftContextPointDict


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


class SweepListedDict(SweepFieldsDict):
    """app.schemas.answers.sweeps.SweepListed"""

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


class SweepDetailDict(SweepFieldsDict):
    """app.schemas.answers.sweeps.SweepDetail"""

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


class SweepEditedDict(SweepFieldsDict):
    """app.schemas.answers.sweeps.SweepEdited"""

    points: int
    warnings: list[str]


class ExportedSweepDict(SweepFieldsDict):
    """app.schemas.answers.sweeps.ExportedSweep"""

    points: list[StoredPointDict]


class ExportedSweepsDict(TypedDict):
    """app.schemas.answers.sweeps.ExportedSweeps"""

    sweeps: list[ExportedSweepDict]


class SweepTagsDict(TypedDict):
    """app.schemas.answers.sweeps.SweepTags"""

    sweep_id: int
    tags: list[str]
