"""Answer models of a read-off's tokens by class (issue 50): uncached input, cached input and
output, their revenue at API prices and their break-even prices."""

from __future__ import annotations

from typing import Literal

from app.schemas.answers.common import Answer

CachedSourceOut = Literal["measured", "client", "theoretical", "unknown"]


class ByClass(Answer):
    """One figure per token class."""

    uncached_input: float
    cached_input: float
    output: float


class PricesByClass(Answer):
    """The API prices given, $/Mtok; null where not given."""

    uncached_input: float | None
    cached_input: float | None
    output: float | None


class PointClassesOut(Answer):
    """A point's tokens by class per total GPU: the cached share of its input and where that
    comes from (`measured`: the server's prefix-cache counters, `client`: the client's
    per-request usage, `theoretical`: the workload's shared prefixes, never measured; `unknown`
    where the file reports none), and the revenue of a GPU-hour at the API prices given."""

    cached_input_share: float | None
    cached_input_source: CachedSourceOut  # "unknown" with a null share
    cached_input_source_words: str
    cached_input_from: str | None  # what the share was computed from
    tok_s_per_gpu: ByClass | None  # input = uncached + cached
    reason: str | None  # why the mix is unknown
    revenue_usd_per_gpu_hour: ByClass | None  # class tokens in an hour × class price
    revenue_total_usd_per_gpu_hour: float | None
    blended_usd_per_mtok: float | None  # revenue ÷ all tokens of the mix
    tokens_per_usd: float | None  # all tokens per $1 of revenue
    revenue_reason: str | None


class PointClassesRow(PointClassesOut):
    point_id: int


class BreakEvenOut(Answer):
    """Per price column: what each class must sell at for a GPU-hour's revenue to pay for it
    (`split_rule`), and the share of the GPU-hour each class pays."""

    label: str
    usd_per_gpu_hour: float | None
    usd_per_mtok: ByClass | None
    gpu_usd_per_hour: ByClass | None
    reason: str | None


class TokenClassesOut(PointClassesOut):
    """At the read-off's operating point; `points` only when asked (points=true)."""

    point_id: int | None
    api_prices: PricesByClass
    # "query" (the read-off's own usd_per_mtok_*), a price profile's name, or null (none given).
    api_prices_from: str | None
    split_rule: str
    break_even: list[BreakEvenOut]
    points: list[PointClassesRow] | None = None


class SweepTokenClassesOut(TokenClassesOut):
    """One system's tokens by class at its operating point (Compare, Plan)."""

    sweep_id: int
