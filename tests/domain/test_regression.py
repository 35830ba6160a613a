"""The regression rules of `check`, with and without intervals (helper "ci"'s field layout)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.domain.gate_ratio import ONE_RUN_GATE, GateRatio
from app.domain.regression import NEITHER, Interval, Side, compare
from app.domain.tags import split_tags, tag_problem
from app.services.checks.gate import interval_of, side_of


def side(goodput: float | None, meets: bool | None = True, **kw: object) -> Side:
    return Side(meets, goodput, **kw)  # type: ignore[arg-type]


def ratio(value: float, low: float | None, high: float | None, **kw: object) -> GateRatio:
    return GateRatio(value, low, high, 0.95, "ratio-bootstrap" if low else None, **kw)  # type: ignore[arg-type]


def test_goodput_falling_more_than_the_tolerance_without_a_ratio_interval_is_a_regression() -> None:
    outcome = compare(side(1000.0), side(940.0), tolerance=0.05)  # -6 %
    assert outcome.verdict == "regression"
    [finding] = [f for f in outcome.findings if f.regression]
    assert finding.change == pytest.approx(-0.06)
    assert finding.note.endswith("(no ratio interval: the tolerance alone decides)")
    assert compare(side(1000.0), side(950.0), tolerance=0.05).verdict == "pass"  # exactly -5 %


def test_a_fall_is_a_regression_only_when_the_ratios_own_interval_lies_wholly_below_one() -> None:
    base, cand = side(1000.0), side(900.0)
    reaching = compare(base, cand, 0.05, ratio=ratio(0.9, 0.8, 1.001))
    assert reaching.verdict == "pass"
    assert reaching.findings[1].note == (
        "fell by more than the tolerance, but the ratio's interval reaches 1× (candidate ÷ "
        "baseline 0.900×, 95 % interval 0.800–1.001×, unpaired requests)"
    )
    below = compare(base, cand, 0.05, ratio=ratio(0.9, 0.8, 0.999, paired=True))
    assert below.verdict == "regression"
    assert below.findings[1].note.endswith("interval 0.800–0.999×, paired requests)")
    assert below.findings[1].ratio == ratio(0.9, 0.8, 0.999, paired=True)
    # Within the tolerance: no regression, however narrow the interval.
    assert compare(base, side(960.0), 0.05, ratio=ratio(0.96, 0.959, 0.961)).verdict == "pass"


def test_two_overlapping_intervals_do_not_hide_a_fall_the_ratio_separates() -> None:
    # -20 %: the sides' own intervals overlap (810–1190 against 640–960), the paired ratio's
    # interval (0.797–0.799×, Compare's) does not reach 1×: a regression.
    base = side(1000.0, goodput_interval=Interval(810.0, 1190.0, 0.95))
    cand = side(798.0, goodput_interval=Interval(640.0, 960.0, 0.95))
    outcome = compare(base, cand, 0.05, ratio=ratio(0.798, 0.797, 0.799, paired=True))
    assert outcome.verdict == "regression"


def test_one_run_a_side_says_the_tolerance_alone_decides_pass_or_fail() -> None:
    alone = ratio(0.97, None, None, reason=ONE_RUN_GATE)
    passed = compare(side(1000.0), side(970.0), 0.05, ratio=alone)
    assert passed.verdict == "pass"
    assert passed.findings[1].note == f"within the tolerance ({ONE_RUN_GATE})"
    failed = compare(side(1000.0), side(900.0), 0.05, ratio=replace(alone, value=0.9))
    assert failed.verdict == "regression"
    assert failed.findings[1].note == f"fell by more than the tolerance ({ONE_RUN_GATE})"
    assert ONE_RUN_GATE.startswith("tolerance alone; one run cannot separate noise: record 3")


def test_neither_side_meeting_the_slo_is_unknown_not_a_pass() -> None:
    outcome = compare(side(None, meets=False), side(None, meets=False), 0.05)
    assert (outcome.verdict, outcome.reason) == ("unknown", NEITHER)


def test_the_slo_no_longer_met_and_dearer_tokens_are_regressions() -> None:
    lost = compare(side(1000.0), side(None, meets=False), tolerance=0.05)
    assert [f.note for f in lost.findings if f.regression] == ["the SLO is no longer met"]
    base = side(1000.0, usd_per_mtok={"A": 1.0, "B": None})
    cand = side(1000.0, usd_per_mtok={"A": 1.06, "B": 2.0})
    [dearer] = [f for f in compare(base, cand, tolerance=0.05).findings if f.regression]
    assert (dearer.label, dearer.change) == ("A", pytest.approx(0.06))
    assert compare(side(None, meets=False), side(10.0), 0.05).verdict == "pass"


def test_an_unknown_slo_status_is_no_verdict() -> None:
    outcome = compare(side(None, meets=None), side(1000.0), tolerance=0.05)
    assert (outcome.verdict, outcome.reason) == ("unknown", "the baseline's SLO status is unknown")


def test_intervals_are_read_from_the_read_off_layout_and_missing_ones_are_none() -> None:
    result = {
        "meets_slo": True,
        "goodput_tok_s_per_gpu": 1234.5,
        "intervals": {
            "goodput_tok_s_per_gpu": {
                "value": 1234.5,
                "ci_low": 1200.1,
                "ci_high": 1270.3,
                "ci_level": 0.95,
                "ci_method": "bootstrap",
                "ci_reason": None,
            }
        },
        "price_cells": [
            {"label": "$2/GPU-hour", "usd_per_mtok": 0.45, "ci_low": None, "ci_high": None},
        ],
    }
    s = side_of(result)
    assert s.goodput_interval == Interval(1200.1, 1270.3, 0.95, "bootstrap")
    assert s.usd_per_mtok == {"$2/GPU-hour": 0.45}
    assert s.usd_per_mtok_interval == {"$2/GPU-hour": None}
    assert side_of({"meets_slo": True, "goodput_tok_s_per_gpu": 5.0}).goodput_interval is None
    assert interval_of({"ci_low": 1.0}) is None


def test_tags_are_bounded_and_never_all_digits() -> None:
    assert tag_problem("baseline:main") is None
    assert tag_problem("v1.2+rc@x_y-z") is None
    assert tag_problem("42") == "'42' is all digits, which names a sweep by id"
    assert tag_problem("a b") == "'a b' may hold only letters, digits and . _ : @ + -"
    assert tag_problem("x" * 65) == f"'{'x' * 40}…' is longer than 64 characters"
    assert split_tags(["nightly, baseline:main", " nightly  x "]) == [
        "nightly",
        "baseline:main",
        "x",
    ]


def test_an_operating_point_moved_by_noise_is_reported_but_not_a_regression() -> None:
    from app.domain.point import LatencyStats, PointMetrics
    from app.domain.regression import moved_within_noise
    from app.domain.slo import Slo, percentile_readoff

    def runs(p90s_at_5: list[float]) -> list[PointMetrics]:
        """Load 4 (p90 TPOT 40 ms, 2000 tok/s) and runs at load 5 (2400 tok/s)."""
        points = [PointMetrics(1, 1, concurrency=4, tpot_ms=LatencyStats(p90=40.0),
                               output_tok_s=2000.0)]  # fmt: skip
        points += [
            PointMetrics(2 + k, 1, concurrency=5, tpot_ms=LatencyStats(p90=v), output_tok_s=2400.0)
            for k, v in enumerate(p90s_at_5)
        ]
        return points

    slo = Slo(tpot_ms=48.0, percentile="p90")
    base_points, mixed, missed = runs([46.0, 47.0]), runs([47.0, 50.0]), runs([60.0, 61.0])
    base = percentile_readoff(base_points, slo)  # both its runs at 5 meet the SLO: op at 5
    assert base.goodput_tok_s_per_gpu == 2400.0
    # The candidate's runs at 5 both meet and miss the limit: load 5 is borderline (no goodput
    # there), so its operating point lands on load 4, and that move is noise.
    cand = percentile_readoff(mixed, slo)
    assert cand.goodput_tok_s_per_gpu == 2000.0
    assert [v.runs for v in cand.verdicts] == [None, (1, 2), (1, 2)]
    noise = moved_within_noise(base, base_points, cand, mixed)
    assert noise is True
    outcome = compare(side(2400.0), side(2000.0), 0.05, noise)
    assert outcome.verdict == "pass"
    [goodput] = [f for f in outcome.findings if f.figure == "goodput_tok_s_per_gpu"]
    assert goodput.change == pytest.approx(-1 / 6) and "within noise" in goodput.note
    # A baseline whose every run at 5 meets it, against a candidate whose every run misses: a
    # settled move, so the fall is a regression.
    settled = runs([45.0, 46.0])
    assert not moved_within_noise(percentile_readoff(settled, slo), settled,
                                  percentile_readoff(missed, slo), missed)  # fmt: skip


def test_where_the_operating_point_moved_by_noise_goodput_is_compared_at_the_lighter_load() -> None:
    from app.domain.point import LatencyStats, PointMetrics
    from app.domain.regression import Matched, matched_load, moved_within_noise
    from app.domain.slo import Slo, at_load, percentile_readoff

    def sweep(at_4: float, p90s_at_5: list[float]) -> list[PointMetrics]:
        """Load 4 (p90 TPOT 40 ms, `at_4` tok/s) and runs at load 5 (2400 tok/s)."""
        points = [PointMetrics(1, 1, concurrency=4, tpot_ms=LatencyStats(p90=40.0),
                               output_tok_s=at_4)]  # fmt: skip
        points += [
            PointMetrics(2 + k, 1, concurrency=5, tpot_ms=LatencyStats(p90=v), output_tok_s=2400.0)
            for k, v in enumerate(p90s_at_5)
        ]
        return points

    slo = Slo(tpot_ms=48.0, percentile="p90")
    base_points = sweep(2000.0, [46.0, 47.0])
    base = percentile_readoff(base_points, slo)  # operating point: load 5
    for at_4, verdict in ((2000.0, "pass"), (1800.0, "regression")):
        cand_points = sweep(at_4, [47.0, 50.0])  # its load 5 is borderline: operating point 4
        cand = percentile_readoff(cand_points, slo)
        assert moved_within_noise(base, base_points, cand, cand_points)
        load = matched_load(base, base_points, cand, cand_points)
        assert load == 4.0
        pinned = at_load(base, base_points, load)
        assert pinned is not None and pinned.goodput_tok_s_per_gpu == 2000.0
        assert pinned.operating_point is not None and pinned.operating_point.point_id == 1
        matched = Matched(load, side(2000.0), side(at_4), ratio(at_4 / 2000.0, None, None))
        outcome = compare(side(2400.0), side(at_4), 0.05, True, matched)
        assert outcome.verdict == verdict
        at_load_4 = outcome.findings[-1]
        assert at_load_4.label == "goodput at load 4"
        assert at_load_4.change == pytest.approx(at_4 / 2000.0 - 1)
        assert at_load_4.note.startswith("at load 4, where both meet the SLO: ")
        # The fall read at the two operating points (load 5 against 4) is noise either way.
        assert not next(f for f in outcome.findings if f.label == "goodput").regression
    # Nothing at a load meets the SLO: no read-off there.
    assert at_load(base, base_points, 6.0) is None
