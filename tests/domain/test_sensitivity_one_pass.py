"""One-pass SLO sensitivity equals the read-off of re-judging every point at each limit."""

from __future__ import annotations

import random
from dataclasses import replace

import polars as pl
import pytest

from app.domain.metrics import Basis
from app.domain.point import LatencyStats, Metric, PointMetrics
from app.domain.request_goodput import SAMPLE_SCHEMA
from app.domain.sensitivity import (
    SensitivityStep,
    percentile_limits,
    request_buckets,
    request_limits,
    request_sensitivity,
    sensitivity,
    with_limit,
)
from app.domain.slo import Slo, percentile_readoff, request_readoff


def _rejudged(
    points: list[PointMetrics],
    base: Slo,
    metric: Metric,
    limits: list[float],
    samples: pl.DataFrame | None = None,
    basis: Basis = "output",
) -> list[SensitivityStep]:
    """The definition: a full read-off at every limit."""
    steps = []
    for limit in limits:
        slo = with_limit(base, metric, limit)
        if samples is None:
            readoff = percentile_readoff(points, slo, basis, interpolate=False)
        else:
            readoff = request_readoff(samples, points, slo, basis)
        op = readoff.operating_point
        steps.append(
            SensitivityStep(
                limit,
                readoff.goodput_tok_s_per_gpu,
                op.concurrency if op else None,
                op.request_rate if op else None,
            )
        )
    return steps


def _random_timed_points(rng: random.Random, n: int) -> list[PointMetrics]:
    def stats() -> LatencyStats:
        # Some values missing, some repeated, so unknown verdicts and ties both occur.
        pick = [None, 20.0, 30.0, *(round(rng.uniform(5, 80), 1) for _ in range(6))]
        return LatencyStats(p50=rng.choice(pick), p90=rng.choice(pick))

    return [
        PointMetrics(
            i,
            rng.choice([1, 8]),
            concurrency=float(2**i),
            duration_s=rng.choice([None, 60.0, 120.0]),
            ttft_ms=stats(),
            tpot_ms=stats(),
            e2el_ms=stats(),
            output_tok_s=rng.choice([None, 1000.0, 2000.0, round(rng.uniform(100, 5000), 2)]),
        )
        for i in range(n)
    ]


def _samples(rng: random.Random, point_ids: list[int], n: int) -> pl.DataFrame:
    rows = []
    for _ in range(n):
        ok = rng.random() > 0.1
        ttft = round(rng.uniform(10, 400), 2) if ok else None
        out = rng.choice([None, 1, 2, rng.randint(3, 300)]) if ok else None
        e2el = None if ttft is None else ttft + rng.uniform(0, 20) * max(1, (out or 1) - 1)
        rows.append((rng.choice(point_ids), ttft, e2el, out, rng.randint(1, 900), ok))
    return pl.DataFrame(rows, schema=SAMPLE_SCHEMA, orient="row")


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("metric", ["ttft", "tpot", "e2el"])
def test_percentile_sensitivity_equals_rejudging_every_point_at_every_limit(
    seed: int, metric: Metric
) -> None:
    rng = random.Random(seed)
    points = _random_timed_points(rng, 9)
    base = Slo(ttft_ms=rng.choice([None, 40.0]), tpot_ms=rng.choice([None, 30.0]), percentile="p90")
    limits = percentile_limits([points], metric, "p90")
    shuffled = [1.0, *rng.sample(limits, len(limits)), 200.0, limits[0] if limits else 3.0]
    assert sensitivity(points, base, metric, shuffled) == _rejudged(points, base, metric, shuffled)


@pytest.mark.parametrize("metric", ["ttft", "tpot", "e2el"])
def test_infinite_latencies_and_throughputs_step_as_rejudging_reads_them(metric: Metric) -> None:
    inf = float("inf")

    def point(i: int, ttft: float, tpot: float, e2el: float | None, out: float) -> PointMetrics:
        return PointMetrics(
            i, 1, concurrency=float(2**i), ttft_ms=LatencyStats(p90=ttft),
            tpot_ms=LatencyStats(p90=tpot), e2el_ms=LatencyStats(p90=e2el), output_tok_s=out,
        )  # fmt: skip

    # An infinite throughput is no throughput (point 1 never counts); an infinite latency
    # meets only an infinite limit.
    points = [
        point(0, inf, 20.0, 30.0, 900.0),
        point(1, 20.0, inf, 50.0, inf),
        point(2, 30.0, 30.0, inf, 1200.0),
        point(3, 40.0, 25.0, None, 1200.0),
    ]
    base = Slo(ttft_ms=inf, tpot_ms=inf, percentile="p90")
    limits = [10.0, 20.0, 30.0, 40.0, inf]
    steps = sensitivity(points, base, metric, limits)
    assert steps == _rejudged(points, base, metric, limits)
    assert [s.goodput_tok_s_per_gpu for s in steps] == {
        "ttft": [None, None, 1200.0, 1200.0, 1200.0],
        "tpot": [None, 900.0, 1200.0, 1200.0, 1200.0],
        "e2el": [None, None, 900.0, 900.0, 1200.0],
    }[metric]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("metric", ["ttft", "tpot", "e2el"])
def test_per_request_sensitivity_equals_rejudging_every_request_at_every_limit(
    seed: int, metric: Metric
) -> None:
    rng = random.Random(100 + seed)
    points = _random_timed_points(rng, 6)
    samples = _samples(rng, [p.point_id for p in points[:5]], 600)
    base = Slo(
        ttft_ms=rng.choice([None, 250.0]),
        e2el_ms=rng.choice([None, 3000.0]),
        attainment=rng.choice([0.5, 0.8]),
    )
    limits = request_limits(samples, metric)
    shuffled = [*rng.sample(limits, len(limits)), 0.5, limits[3]]
    basis: Basis = rng.choice(["output", "total"])
    assert sensitivity(points, base, metric, shuffled, basis, samples=samples) == _rejudged(
        points, base, metric, shuffled, samples, basis
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("metric", ["ttft", "tpot", "e2el"])
def test_many_sweeps_in_one_pass_equal_rejudging_each_sweep_at_every_limit(
    seed: int, metric: Metric
) -> None:
    rng = random.Random(300 + seed)
    # Point ids unique across sweeps, as stored points are.
    sweeps = [
        [replace(p, point_id=10 * s + p.point_id) for p in _random_timed_points(rng, 5)]
        for s in range(4)
    ]
    ids = [p.point_id for points in sweeps[:3] for p in points[:4]]  # a sweep without samples
    samples = _samples(rng, ids, 900)
    base = Slo(ttft_ms=rng.choice([None, 250.0]), attainment=rng.choice([0.5, 0.8]))
    limits = request_limits(samples, metric)
    shuffled = [*rng.sample(limits, len(limits)), 0.5, limits[2]]
    buckets = request_buckets(samples, base, metric, shuffled)
    xs = [[p.interactivity_tok_s_user("p50") for p in points] for points in sweeps]
    together = request_sensitivity(
        list(zip(sweeps, xs, strict=True)), base, shuffled, "output", buckets
    )
    assert together == [_rejudged(points, base, metric, shuffled, samples) for points in sweeps]


@pytest.mark.parametrize("seed", range(20))
def test_request_limits_are_polars_linear_quantiles_of_the_good_requests(seed: int) -> None:
    rng = random.Random(seed)
    samples = _samples(rng, [1, 2, 3], rng.randint(1, 400))
    for metric in ("ttft", "e2el"):
        values = samples.filter(pl.col("ok"))[f"{metric}_ms"].drop_nulls()
        if values.is_empty():
            assert request_limits(samples, metric) == []
            continue
        wanted = {values.quantile(i / 39, "linear") for i in range(40)}
        assert request_limits(samples, metric) == sorted(wanted)


def test_a_tie_in_goodput_and_interactivity_goes_to_the_first_point_as_in_the_read_off() -> None:
    same = LatencyStats(p50=20.0, p90=30.0)
    points = [
        PointMetrics(i, 8, concurrency=c, duration_s=60.0, ttft_ms=same, tpot_ms=same)
        for i, c in ((7, 16.0), (3, 8.0), (5, 32.0))
    ]
    # The first two points served the very same requests; the third none that count.
    requests = [(pid, 100.0, 900.0, 50, 10, True) for pid in (7, 3) for _ in range(4)]
    requests += [(5, 100.0, 900.0, 50, 10, False)]
    samples = pl.DataFrame(requests, schema=SAMPLE_SCHEMA, orient="row")
    base = Slo(ttft_ms=250.0)
    limits = request_limits(samples, "e2el")
    steps = sensitivity(points, base, "e2el", limits, samples=samples)
    assert steps == _rejudged(points, base, "e2el", limits, samples)
    assert {s.concurrency for s in steps} == {16.0}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("metric", ["ttft", "tpot", "e2el"])
def test_percentile_sensitivity_over_ascending_limits_equals_rejudging_every_point(
    seed: int, metric: Metric
) -> None:
    # Ascending, as percentile_limits gives them (and Explore asks): the steps keep that order.
    rng = random.Random(500 + seed)
    points = _random_timed_points(rng, 9)
    base = Slo(ttft_ms=rng.choice([None, 40.0]), e2el_ms=rng.choice([None, 60.0]))
    limits = percentile_limits([points], metric, "p90")
    steps = sensitivity(points, base, metric, limits)
    assert [s.limit_ms for s in steps] == limits
    assert steps == _rejudged(points, base, metric, limits)
