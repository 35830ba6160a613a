"""Issue 45: repeated runs that disagree make a load borderline; failed requests are misses at
every percentile limit; goodput req/s counts successful requests (app.domain.run_agreement,
app.domain.failures)."""

from __future__ import annotations

import polars as pl
import pytest

from app.domain.failures import Failed, failed_of, successful_requests_per_s
from app.domain.point import LatencyStats, PointMetrics
from app.domain.sensitivity import point_values, sensitivity
from app.domain.slo import Slo, percentile_readoff, request_readoff


def point(
    point_id: int,
    concurrency: float,
    ttft_p99_ms: float,
    tok_s: float = 100.0,
    failed: int | None = 0,
    issued: int = 100,
) -> PointMetrics:
    return PointMetrics(
        point_id,
        1,
        concurrency=concurrency,
        duration_s=10.0,
        ttft_ms=LatencyStats(p50=ttft_p99_ms / 2, p90=ttft_p99_ms * 0.9, p99=ttft_p99_ms),
        tpot_ms=LatencyStats(p50=20.0),
        output_tok_s=tok_s,
        requests_per_s=issued / 10.0,
        num_requests=issued - (failed or 0),
        num_failed=failed,
    )


SLO = Slo(ttft_ms=500, percentile="p99")


def test_runs_that_disagree_at_the_only_load_leave_no_goodput_and_a_borderline_sweep() -> None:
    readoff = percentile_readoff([point(1, 4, 762.0, 199.0), point(2, 4, 57.6, 190.0)], SLO)
    assert (readoff.status, readoff.shown_status, readoff.meets_slo) == (
        "fail",
        "borderline",
        False,
    )
    assert readoff.goodput_tok_s_per_gpu is None
    assert [(v.status, v.borderline, v.runs) for v in readoff.verdicts] == [
        ("fail", True, (1, 2)),
        ("fail", True, (1, 2)),
    ]


def test_goodput_comes_from_the_heaviest_load_whose_runs_all_meet_the_slo() -> None:
    points = [point(1, 2, 100.0, 100.0), point(2, 2, 110.0, 121.0)]
    points += [point(3, 4, 762.0, 199.0), point(4, 4, 57.6, 190.0)]
    readoff = percentile_readoff(points, SLO)
    assert (readoff.status, readoff.shown_status) == ("pass", "pass")
    assert readoff.operating_point is not None and readoff.operating_point.concurrency == 2
    assert readoff.goodput_tok_s_per_gpu == 121.0  # the best run; the shown figure is their mean


def test_runs_agreeing_or_a_pass_beside_an_unknown_run_are_left_as_measured() -> None:
    both = percentile_readoff([point(1, 4, 100.0), point(2, 4, 200.0)], SLO)
    assert [v.runs for v in both.verdicts] == [None, None] and both.status == "pass"
    unmeasured = PointMetrics(2, 1, concurrency=4, output_tok_s=90.0)
    readoff = percentile_readoff([point(1, 4, 100.0), unmeasured], SLO)
    assert [v.status for v in readoff.verdicts] == ["pass", "unknown"]


def test_the_column_path_judges_runs_and_failures_as_the_point_path_does() -> None:
    points = [point(1, 4, 762.0), point(2, 4, 57.6), point(3, 8, 100.0, failed=3, issued=10)]
    by_point = percentile_readoff(points, SLO)
    by_columns = percentile_readoff(points, SLO, columns=lambda m, s: point_values(points, m, s))
    assert [(v.status, v.runs) for v in by_columns.verdicts] == [
        (v.status, v.runs) for v in by_point.verdicts
    ]
    assert [v.status for v in by_point.verdicts] == ["fail", "fail", "fail"]


@pytest.mark.parametrize(
    ("failed", "issued", "stat", "fails"),
    [
        (1, 10, "p90", False),  # exactly 1 − p: the other 90 % can still meet it
        (2, 10, "p90", True),
        (1, 100, "p99", False),
        (2, 100, "p99", True),
        (5, 10, "p50", False),
        (6, 10, "p50", True),
    ],
)
def test_a_failed_share_above_one_minus_p_fails_a_pth_percentile_limit(
    failed: int, issued: int, stat: str, fails: bool
) -> None:
    ttft = LatencyStats(p50=50.0, p90=60.0, p99=70.0)  # every stored TTFT within 500 ms
    p = PointMetrics(
        1, 1, concurrency=1, ttft_ms=ttft, output_tok_s=10.0,
        num_requests=issued - failed, num_failed=failed,
    )  # fmt: skip
    readoff = percentile_readoff([p], Slo(ttft_ms=500, percentile=stat))
    assert readoff.status == ("fail" if fails else "pass")
    [check] = readoff.verdicts[0].checks
    assert (check.failed is not None) is fails


def test_the_failed_share_is_compared_exactly_at_every_percentile() -> None:
    # 0.1 > 1 − 0.9 in floats (0.0999…): the rule counts in tenths of a percent instead.
    assert not Failed(1, 10).exceeds(90) and Failed(11, 100).exceeds(90)
    assert not Failed(1, 1000).exceeds(99.9) and Failed(2, 1000).exceeds(99.9)
    assert not Failed(25, 100).exceeds(75) and Failed(26, 100).exceeds(75)


def test_goodput_requests_per_second_counts_successful_requests_only() -> None:
    failing = point(1, 1, 100.0, failed=3, issued=10)
    assert failed_of(failing) == Failed(3, 10) and Failed(3, 10).text() == "3 of 10 failed"
    assert failing.requests_per_s == 1.0  # the tool's figure: 10 requests in 10 s
    assert successful_requests_per_s(failing) == 0.7
    clean = point(2, 1, 100.0)
    assert successful_requests_per_s(clean) == clean.requests_per_s  # stored figure kept
    readoff = percentile_readoff([failing], Slo(ttft_ms=500, percentile="p50"))
    assert readoff.goodput_requests_per_s == 0.7


def test_per_request_runs_that_disagree_on_attainment_are_borderline_too() -> None:
    runs = [PointMetrics(i, 1, concurrency=4, duration_s=10.0) for i in (1, 2)]
    samples = pl.DataFrame(
        {
            "point_id": [1] * 10 + [2] * 10,
            "ttft_ms": [100.0] * 10 + [100.0] * 5 + [900.0] * 5,
            "e2el_ms": [1000.0] * 20,
            "output_len": [10] * 20,
            "input_len": [5] * 20,
            "ok": [True] * 20,
        }
    )
    readoff = request_readoff(samples, runs, Slo(ttft_ms=500, attainment=0.9))
    assert readoff.shown_status == "borderline" and readoff.goodput_tok_s_per_gpu is None
    assert readoff.verdicts[0].reason.startswith("1 of 2 runs meets the SLO at this load; ")


def test_the_slo_sensitivity_reads_every_limit_as_the_read_off_does() -> None:
    # Runs that disagree between 57.6 and 762 ms, a settled load, and a point 3 of 10 failed.
    points = [point(1, 2, 100.0, 100.0), point(2, 2, 110.0, 121.0)]
    points += [point(3, 4, 762.0, 199.0), point(4, 4, 57.6, 190.0)]
    points += [point(5, 8, 50.0, 400.0, failed=3, issued=10)]
    limits = [50.0, 60.0, 100.0, 110.0, 500.0, 761.0, 762.0, 1000.0]
    steps = sensitivity(points, SLO, "ttft", limits)
    for limit, step in zip(limits, steps, strict=True):
        readoff = percentile_readoff(points, Slo(ttft_ms=limit, percentile="p99"))
        assert step.goodput_tok_s_per_gpu == readoff.goodput_tok_s_per_gpu, limit
    assert [s.goodput_tok_s_per_gpu for s in steps] == [
        None, None, None, 121.0, 121.0, 121.0, 199.0, 199.0,
    ]  # fmt: skip
