"""The TypedDicts of app.schemas.answers.production: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    pass


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


class DeploymentListedDict(DeploymentOutDict):
    """app.schemas.answers.production.DeploymentListed"""

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


class WindowReadDict(TypedDict):
    """app.schemas.answers.production.WindowOut without id, source, selector"""

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


class FrontierReadDict(TypedDict):
    """app.schemas.answers.production.FrontierUsed without matched"""

    sweep_id: int
    sweep: str
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
