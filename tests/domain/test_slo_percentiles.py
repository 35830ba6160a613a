"""A percentile per SLO limit, percentiles from request samples, and the three sweep states."""

from __future__ import annotations

import polars as pl
import pytest

from app.domain.metrics import percentile_linear
from app.domain.request_goodput import SAMPLE_SCHEMA
from app.domain.sample_percentiles import sample_percentiles
from app.domain.sensitivity import percentile_limits, sensitivity
from app.domain.slo import (
    LatencyStats,
    PointMetrics,
    Slo,
    percentile_readoff,
    point_verdict,
)
from app.domain.verdict import percentile_percent

# Oracle O9: 7 successful requests and one failure at one point (ms; n output tokens).
O9 = pl.DataFrame(
    [
        (1, 120.0, 3090.0, 100, 10, True),
        (1, 180.0, 4140.0, 100, 10, True),
        (1, 250.0, 3220.0, 100, 10, True),
        (1, 100.0, 6040.0, 100, 10, True),
        (1, 190.0, 190.0, 1, 10, True),
        (1, 150.0, 2150.0, 51, 10, True),
        (1, 300.0, 8220.0, 100, 10, True),
        (1, None, None, None, 10, False),
    ],
    schema=SAMPLE_SCHEMA,
    orient="row",
)
TTFTS = [120.0, 180.0, 250.0, 100.0, 190.0, 150.0, 300.0]
TPOTS = [30.0, 40.0, 30.0, 60.0, 40.0, 80.0]  # the six requests with n > 1


def bare_point(point_id: int = 1, **stats: LatencyStats) -> PointMetrics:
    return PointMetrics(point_id, 1, concurrency=8, output_tok_s=88.0, **stats)  # type: ignore[arg-type]


def test_a_limit_naming_no_percentile_uses_the_default() -> None:
    slo = Slo(ttft_ms=2000, tpot_ms=20, e2el_ms=9000, percentile="p99", tpot_percentile="p50")
    assert (slo.stat("ttft"), slo.stat("tpot"), slo.stat("e2el")) == ("p99", "p50", "p99")
    assert slo.describe() == "p99 TTFT ≤ 2,000 ms, p50 TPOT ≤ 20 ms, p99 E2EL ≤ 9,000 ms"


def test_percentiles_from_p50_to_p99_9_are_accepted_and_others_refused() -> None:
    assert [percentile_percent(p) for p in ("p50", "p75", "p90", "p99", "p99.9")] == [
        50.0,
        75.0,
        90.0,
        99.0,
        99.9,
    ]
    for bad in ("p49", "p100", "p99.99", "90", "P90", "p", "mean"):
        with pytest.raises(
            ValueError, match=r"^percentiles go from p50 to p99\.9, e\.g\. p99; got"
        ):
            percentile_percent(bad)
    with pytest.raises(ValueError):
        Slo(ttft_ms=1, ttft_percentile="p100")


def test_frechet_bounds_use_each_limits_own_percentile() -> None:
    point = bare_point(ttft_ms=LatencyStats(p99=100.0), tpot_ms=LatencyStats(p50=10.0, p90=12.0))
    mixed = Slo(ttft_ms=2000, tpot_ms=20, percentile="p99", tpot_percentile="p50")
    assert percentile_readoff([point], mixed).joint_attainment_bounds == pytest.approx((0.49, 0.5))
    same = Slo(ttft_ms=2000, tpot_ms=20, ttft_percentile="p90")
    assert percentile_readoff([point], same).joint_attainment_bounds == pytest.approx((0.8, 0.9))
    three = Slo(ttft_ms=1, tpot_ms=1, e2el_ms=1, percentile="p90", e2el_percentile="p99")
    assert three.quantiles() == [0.9, 0.9, 0.99]


def test_sample_percentiles_match_o10_with_linear_interpolation() -> None:
    wanted = [("ttft", "p90"), ("tpot", "p90"), ("ttft", "p75"), ("ttft", "p99.9")]
    [(point_id, values)] = sample_percentiles(O9, wanted).items()  # type: ignore[arg-type]
    assert point_id == 1
    assert values[("ttft", "p90")].value_ms == pytest.approx(270.0)  # O10
    assert values[("ttft", "p90")].count == 7  # the failure is not a latency
    assert values[("tpot", "p90")].value_ms == pytest.approx(70.0)  # O10, n > 1 only
    assert values[("tpot", "p90")].count == 6
    assert values[("ttft", "p75")].value_ms == pytest.approx(220.0)
    assert values[("ttft", "p99.9")].value_ms == pytest.approx(299.7)
    # The same method as the independent pure-Python implementation (numpy's "linear").
    for (metric, stat), got in values.items():
        data = TTFTS if metric == "ttft" else TPOTS
        assert got.value_ms == pytest.approx(percentile_linear(data, percentile_percent(stat)))


def test_stored_statistics_answer_first_then_samples_then_unknown() -> None:
    point = bare_point(ttft_ms=LatencyStats(p90=150.0))
    samples = sample_percentiles(O9, [("ttft", "p90"), ("ttft", "p75")])[1]
    stored = point_verdict(point, Slo(ttft_ms=200), samples)
    assert (stored.status, stored.reason) == ("pass", "p90 TTFT 150 ms ≤ 200 ms")
    wider = bare_point(ttft_ms=LatencyStats(p90=250.0))  # p75 from samples (220) ≤ p90
    from_samples = point_verdict(wider, Slo(ttft_ms=200, percentile="p75"), samples)
    assert from_samples.status == "fail"
    assert from_samples.reason == "p75 TTFT 220 ms > 200 ms (from 7 request samples)"
    unknown = point_verdict(point, Slo(ttft_ms=200, percentile="p75"))
    assert unknown.status == "unknown"
    assert unknown.reason == (
        "p75 TTFT not measured: the file has TTFT at p90; check one of those, "
        "or upload per-request data"
    )


def test_a_point_whose_requests_all_failed_has_no_sample_percentile() -> None:
    failed = pl.DataFrame([(2, None, None, None, 5, False)], schema=SAMPLE_SCHEMA, orient="row")
    samples = sample_percentiles(failed, [("ttft", "p75")])
    verdict = point_verdict(bare_point(2), Slo(ttft_ms=200, percentile="p75"), samples[2])
    assert verdict.status == "unknown"
    assert verdict.reason == "p75 TTFT not measured: no successful request sample has a TTFT"


def test_a_sweep_is_unknown_unless_a_point_passes_or_every_point_fails() -> None:
    slo = Slo(ttft_ms=200)
    passing = bare_point(1, ttft_ms=LatencyStats(p90=100.0))
    failing = bare_point(2, ttft_ms=LatencyStats(p90=300.0))
    unmeasured = bare_point(3, ttft_ms=LatencyStats(p99=100.0))
    assert percentile_readoff([failing, unmeasured], slo).status == "unknown"
    assert percentile_readoff([failing, unmeasured], slo).meets_slo is None
    assert percentile_readoff([failing], slo).status == "fail"
    assert percentile_readoff([failing], slo).meets_slo is False
    assert percentile_readoff([passing, unmeasured], slo).status == "pass"
    assert percentile_readoff([], slo).status == "unknown"


def test_the_estimate_crosses_each_limit_at_its_own_percentile() -> None:
    """O11 with TPOT limited at p50 and TTFT at p99: t = (35 − 28) / (42 − 28) = 0.5."""
    points = [
        PointMetrics(
            c,
            8,
            concurrency=c,
            ttft_ms=LatencyStats(p90=999.0, p99=ttft),
            tpot_ms=LatencyStats(p50=tpot, p90=999.0),
            output_tok_s=y * 8,
        )
        for c, y, tpot, ttft in ((8, 2000, 20, 150), (16, 3200, 28, 180), (32, 4800, 42, 260))
    ]
    slo = Slo(ttft_ms=300, tpot_ms=35, ttft_percentile="p99", tpot_percentile="p50")
    readoff = percentile_readoff(points, slo)
    assert readoff.goodput_tok_s_per_gpu == 3200
    assert readoff.estimate is not None
    assert readoff.estimate.t == pytest.approx(0.5)
    assert readoff.estimate.tok_s_per_gpu == pytest.approx(4000.0)


def test_sensitivity_steps_through_percentiles_from_samples() -> None:
    point = bare_point(1, tpot_ms=LatencyStats(p50=40.0))
    slo = Slo(ttft_ms=None, tpot_ms=100, percentile="p75")
    stats = sample_percentiles(O9, [("ttft", "p75"), ("tpot", "p75")])
    # p75 TPOT of [30, 30, 40, 40, 60, 80]: index 3.75 → 40 + 0.75 · 20 = 55.
    assert percentile_limits([[point]], "tpot", "p75", stats) == [pytest.approx(55.0)]
    steps = sensitivity([point], slo, "tpot", [50.0, 55.0], sample_stats=stats)
    assert [s.goodput_tok_s_per_gpu for s in steps] == [None, 88.0]


def test_per_request_mode_names_no_percentile() -> None:
    slo = Slo(ttft_ms=2000, tpot_ms=20, percentile="p99", tpot_percentile="p50")
    assert slo.describe(per_request=True) == "TTFT ≤ 2,000 ms, TPOT ≤ 20 ms"


def test_a_sample_percentile_above_a_stored_higher_one_is_bounded_by_it_never_mixed_in() -> None:
    """O9's samples give p75 TTFT 220 ms; the file stores p90 TTFT 150 ms: p75 ≤ p90, so the
    samples (another set of requests, or another method) are not used; the p90 bounds p75."""
    point = bare_point(ttft_ms=LatencyStats(p90=150.0))
    samples = sample_percentiles(O9, [("ttft", "p75")])[1]
    met = point_verdict(point, Slo(ttft_ms=200, percentile="p75"), samples)
    assert (met.status, met.reason) == (
        "pass",
        "p75 TTFT ≤ 150 ms (the file's p90) ≤ 200 ms; the request samples give 220 ms, above "
        "the file's own p90 of 150 ms, so they are not used",
    )
    open_ = point_verdict(point, Slo(ttft_ms=100, percentile="p75"), samples)
    assert (open_.status, open_.reason) == (
        "unknown",
        "p75 TTFT unknown: the request samples give 220 ms, above the file's own p90 of 150 ms, "
        "so they are not used; the file's p90 only says p75 TTFT ≤ 150 ms",
    )
    [check] = open_.checks
    assert (check.value_ms, check.source, check.n_samples) == (None, "bound", 7)
