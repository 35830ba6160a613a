"""The TypedDicts of app.schemas.answers.compare: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.check import CaveatOutDict
    from app.schemas.answers.typed.common import (
        CiFieldsDict,
        DifferenceDict,
        FigureIntervalDict,
        NamedDict,
        PlotlyFigureDict,
    )
    from app.schemas.answers.typed.public_record import AgainstPublicOutDict
    from app.schemas.answers.typed.readoff import BandOutDict, OperatingPointDict
    from app.schemas.answers.typed.token_classes import SweepTokenClassesOutDict


class SessionsBriefDict(TypedDict):
    """app.schemas.answers.compare.SessionsBrief"""

    count: int
    attainment: float | None
    attainment_low: float | None
    attainment_high: float | None
    cut: int


class TurnsBriefDict(TypedDict):
    """app.schemas.answers.compare.TurnsBrief"""

    ttft_first_ms: float | None
    ttft_later_ms: float | None


class PairSideDict(TypedDict):
    """app.schemas.answers.compare.PairSide"""

    sweep_id: int
    name: str
    provenance: str
    sessions: NotRequired[SessionsBriefDict | None]
    turns: NotRequired[TurnsBriefDict | None]


class RatioIntervalDict(TypedDict):
    """app.schemas.answers.compare.RatioInterval"""

    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )
    ci_reason: str | None
    distinguishable: bool | None
    verdict: str
    more_a: int | None
    more_b: int | None
    unit_a: str | None
    unit_b: str | None


class CurvePointDict(TypedDict):
    """app.schemas.answers.compare.CurvePoint"""

    x_tok_s_user: float
    a_tok_s_per_gpu: float
    b_tok_s_per_gpu: float
    throughput_ratio: float
    cost_ratios: list[float | None]
    at_range_end: list[str]


class HeadlineDict(TypedDict):
    """app.schemas.answers.compare.Headline"""

    x_tok_s_user: float
    throughput_ratio: float | None
    cost_ratios: dict[str, float | None]
    at_range_end: list[str]
    interval: RatioIntervalDict | None


class PairAtSloDict(TypedDict):
    """app.schemas.answers.compare.PairAtSlo"""

    a_goodput_tok_s_per_gpu: float | None
    b_goodput_tok_s_per_gpu: float | None
    a_operating_point: OperatingPointDict | None
    b_operating_point: OperatingPointDict | None
    throughput_ratio: float | None
    at_range_end: list[str]
    cost_ratios: dict[str, float | None]
    cost_reasons: dict[str, str | None]
    interval: RatioIntervalDict | None
    cost_ratio_intervals: dict[str, CiFieldsDict] | None


class StretchOutDict(TypedDict):
    """app.schemas.answers.compare.StretchOut"""

    side: Literal["above", "below", "same", "unknown"]
    from_tok_s_user: float
    to_tok_s_user: float
    ratio_low: float | None
    ratio_high: float | None


class AreaOutDict(TypedDict):
    """app.schemas.answers.compare.AreaOut"""

    from_tok_s_user: float
    to_tok_s_user: float
    stated: bool
    reason: str | None
    a: FigureIntervalDict
    b: FigureIntervalDict
    ratio: FigureIntervalDict


class PairBandsOutDict(TypedDict):
    """app.schemas.answers.compare.PairBandsOut"""

    reason: str | None
    headline: str | None
    x_tok_s_user: list[float]
    ratio: list[float | None]
    ratio_low: list[float | None]
    ratio_high: list[float | None]
    stretches: list[StretchOutDict]
    area: AreaOutDict | None


class PairOutDict(TypedDict):
    """app.schemas.answers.compare.PairOut"""

    a: PairSideDict
    b: PairSideDict
    same_configuration: bool
    refused: str | None
    differences: list[DifferenceDict]
    caveats: list[CaveatOutDict]
    shared_range_tok_s_user: tuple[float, float] | None
    reason: str | None
    curve: list[CurvePointDict]
    headlines: list[HeadlineDict]
    at_slo: PairAtSloDict
    bands: PairBandsOutDict | None


class CompareFiguresDict(TypedDict):
    """app.schemas.answers.compare.CompareFigures"""

    frontier: PlotlyFigureDict
    throughput_ratio: PlotlyFigureDict
    cost_ratio: PlotlyFigureDict
    sensitivity: PlotlyFigureDict | None


class CompareAnswerDict(TypedDict):
    """app.schemas.answers.compare.CompareAnswer"""

    query: str
    interactivity: Literal["tpot", "e2e"]
    interactivity_axis: str
    baseline: int | None
    dropped: list[NamedDict]
    price_columns: list[str]
    pairs: list[PairOutDict]
    bands: list[BandOutDict] | None
    public_record: list[AgainstPublicOutDict] | None
    figures: CompareFiguresDict
    token_classes: list[SweepTokenClassesOutDict]
