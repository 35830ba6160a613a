"""The TypedDicts of app.schemas.answers.ttft_context: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    pass


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


class TtftContextOutDict(TtftContextPointDict):
    """app.schemas.answers.ttft_context.TtftContextOut"""

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
