"""Compare's `public_record`: your sweep against the public record's dated runs at your SLO
(issue 51; the rule is in docs/analysis.md#against-the-public-record)."""

from __future__ import annotations

from app.schemas.answers.common import Answer, Difference, PlotlyFigure


class PublicRunOut(Answer):
    """One dated public run: its goodput at your SLO (null with the reason), and yours ÷ it."""

    sweep_id: int
    name: str
    date: str | None
    run_id: str | None
    run_url: str | None
    goodput_tok_s_per_gpu: float | None
    reason: str | None
    ratio: float | None


class PublicBandOut(Answer):
    """The band: the goodputs of one configuration's dated runs with a goodput, and their
    spread (highest ÷ lowest); whether its best date is earlier than its latest."""

    name: str
    dates: int
    runs: list[PublicRunOut]
    median_tok_s_per_gpu: float | None
    low_tok_s_per_gpu: float | None
    high_tok_s_per_gpu: float | None
    spread: float | None
    best_date: str | None
    latest_date: str | None
    best_is_earlier: bool
    best_over_latest: float | None


class PublicSweepOut(Answer):
    sweep_id: int
    name: str


class AgainstPublicOut(Answer):
    """Yours ÷ the band's median goodput, with the interval that includes the public spread;
    null (with `reason`) when either side has no goodput at the SLO."""

    yours: PublicSweepOut | None
    yours_goodput_tok_s_per_gpu: float | None
    band: PublicBandOut
    ratio: float | None
    ratio_low: float | None
    ratio_high: float | None
    reason: str | None
    rule: str
    differences: list[Difference]
    figure: PlotlyFigure  # the band's runs by date, your goodput and interval across them
