"""Compare's JSON twin: every pair's ratio curve, headline ratios and read-off ratio. Cost
figures are keyed by price column label (the `price_columns` of the answer)."""

from __future__ import annotations

from typing import Literal

from app.domain.intervals import Method
from app.schemas.answers.check import CaveatOut
from app.schemas.answers.common import (
    Answer,
    CiFields,
    Difference,
    FigureInterval,
    Named,
    PlotlyFigure,
)
from app.schemas.answers.public_record import AgainstPublicOut
from app.schemas.answers.readoff import BandOut, OperatingPoint
from app.schemas.answers.token_classes import SweepTokenClassesOut


class SessionsBrief(Answer):
    """A multi-turn side's sessions at its operating point: judged (cut ones apart), the share
    whose every turn met the SLO with its Wilson ends."""

    count: int
    attainment: float | None
    attainment_low: float | None
    attainment_high: float | None
    cut: int


class TurnsBrief(Answer):
    """TTFT of first turns (cold) and of later turns (warm) at the operating point."""

    ttft_first_ms: float | None
    ttft_later_ms: float | None


class PairSide(Answer):
    sweep_id: int
    name: str
    provenance: str  # harness, version, independent or vendor: who made the numbers
    sessions: SessionsBrief | None = None  # null: not a multi-turn run (issue 49)
    turns: TurnsBrief | None = None


class RatioInterval(Answer):
    """A ratio's interval, whether it separates A from B, and how many more requests (or runs)
    each side needs for it to."""

    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    ci_method: Method | None
    ci_reason: str | None
    distinguishable: bool | None
    verdict: str
    more_a: int | None
    more_b: int | None
    unit_a: str | None
    unit_b: str | None


class CurvePoint(Answer):
    """`cost_ratios` per price column, in the order of `price_columns`; `at_range_end` names
    the systems whose measured range ends here."""

    x_tok_s_user: float
    a_tok_s_per_gpu: float
    b_tok_s_per_gpu: float
    throughput_ratio: float
    cost_ratios: list[float | None]
    at_range_end: list[str]


class Headline(Answer):
    x_tok_s_user: float
    throughput_ratio: float | None
    cost_ratios: dict[str, float | None]
    at_range_end: list[str]
    interval: RatioInterval | None


class PairAtSlo(Answer):
    a_goodput_tok_s_per_gpu: float | None
    b_goodput_tok_s_per_gpu: float | None
    a_operating_point: OperatingPoint | None
    b_operating_point: OperatingPoint | None
    throughput_ratio: float | None
    at_range_end: list[str]
    cost_ratios: dict[str, float | None]
    cost_reasons: dict[str, str | None]
    interval: RatioInterval | None
    cost_ratio_intervals: dict[str, CiFields] | None


class StretchOut(Answer):
    """Neighbouring interactivities where A is significantly above B, below it, not
    distinguishable ("same") or without an interval ("unknown"), with the ratio's range."""

    side: Literal["above", "below", "same", "unknown"]
    from_tok_s_user: float
    to_tok_s_user: float
    ratio_low: float | None
    ratio_high: float | None


class AreaOut(Answer):
    """The area under each frontier over the shared range (or the stated one: area_from,
    area_to) and A ÷ B, each with its interval."""

    from_tok_s_user: float
    to_tok_s_user: float
    stated: bool  # the range came from area_from/area_to (else the shared range)
    reason: str | None  # why the stated range's area is unknown
    a: FigureInterval
    b: FigureInterval
    ratio: FigureInterval


class PairBandsOut(Answer):
    """bands=1: A ÷ B's interval at each grid interactivity, split into stretches."""

    reason: str | None
    headline: str | None
    x_tok_s_user: list[float]
    ratio: list[float | None]
    ratio_low: list[float | None]
    ratio_high: list[float | None]
    stretches: list[StretchOut]
    area: AreaOut | None


class PairOut(Answer):
    a: PairSide
    b: PairSide
    same_configuration: bool
    refused: str | None  # why no ratio is given: different scenarios (issue 49), not allowed
    differences: list[Difference]
    caveats: list[CaveatOut]  # split, speculative decoding, prefix caching that differ
    shared_range_tok_s_user: tuple[float, float] | None
    reason: str | None
    curve: list[CurvePoint]
    headlines: list[Headline]
    at_slo: PairAtSlo
    bands: PairBandsOut | None


class CompareFigures(Answer):
    frontier: PlotlyFigure  # every system's frontier; with bands=1 its band and the stretches
    throughput_ratio: PlotlyFigure
    cost_ratio: PlotlyFigure
    sensitivity: PlotlyFigure | None


class CompareAnswer(Answer):
    query: str
    interactivity: Literal["tpot", "e2e"]
    interactivity_axis: str  # the x axis named, as every chart and export names it
    baseline: int | None
    dropped: list[Named]
    price_columns: list[str]
    pairs: list[PairOut]
    bands: list[BandOut] | None  # bands=1: each system's frontier band, as the chart draws it
    # Your sweeps against the public record's dated runs in the selection (null: none there).
    public_record: list[AgainstPublicOut] | None
    figures: CompareFigures
    # Each system's tokens by class at its operating point, at the API prices given (issue 50).
    token_classes: list[SweepTokenClassesOut]
