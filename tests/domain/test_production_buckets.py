"""Production figures say only what the buckets allow: a synthetic stream (known per request)
written as vLLM V1 histograms, whose TPOT median lies in the coarse 25–50 ms bucket, read
beside frontiers whose interactivity range that bucket spans."""

from __future__ import annotations

import numpy as np
import pytest

from app.domain.pareto import value_at
from app.domain.production import efficiency, tpot_read
from app.domain.prom_text import parse_exposition
from app.domain.prom_window import time_average, windows
from tests.prom_stream import make_stream

ORIGIN = 1_780_000_000.0
STREAM = make_stream()
TIMES = [0.0, 300.0, 600.0, 900.0]
SCRAPES = [parse_exposition(STREAM.exposition(t), scraped_at_s=ORIGIN + t) for t in TIMES]
POINTS = windows(SCRAPES, num_gpus=4, window_s=300).points
# A frontier reaching past both ends of [20, 40) tok/s/user (TPOT 25–50 ms), falling steeply.
WIDE_XS, WIDE_YS = [15.0, 22.0, 28.0, 35.0, 45.0], [2400.0, 2000.0, 1400.0, 900.0, 500.0]
# One measured wholly inside that range, as a real sweep's was.
NARROW_XS, NARROW_YS = [27.0, 31.0, 36.0], [1500.0, 1100.0, 800.0]


def _truth(w_index: int, stat: str, xs: list[float], ys: list[float]) -> float:
    """Efficiency from the records: true TPOT statistic → interactivity → the frontier."""
    w = POINTS[w_index]
    mine = STREAM.finished(w.start_s - ORIGIN, w.end_s - ORIGIN)
    tpot_ms = STREAM.tpot_s[mine] * 1000
    if stat == "mean":
        true_ms = float(tpot_ms.mean())
    else:
        true_ms = float(np.percentile(tpot_ms, 50, method="inverted_cdf"))
    frontier = value_at(xs, ys, 1000 / true_ms, "staircase").y
    assert frontier is not None
    assert w.output_tok_s_per_gpu is not None
    return w.output_tok_s_per_gpu / frontier


@pytest.mark.parametrize("index", range(3))
def test_a_median_in_a_bucket_spanning_the_frontier_is_an_interval_holding_the_truth(
    index: int,
) -> None:
    w = POINTS[index]
    tpot = tpot_read(w, "p50")
    assert tpot.bucket_ms == (25.0, 50.0)
    got = efficiency(w.output_tok_s_per_gpu, tpot, WIDE_XS, WIDE_YS, "staircase")
    truth = _truth(index, "p50", WIDE_XS, WIDE_YS)
    assert got.value is None  # never the interpolated median's single read
    assert got.lower is not None and got.upper is not None
    assert got.lower <= truth <= got.upper
    assert w.output_tok_s_per_gpu is not None
    # The staircase reads 2000 at x = 20 and, just below x = 40, the point at 45 (500).
    assert (got.lower, got.upper) == (w.output_tok_s_per_gpu / 2000, w.output_tok_s_per_gpu / 500)
    assert got.interactivity_range == (20.0, 40.0)
    assert got.reason is not None and "between" in got.reason and "25–50 ms bucket" in got.reason


def test_a_frontier_measured_inside_the_bucket_leaves_efficiency_unknown_saying_why() -> None:
    w = POINTS[0]
    got = efficiency(w.output_tok_s_per_gpu, tpot_read(w, "p50"), NARROW_XS, NARROW_YS, "linear")
    assert (got.value, got.lower, got.upper) == (None, None, None)
    assert got.reason is not None and "covers only [27, 36] tok/s/user" in got.reason
    # Reaching past one end: the other side is open, never a made-up number.
    half = efficiency(
        w.output_tok_s_per_gpu, tpot_read(w, "p50"), [27.0, 45.0], [1500.0, 500.0], "staircase"
    )
    assert half.value is None and half.lower is None and half.upper is not None
    assert half.reason is not None and "at most" in half.reason


def test_the_mean_is_exact_from_sum_and_count_and_gives_one_efficiency() -> None:
    for index, w in enumerate(POINTS):
        tpot = tpot_read(w, "mean")
        assert tpot.bucket_ms is None and tpot.value_ms is not None
        mine = STREAM.finished(w.start_s - ORIGIN, w.end_s - ORIGIN)
        assert tpot.value_ms == pytest.approx(STREAM.tpot_s[mine].mean() * 1000, rel=1e-9)
        got = efficiency(w.output_tok_s_per_gpu, tpot, WIDE_XS, WIDE_YS, "staircase")
        assert got.value == pytest.approx(_truth(index, "mean", WIDE_XS, WIDE_YS), rel=1e-12)
        assert got.lower == got.upper == got.value


def test_windows_tolerate_scrape_jitter_and_name_the_model() -> None:
    jittered = [0.0, 297.0, 601.0, 899.0, 1203.0]  # at most 1 % of 300 s off the grid
    scrapes = [parse_exposition(STREAM.exposition(t), scraped_at_s=ORIGIN + t) for t in jittered]
    made = windows(scrapes, num_gpus=4, window_s=300)
    spans = [(w.start_s - ORIGIN, w.end_s - ORIGIN) for w in made.points]
    assert spans == [(0, 297), (297, 601), (601, 899), (899, 1203)]
    assert made.model == "m"
    # Far off the grid (over 5 %): the window runs to the first scrape after window_s.
    late = [parse_exposition(STREAM.exposition(t), scraped_at_s=ORIGIN + t) for t in (0, 280, 620)]
    assert [(w.end_s - ORIGIN) for w in windows(late, num_gpus=4, window_s=300).points] == [620]


def test_concurrency_is_the_time_average_over_every_reading() -> None:
    # Readings 0 s, 10 s and 100 s apart: the long span weighs ten times the short one.
    assert time_average([(0.0, 2.0), (10.0, 4.0), (110.0, 0.0)]) == (30 + 200) / 110
    uneven = [0.0, 20.0, 40.0, 300.0]
    scrapes = [parse_exposition(STREAM.exposition(t), scraped_at_s=ORIGIN + t) for t in uneven]
    (w,) = windows(scrapes, num_gpus=4, window_s=300).points
    running = [float(((STREAM.arrival_s <= t) & (STREAM.finish_s > t)).sum()) for t in uneven]
    expected = time_average(list(zip(uneven, running, strict=True)))
    assert w.concurrency == pytest.approx(expected, rel=1e-12)
    # Read every 5 s, it is the true time-average (each request's time in the window) to 1 %.
    fine = [float(t) for t in range(0, 301, 5)]
    scrapes = [parse_exposition(STREAM.exposition(t), scraped_at_s=ORIGIN + t) for t in fine]
    (w,) = windows(scrapes, num_gpus=4, window_s=300).points
    start, end = np.maximum(STREAM.arrival_s, 0.0), np.minimum(STREAM.finish_s, 300.0)
    true = float(np.clip(end - start, 0, None).sum()) / 300
    assert w.concurrency == pytest.approx(true, rel=0.01)
