"""A sweep against the public record at one SLO: the public band and the ratio to it.

The public InferenceX record re-runs one configuration nightly, one run per date, with no
repeats within a run: the spread of its dated runs is its own run-to-run noise (about 37 % of
its configurations reach their best on an earlier date, by up to 3.6×; InferenceX-app
docs/tco-calculator.md). A *public band* is the goodputs of one configuration's dated runs at the
user's SLO.

The rule (docs/analysis.md#against-the-public-record):
- ratio = your goodput ÷ the band's median goodput (the middle date; the mean of the two middle
  ones when the count is even);
- interval = [your low ÷ the band's highest, your high ÷ the band's lowest], where [low, high]
  is your goodput's own interval (your goodput itself at both ends when it has none). It
  contains your ratio to every dated run, at every point of your own interval: the public
  run-to-run spread is in it, not averaged away;
- a dated run with no goodput at the SLO (no point meets it, or unknown) is listed with its
  reason and left out of the band; a band of one date has no spread, so its interval is your
  own interval ÷ that date's goodput.

Pure: no web, database or settings imports.
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class DatedRun:
    """One run of the public record: its date, run id and goodput at the SLO (None: unknown)."""

    sweep_id: int
    name: str
    measured_at: dt.date | None
    run_id: str | None
    goodput_tok_s_per_gpu: float | None
    reason: str | None = None  # why there is no goodput
    run_url: str | None = None


@dataclass(frozen=True)
class BandComparison:
    """Your goodput against a public band, with the band's spread and the rule's interval."""

    runs: tuple[DatedRun, ...]  # every dated run, oldest first (unknown ones included)
    counted: tuple[DatedRun, ...]  # the runs with a goodput above 0: the band
    median_tok_s_per_gpu: float | None
    low_tok_s_per_gpu: float | None  # the band's lowest goodput
    high_tok_s_per_gpu: float | None  # the band's highest goodput
    spread: float | None  # highest ÷ lowest (1 with one date)
    best: DatedRun | None
    latest: DatedRun | None
    ratio: float | None  # yours ÷ the band's median
    ratio_low: float | None
    ratio_high: float | None
    per_run: tuple[float | None, ...]  # yours ÷ each run's goodput, in `runs` order
    reason: str | None = None  # why there is no ratio

    @property
    def best_is_earlier(self) -> bool:
        """True when the band's best run is not its latest: newer is not always better."""
        return (
            self.best is not None
            and self.latest is not None
            and self.best.goodput_tok_s_per_gpu != self.latest.goodput_tok_s_per_gpu
            and _order(self.best) < _order(self.latest)
        )

    @property
    def best_over_latest(self) -> float | None:
        if self.best is None or self.latest is None or not self.best_is_earlier:
            return None
        best, latest = self.best.goodput_tok_s_per_gpu, self.latest.goodput_tok_s_per_gpu
        return None if best is None or not latest else best / latest


def _order(run: DatedRun) -> tuple[dt.date, str]:
    return (run.measured_at or dt.date.min, run.run_id or "")


def compare_to_band(
    yours_tok_s_per_gpu: float | None,
    yours_low: float | None,
    yours_high: float | None,
    runs: list[DatedRun],
) -> BandComparison:
    """Your goodput (and its interval, None ends for none) against the band of `runs`."""
    ordered = tuple(sorted(runs, key=_order))
    counted = tuple(
        r for r in ordered if r.goodput_tok_s_per_gpu is not None and r.goodput_tok_s_per_gpu > 0
    )
    median, lo, hi = _band(counted)
    best = max(counted, key=lambda r: (r.goodput_tok_s_per_gpu or 0.0, _order(r)), default=None)
    latest = counted[-1] if counted else None
    per_run = tuple(
        None
        if yours_tok_s_per_gpu is None or not r.goodput_tok_s_per_gpu
        else yours_tok_s_per_gpu / r.goodput_tok_s_per_gpu
        for r in ordered
    )
    reason = None
    if not counted:
        reason = "no dated run of the public record has a goodput at this SLO"
    elif yours_tok_s_per_gpu is None:
        reason = "your sweep has no goodput at this SLO"
    ratio = ratio_low = ratio_high = None
    if reason is None and median and lo and hi and yours_tok_s_per_gpu is not None:
        ratio, ratio_low, ratio_high = _ratios(
            (yours_tok_s_per_gpu, yours_low, yours_high), median, lo, hi
        )
    return BandComparison(
        runs=ordered,
        counted=counted,
        median_tok_s_per_gpu=median,
        low_tok_s_per_gpu=lo,
        high_tok_s_per_gpu=hi,
        spread=None if not lo or hi is None else hi / lo,
        best=best,
        latest=latest,
        ratio=ratio,
        ratio_low=ratio_low,
        ratio_high=ratio_high,
        per_run=per_run,
        reason=reason,
    )


def _ratios(
    yours: tuple[float, float | None, float | None], median: float, lo: float, hi: float
) -> tuple[float, float, float]:
    """Yours ÷ the band's median, and the widest range your interval (its ends, or your
    goodput where it has none) over the band's can give."""
    value, yours_low, yours_high = yours
    low = yours_low if yours_low is not None else value
    high = yours_high if yours_high is not None else value
    return value / median, low / hi, high / lo


def _band(counted: tuple[DatedRun, ...]) -> tuple[float | None, float | None, float | None]:
    """The median, lowest and highest goodput of the runs counted (None without one)."""
    goodputs = [r.goodput_tok_s_per_gpu for r in counted if r.goodput_tok_s_per_gpu is not None]
    if not goodputs:
        return None, None, None
    return statistics.median(goodputs), min(goodputs), max(goodputs)
