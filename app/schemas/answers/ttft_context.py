"""Answer models of TTFT against prompt length (issue 50)."""

from __future__ import annotations

from app.schemas.answers.common import Answer


class InputBucket(Answer):
    """Requests whose input length is in [low, high); high null: no upper edge."""

    input_tokens_low: int
    input_tokens_high: int | None
    n: int
    median_ttft_ms: float
    max_ttft_ms: float


class TtftContextPoint(Answer):
    """A point's TTFT against input length, from its successful requests."""

    point_id: int | None
    n: int
    prefill_tok_s: float | None  # 1000 ÷ the fitted ms per input token
    ci_low: float | None
    ci_high: float | None  # null: the slope's interval reaches 0 (no upper bound)
    ci_level: float
    intercept_ms: float | None
    ms_per_token: float | None
    ttft_limit_ms: float | None
    crossing_input_tokens: float | None  # where the fitted TTFT reaches the TTFT limit
    buckets: list[InputBucket]
    fit: str
    reason: str | None


class TtftContextOut(TtftContextPoint):
    """At the operating point; `points` only when asked (points=true)."""

    points: list[TtftContextPoint] | None


class MissLimit(Answer):
    metric: str
    limit_ms: float


class MissedRequest(Answer):
    """A request that missed: its place among the point's requests (1 = first) and the limits
    it missed, or ["failed"]."""

    request: int
    input_len: int | None
    output_len: int | None
    ttft_ms: float | None
    tpot_ms: float | None  # null for a one-token request (no TPOT)
    e2el_ms: float | None
    missed: list[str]


class MissesAmong(Answer):
    """Which of the point's requests were judged: a prompt-length bucket [low, high) and a turn
    of a session; null is any."""

    input_tokens_low: int | None
    input_tokens_high: int | None
    turn_index: int | None


class MissesOut(Answer):
    """The requests of one point that missed the SLO, at most 200 listed."""

    sweep_id: int
    point_id: int
    among: MissesAmong
    limits: list[MissLimit]
    issued: int
    missed: int
    listed: int
    requests: list[MissedRequest]
    rule: str
    reason: str | None
