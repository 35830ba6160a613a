"""A sweep against a public band (issue 51): the ratio to the band's median and the interval
that includes the public run-to-run spread, worked by hand."""

from __future__ import annotations

import datetime as dt

import pytest

from app.domain.public_band import DatedRun, compare_to_band


def dated_run(day: int, goodput: float | None, reason: str | None = None) -> DatedRun:
    return DatedRun(day, f"run {day}", dt.date(2026, 3, day), str(day), goodput, reason)


def test_the_ratio_is_yours_over_the_band_median_and_the_interval_spans_its_spread() -> None:
    # Dates out of order on purpose: the band sorts them.
    runs = [dated_run(15, 1000.0), dated_run(1, 1100.0), dated_run(8, 720.0)]
    c = compare_to_band(1200.0, 1150.0, 1250.0, runs)
    assert [r.measured_at.day for r in c.runs if r.measured_at] == [1, 8, 15]
    assert c.median_tok_s_per_gpu == 1000.0
    assert (c.low_tok_s_per_gpu, c.high_tok_s_per_gpu) == (720.0, 1100.0)
    assert c.ratio == 1200.0 / 1000.0
    assert c.ratio_low == 1150.0 / 1100.0  # your low end over the band's best date
    assert c.ratio_high == 1250.0 / 720.0  # your high end over the band's worst date
    assert c.spread == 1100.0 / 720.0
    assert c.per_run == (1200.0 / 1100.0, 1200.0 / 720.0, 1200.0 / 1000.0)
    # The best date is earlier than the latest, by 1.1×.
    assert c.best_is_earlier and c.best is not None and c.best.measured_at == dt.date(2026, 3, 1)
    assert c.best_over_latest == 1100.0 / 1000.0
    # Every per-date ratio, at either end of your interval, lies inside the interval.
    for run in c.counted:
        assert run.goodput_tok_s_per_gpu is not None
        for yours in (1150.0, 1250.0):
            ratio = yours / run.goodput_tok_s_per_gpu
            assert c.ratio_low <= ratio <= c.ratio_high


def test_an_even_band_takes_the_mean_of_its_two_middle_dates() -> None:
    c = compare_to_band(
        900.0, None, None, [dated_run(d, g) for d, g in ((1, 800), (2, 1000), (3, 600), (4, 1200))]
    )
    assert c.median_tok_s_per_gpu == 900.0
    assert c.ratio == 1.0
    # Without an interval of your own, the band's spread alone: 900/1200 … 900/600.
    assert (c.ratio_low, c.ratio_high) == (0.75, 1.5)


def test_a_run_without_goodput_is_listed_with_its_reason_and_left_out_of_the_band() -> None:
    runs = [dated_run(1, 1000.0), dated_run(2, None, "TTFT p99 not measured"), dated_run(3, 0.0)]
    c = compare_to_band(500.0, 450.0, 550.0, runs)
    assert [r.measured_at.day for r in c.counted if r.measured_at] == [1]
    assert len(c.runs) == 3 and c.runs[1].reason == "TTFT p99 not measured"
    assert c.per_run == (0.5, None, None)
    assert (c.ratio, c.ratio_low, c.ratio_high) == (0.5, 0.45, 0.55)
    assert c.spread == 1.0 and not c.best_is_earlier


@pytest.mark.parametrize(
    ("yours", "runs", "reason"),
    [
        (None, [dated_run(1, 1000.0)], "your sweep has no goodput at this SLO"),
        (800.0, [dated_run(1, None, "x"), dated_run(2, 0.0)], "no dated run of the public record"),
    ],
)
def test_no_ratio_without_a_goodput_on_either_side_and_it_says_why(
    yours: float | None, runs: list[DatedRun], reason: str
) -> None:
    c = compare_to_band(yours, None, None, runs)
    assert (c.ratio, c.ratio_low, c.ratio_high) == (None, None, None)
    assert c.reason is not None and c.reason.startswith(reason)
