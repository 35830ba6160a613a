"""The TypedDicts of app.schemas.answers.public_record: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.common import DifferenceDict, PlotlyFigureDict


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
