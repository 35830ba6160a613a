"""The TypedDicts of app.schemas.answers.token_classes: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    pass


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


class PointClassesRowDict(PointClassesOutDict):
    """app.schemas.answers.token_classes.PointClassesRow"""

    point_id: int


class BreakEvenOutDict(TypedDict):
    """app.schemas.answers.token_classes.BreakEvenOut"""

    label: str
    usd_per_gpu_hour: float | None
    usd_per_mtok: ByClassDict | None
    gpu_usd_per_hour: ByClassDict | None
    reason: str | None


class TokenClassesOutDict(PointClassesOutDict):
    """app.schemas.answers.token_classes.TokenClassesOut"""

    point_id: int | None
    api_prices: PricesByClassDict
    api_prices_from: str | None
    split_rule: str
    break_even: list[BreakEvenOutDict]
    points: NotRequired[list[PointClassesRowDict] | None]


class SweepTokenClassesOutDict(TokenClassesOutDict):
    """app.schemas.answers.token_classes.SweepTokenClassesOut"""

    sweep_id: int
