"""A percentile read-off from kept columns (the values checks compare) and axes is the read-off
judged point by point: Explore hands both in for every sweep on each new SLO."""

from __future__ import annotations

import dataclasses
import random

import pytest

from app.domain.estimate import load_order
from app.domain.metrics import Basis
from app.domain.point import LatencyStats, Metric, PointMetrics, Stat
from app.domain.sensitivity import point_values
from app.domain.slo import Slo, percentile_readoff
from app.domain.verdict import (
    Columns,
    Percentile,
    SamplePercentiles,
    SampleValue,
    Verdict,
    column_verdicts,
    point_verdict,
)


def _random_points(rng: random.Random, n: int) -> list[PointMetrics]:
    def stats() -> LatencyStats:
        # Missing and repeated values, so unknown verdicts and throughput ties both occur.
        pick = [None, 20.0, 30.0, *(round(rng.uniform(5, 80), 1) for _ in range(5))]
        return LatencyStats(p50=rng.choice(pick), p90=rng.choice(pick), p99=rng.choice(pick))

    return [
        PointMetrics(
            i + 1,
            rng.choice([1, 8]),
            concurrency=float(2**i),
            ttft_ms=stats(),
            tpot_ms=stats(),
            e2el_ms=stats(),
            output_tok_s=rng.choice([None, 1000.0, 2000.0, round(rng.uniform(100, 5000), 2)]),
            total_tok_s=rng.choice([None, 3000.0, round(rng.uniform(100, 9000), 2)]),
        )
        for i in range(n)
    ]


def _slo(rng: random.Random) -> Slo:
    limit = [None, 25.0, 40.0, 70.0]
    return Slo(
        ttft_ms=rng.choice(limit),
        tpot_ms=rng.choice(limit),
        e2el_ms=rng.choice(limit),
        percentile=rng.choice(["p50", "p90"]),
        ttft_percentile=rng.choice([None, "p99", "p75"]),  # p75 is never stored: unknown
    )


def _columns(points: list[PointMetrics]) -> Columns:
    def columns(metric: Metric, stat: Percentile) -> list[float | None]:
        return point_values(points, metric, stat)

    return columns


@pytest.mark.parametrize("seed", range(40))
def test_column_verdicts_equal_judging_each_point(seed: int) -> None:
    rng = random.Random(seed)
    points, slo = _random_points(rng, 10), _slo(rng)
    by_point = [point_verdict(p, slo) for p in points]
    by_column = column_verdicts(points, slo, _columns(points))
    assert [(v.point_id, v.status, v.reason) for v in by_column] == [
        (v.point_id, v.status, v.reason) for v in by_point
    ]


@pytest.mark.parametrize("seed", range(40))
def test_a_readoff_from_columns_and_axes_equals_the_readoff_from_the_points(seed: int) -> None:
    rng = random.Random(1000 + seed)
    points, slo = _random_points(rng, 10), _slo(rng)
    basis: Basis = rng.choice(["output", "total"])
    stat: Stat = rng.choice(["p50", "p90"])
    axes = (
        [p.interactivity_tok_s_user(stat) for p in points],
        [p.tok_s_per_gpu(basis) for p in points],
    )
    plain = percentile_readoff(points, slo, basis, stat)
    kept = percentile_readoff(points, slo, basis, stat, columns=_columns(points), axes=axes)
    assert kept == plain
    ordered = percentile_readoff(points, slo, basis, stat, order=load_order(points))
    assert ordered == plain and ordered.estimate == plain.estimate
    assert [v.status for v in kept.verdicts] == [v.status for v in plain.verdicts]


def test_a_verdict_made_on_the_hot_path_is_the_verdict_its_constructor_makes() -> None:
    point = _random_points(random.Random(7), 1)[0]
    slo = Slo(ttft_ms=30.0)
    samples: SamplePercentiles = {("ttft", "p75"): SampleValue(12.0, 40)}
    made = point_verdict(point, slo, samples)
    built = Verdict(point.point_id, made.status, point=point, slo=slo, samples=samples)
    assert vars(made) == vars(built)
    assert (made, hash(made), repr(made)) == (built, hash(built), repr(built))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.status = "pass"  # type: ignore[misc]
