"""Interval methods against hand-computed oracles, the bootstrap's coverage, borderline verdicts."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import polars as pl
import pytest

from app.domain import bootstrap
from app.domain.bootstrap import bootstrap_sums, bootstrap_sums_many
from app.domain.intervals import (
    ONE_RUN,
    Interval,
    check_level,
    percentile_interval,
    ratio_interval,
    separation,
    t_quantile,
    wilson,
    wilson_bounds,
    wilson_bounds_expr,
)
from app.domain.point import LatencyStats, PointMetrics
from app.domain.readoff_intervals import (
    PERCENTILE_NO_RUNS,
    request_intervals,
    runs_intervals,
)
from app.domain.request_goodput import SAMPLE_SCHEMA
from app.domain.slo import Slo, percentile_readoff, request_readoff
from tests.oracles import t_interval

# --- Wilson ------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99])
def test_wilson_as_columns_gives_the_very_floats_of_the_scalar_version(level: float) -> None:
    pairs = [(good, n) for n in range(1, 401) for good in range(n + 1)]
    frame = pl.DataFrame(pairs, schema={"good": pl.UInt32, "n": pl.UInt32}, orient="row")
    low, high = wilson_bounds_expr(pl.col("good"), pl.col("n"), level)
    ends = frame.select(low.alias("low"), high.alias("high")).rows()
    assert ends == [wilson_bounds(good, n, level) for good, n in pairs]  # exact, not approx


def test_wilson_81_of_100_at_95_percent_matches_the_hand_computation() -> None:
    # z = 1.95996398, z² = 3.84145882, n = 100, p̂ = 0.81
    # denominator 1 + z²/n = 1.03841459
    # centre (0.81 + z²/200) / 1.03841459 = 0.82920729 / 1.03841459 = 0.79853202
    # half z·√(0.81·0.19/100 + z²/40000) / 1.03841459
    #    = 1.95996398 · √(0.001539 + 0.00009603647) / 1.03841459
    #    = 1.95996398 · 0.04043558 / 1.03841459 = 0.07632047
    # interval 0.79853202 ∓ 0.07632047 = [0.72221155, 0.87485249]
    iv = wilson(81, 100, 0.95)
    assert iv.value == 0.81
    assert iv.low == pytest.approx(0.72221155, abs=1e-7)
    assert iv.high == pytest.approx(0.87485249, abs=1e-7)
    assert iv.method == "wilson" and iv.n == 100


def test_wilson_at_all_good_stays_inside_0_and_1_and_is_not_a_point() -> None:
    # p̂ = 1: low = (1 + z²/2n − z²/2n) / (1 + z²/n) = 1 / (1 + 3.841459/100) = 0.96300636
    iv = wilson(100, 100)
    assert iv.high == 1.0
    assert iv.low == pytest.approx(1 / (1 + 1.959964**2 / 100), abs=1e-6)
    assert wilson(0, 10).low == 0.0


def test_a_wider_level_gives_a_wider_wilson_interval() -> None:
    narrow, wide = wilson(81, 100, 0.8), wilson(81, 100, 0.99)
    assert wide.low is not None and narrow.low is not None
    assert wide.low < narrow.low and wide.high is not None and narrow.high is not None
    assert wide.high > narrow.high


@pytest.mark.parametrize("level", [0.49, 0.9991, 1.0])
def test_a_level_outside_half_to_0_999_is_refused(level: float) -> None:
    with pytest.raises(ValueError, match="interval level"):
        check_level(level)


# --- t interval over runs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "df", "table"),
    [(0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 9, 2.2622), (0.995, 30, 2.7500)],
)
def test_t_quantiles_match_the_printed_table(p: float, df: int, table: float) -> None:
    assert t_quantile(p, df) == pytest.approx(table, abs=5e-5)


def test_t_interval_of_three_runs_matches_the_hand_computation() -> None:
    # mean 12, s = √(((−2)² + 0 + 2²)/2) = 2, t(0.975, 2) = 4.302653
    # half = 4.302653 · 2 / √3 = 4.968276 → [7.031724, 16.968276]
    iv = t_interval([10.0, 12.0, 14.0], 0.95)
    assert iv.low == pytest.approx(7.031724, abs=1e-5)
    assert iv.high == pytest.approx(16.968276, abs=1e-5)
    assert iv.method == "t" and iv.n == 3 and iv.unit == "runs"


def test_one_run_has_no_interval_and_says_so() -> None:
    iv = t_interval([10.0])
    assert iv.low is None and iv.high is None and iv.method is None
    assert iv.reason == ONE_RUN == "one run: no interval"


# --- bootstrap ---------------------------------------------------------------------------------


def test_the_bootstrap_is_reproducible_for_the_same_data() -> None:
    frame = pl.DataFrame({"x": [float(i % 7) for i in range(300)]})
    first, second = bootstrap_sums(frame), bootstrap_sums(frame)
    assert first.height == 1000
    assert first["x"].to_list() == second["x"].to_list()
    assert bootstrap_sums(frame, seed=1)["x"].to_list() != first["x"].to_list()


@pytest.mark.parametrize("whole", [True, False], ids=["whole numbers", "fractions"])
def test_many_frames_bootstrapped_together_give_each_frames_own_sums_exactly(
    whole: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whole numbers (request flags and token counts) are summed by a matrix product of draw
    # counts; fractions by one gather per batch: either way, each frame's own sums exactly.
    rng = random.Random(3)
    # Heights shared and not, one frame empty, one over the per-call block (drawn apart), and
    # enough of height 20 to take several stacked calls.
    heights = [20] * 230 + [1, 7, 7, 0, 2_500, 20, 64]
    frames = [
        pl.DataFrame(
            {
                "good": [float(rng.random() < 0.8) for _ in range(n)],
                "tokens": [
                    float(rng.randint(0, 4096)) if whole else rng.uniform(0, 900) for _ in range(n)
                ],
            },
            schema={"good": pl.Float64, "tokens": pl.Float64},
        )
        for n in heights
    ]
    if whole:  # the product answers for every batch: no gather is asked for
        monkeypatch.setattr(bootstrap, "_gathered_sums", lambda *a: pytest.fail("gathered"))
    together = bootstrap_sums_many(frames)
    assert len(together) == len(frames)
    for frame, sums in zip(frames, together, strict=True):
        alone = bootstrap_sums(frame)
        assert sums.height == alone.height
        assert sums.to_dict(as_series=False) == alone.to_dict(as_series=False)


def test_the_bootstraps_95_percent_interval_covers_the_true_goodput_90_to_99_percent() -> None:
    # 200 simulated points of 100 requests: each good with probability 0.8, output lengths
    # uniform on 50 … 150, so the expected good tokens are 100 · 0.8 · 100 = 8000.
    rng = random.Random(7)
    truth = 100 * 0.8 * 100
    covered = 0
    for _ in range(200):
        tokens = [float(rng.randint(50, 150)) if rng.random() < 0.8 else 0.0 for _ in range(100)]
        sums = bootstrap_sums(pl.DataFrame({"tokens": tokens}))
        iv = percentile_interval(sum(tokens), sums["tokens"].to_list(), 0.95, 100)
        covered += iv.contains(truth)
    assert 180 <= covered <= 198, covered


# --- ratios and the power estimate ---------------------------------------------------------------


def log_interval(value: float, se_log: float, n: int, unit: str = "requests") -> Interval:
    """An interval z standard errors wide on the log scale (as a bootstrap's; a t interval is
    t wide, which the power estimate reads differently)."""
    z = 1.959963984540054
    low, high = value * math.exp(-z * se_log), value * math.exp(z * se_log)
    return Interval(value, low, high, 0.95, "bootstrap", None, n, unit)


def test_a_ratio_interval_adds_the_log_variances() -> None:
    # ln(110/100) = 0.0953102; se = √(0.05² + 0.05²) = 0.0707107; z·se = 0.1385904
    # → 1.1 · e^(∓0.1385904) = [0.957643, 1.263519]
    iv = ratio_interval(log_interval(110, 0.05, 100), log_interval(100, 0.05, 100))
    assert iv.value == pytest.approx(1.1)
    assert iv.low == pytest.approx(0.957643, abs=1e-6)
    assert iv.high == pytest.approx(1.263519, abs=1e-6)
    assert iv.contains(1.0)


def test_the_power_estimate_matches_the_hand_computation() -> None:
    # n' = n · ((z₀.₉₇₅ + z₀.₈) · √(se_a² + se_b²) / |ln(a/b)|)²
    #    = 100 · ((1.959964 + 0.841621) · 0.0707107 / 0.0953102)² = 100 · 4.320129 = 432.01
    # → 433 per side, 333 more each
    sep = separation(log_interval(110, 0.05, 100), log_interval(100, 0.05, 100))
    assert (sep.more_a, sep.more_b) == (333, 333)
    assert separation(log_interval(100, 0.05, 10), log_interval(100, 0.05, 10)).more_a is None


def test_paired_bootstrap_replicates_give_the_ratio_interval() -> None:
    a = percentile_interval(2.0, [1.0, 2.0, 3.0], 0.5, 3)
    b = percentile_interval(1.0, [1.0, 1.0, 1.0], 0.5, 3)
    iv = ratio_interval(a, b)
    # ratios 1, 2, 3: quantiles 0.25 and 0.75 by linear interpolation = 1.5 and 2.5
    assert (iv.low, iv.high, iv.method) == (1.5, 2.5, "ratio-bootstrap")


# --- read-off intervals and borderline verdicts -------------------------------------------------


def frame(point_id: int, good: int, bad: int, output_len: int = 100) -> pl.DataFrame:
    """good requests with TTFT 100 ms, then bad ones with TTFT 900 ms (limit: 500 ms)."""
    rows = [(100.0, 2000.0)] * good + [(900.0, 2800.0)] * bad
    return pl.DataFrame(
        {
            "point_id": [point_id] * len(rows),
            "ttft_ms": [r[0] for r in rows],
            "e2el_ms": [r[1] for r in rows],
            "output_len": [output_len] * len(rows),
            "input_len": [10] * len(rows),
            "ok": [True] * len(rows),
        },
        schema=SAMPLE_SCHEMA,
    )


def timed_point(point_id: int, duration_s: float = 10.0) -> PointMetrics:
    return PointMetrics(point_id, 2, concurrency=point_id, duration_s=duration_s)


def statuses(good: int, bad: int, attainment: float) -> tuple[str, str, tuple[float, float] | None]:
    readoff = request_readoff(
        frame(1, good, bad), [timed_point(1)], Slo(500, attainment=attainment)
    )
    v = readoff.verdicts[0]
    return v.status, v.shown_status, v.attainment_ci


def test_all_100_good_at_a_90_percent_target_is_a_pass() -> None:
    # Wilson low end 0.963 ≥ 0.90
    assert statuses(100, 0, 0.9)[:2] == ("pass", "pass")


def test_24_of_25_good_at_a_95_percent_target_is_borderline_not_pass() -> None:
    status, shown, ci = statuses(24, 1, 0.95)
    assert (status, shown) == ("pass", "borderline")
    assert ci is not None and ci[0] < 0.95 <= ci[1]


def test_9_of_10_good_at_a_95_percent_target_is_borderline_not_fail() -> None:
    status, shown, _ = statuses(9, 1, 0.95)
    assert (status, shown) == ("fail", "borderline")
    readoff = request_readoff(frame(1, 9, 1), [timed_point(1)], Slo(500, attainment=0.95))
    assert readoff.status == "fail" and readoff.shown_status == "borderline"
    assert readoff.meets_slo is False


def test_5_of_10_good_at_a_90_percent_target_is_a_fail() -> None:
    # Wilson [0.237, 0.763]: entirely below 0.90
    assert statuses(5, 5, 0.9)[:2] == ("fail", "fail")


def test_an_unmeasured_point_stays_unknown_never_borderline() -> None:
    empty = pl.DataFrame(schema=SAMPLE_SCHEMA)
    readoff = request_readoff(empty, [timed_point(1)], Slo(500, attainment=0.9))
    assert readoff.verdicts[0].shown_status == "unknown"
    assert readoff.shown_status == "unknown"


def test_request_intervals_bootstrap_the_operating_points_goodput() -> None:
    samples = frame(1, 80, 20)
    slo = Slo(500, attainment=0.5)
    readoff = request_readoff(samples, [timed_point(1)], slo)
    ivs = request_intervals(readoff, [timed_point(1)], samples, slo, "output", 0.95)
    # 80 good requests × 100 tokens over 10 s on 2 GPUs = 400 tok/s per GPU
    assert ivs.goodput_tok_s_per_gpu.value == pytest.approx(400.0)
    g = ivs.goodput_tok_s_per_gpu
    assert g.method == "bootstrap" and g.low is not None and g.high is not None
    assert g.low < 400.0 < g.high
    # Every resample is 100 tokens × (good count) / 20: the interval is the Wilson-like spread
    # of the good count, 80 ± about 2·√(100·0.8·0.2) = 80 ± 8 requests.
    assert 340 <= g.low <= 370 and 430 <= g.high <= 460
    assert ivs.attainment.low == pytest.approx(wilson(80, 100).low)
    again = request_intervals(readoff, [timed_point(1)], samples, slo, "output", 0.95)
    assert (again.goodput_tok_s_per_gpu.low, again.goodput_tok_s_per_gpu.high) == (g.low, g.high)


def runs(loads: Sequence[float], tok_s: Sequence[float]) -> list[PointMetrics]:
    return [
        PointMetrics(
            i + 1,
            1,
            concurrency=load,
            ttft_ms=LatencyStats(p90=100.0),
            output_tok_s=y,
            requests_per_s=y / 100,
        )
        for i, (load, y) in enumerate(zip(loads, tok_s, strict=True))
    ]


def test_percentile_mode_takes_a_t_interval_over_the_repeated_runs_at_the_operating_load() -> None:
    points = runs([8, 8, 8, 4], [1000.0, 1200.0, 1400.0, 500.0])
    readoff = percentile_readoff(points, Slo(ttft_ms=500))
    ivs = runs_intervals(readoff, points, "output", 0.95)
    g = ivs.goodput_tok_s_per_gpu
    # runs 1000, 1200, 1400 on the log scale: mean of ln x 7.080687 (geometric mean 1188.7844),
    # s 0.168433, t(0.975, 2) · s/√3 = 0.418410: e^(7.080687 ∓ 0.418410). The value shown is
    # that geometric mean, from the same runs; the best run is a separate figure.
    assert g.value == pytest.approx(1188.784391, abs=1e-6)
    assert ivs.best_run_tok_s_per_gpu == 1400.0 and ivs.statistic == "geometric mean of 3 runs"
    assert g.low == pytest.approx(782.330189, abs=1e-6)
    assert g.high == pytest.approx(1806.409042, abs=1e-6)
    assert g.method == "t-log" and g.n == 3


def test_percentile_mode_with_one_run_says_there_is_no_interval() -> None:
    points = runs([4, 8], [500.0, 1000.0])
    readoff = percentile_readoff(points, Slo(ttft_ms=500))
    ivs = runs_intervals(readoff, points, "output", 0.95)
    assert ivs.goodput_tok_s_per_gpu.low is None
    assert ivs.goodput_tok_s_per_gpu.reason == PERCENTILE_NO_RUNS
    assert PERCENTILE_NO_RUNS.startswith("one run: no interval")


def test_equal_values_are_not_distinguishable_and_no_data_would_separate_them() -> None:
    from app.domain.compare import distinguish

    a, b = log_interval(100, 0.05, 10), log_interval(100, 0.05, 10)
    d = distinguish(ratio_interval(a, b), a, b, "A", "B")
    assert d.distinguishable is False
    # ratio 1 · e^(∓1.959964 · 0.0707107) = [0.870581, 1.148658]
    assert d.text == (
        "not distinguishable with this data: the 95 % interval 0.871×–1.15× spans 1×; "
        "the two values are equal, so no amount of data would separate them"
    )
