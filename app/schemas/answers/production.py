"""Production telemetry as the API answers it: an upload's outcome, deployments, a report."""

from __future__ import annotations

from typing import Any, Literal

from app.schemas.answers.common import Answer, Without


class RefusedWindow(Answer):
    start_s: float
    end_s: float
    reason: str


class ProductionStored(Answer):
    deployment_id: int
    deployment: str
    created: bool
    engine: str
    source: str
    stored_windows: int
    already_stored_windows: int
    refused_windows: list[RefusedWindow]
    notes: list[str]


class DeploymentOut(Answer):
    id: int
    name: str
    model: str | None
    hardware: str | None
    num_gpus: int | None
    engine: str | None
    engine_version: str | None


class DeploymentListed(DeploymentOut):
    windows: int


class DeploymentList(Answer):
    deployments: list[DeploymentListed]


class EfficiencyOut(Answer):
    value: float | None
    frontier_tok_s_per_gpu: float | None
    reason: str | None
    bounds: list[float | None]  # [lower, upper] over the TPOT's bucket; null: not readable
    # [low, high) tok/s/user the TPOT's bucket allows (high null: no end); null: unknown
    interactivity_range: list[float | None] | None


class TpotOut(Answer):
    stat: str  # mean or a percentile
    value_ms: float | None
    exact: bool  # the mean (_sum ÷ _count): exact; a percentile lies in its bucket
    bucket_ms: list[float | None] | None
    reason: str | None


class WindowOut(Answer):
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
    # The server's prefix-cache counters over the window (issue 50): cached ÷ queried prompt
    # tokens, source "measured"; "unknown" with the reason where the engine exported none.
    cached_input_share: float | None
    cached_input_source: Literal["measured", "unknown"]
    cached_tokens: float | None
    queried_tokens: float | None
    cached_input_reason: str | None
    interactivity_tok_s_user: float | None
    # {ttft|tpot|e2el: {p50|p90|p99: {value_ms, bucket_ms (null upper: +Inf) or reason}}}
    percentiles: dict[str, dict[str, dict[str, Any]]]
    series: dict[str, str]
    per_token_tpot: bool
    tpot: TpotOut
    efficiency: EfficiencyOut
    slo: dict[str, Any] | None
    usd_per_mtok: float | None
    usd_per_mtok_reason: str | None
    flags: list[str]
    notes: list[str]


# A window read off (what `paretoscope production` answers), before the report adds the stored
# window's id, source and selector (last, as the report writes them).
WINDOW_READ = Without("WindowRead", WindowOut, ("id", "source", "selector"))


class FrontierUsed(Answer):
    sweep_id: int
    sweep: str
    matched: bool
    xs: list[float]
    ys: list[float]


# A frontier as `paretoscope production` reads windows against it (named, never matched).
FRONTIER_READ = Without("FrontierRead", FrontierUsed, ("matched",))


class PriceUsed(Answer):
    name: str | None
    usd_per_gpu_hour: float | None
    utilization: float
    reason: str | None


class ProductionReport(Answer):
    deployment: DeploymentOut
    frontier: FrontierUsed | None
    options: dict[str, Any]
    price: PriceUsed
    rules: dict[str, str]
    share_basis: dict[str, str]  # what a limit's `share` says of how it was read
    windows: list[WindowOut]
    flagged: int
