"""Compare's "is A really faster?": intervals of the ratios at the SLO and at the headlines."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.compare import Distinction, distinguish
from app.domain.intervals import Interval, none, ratio_interval, reciprocal
from app.domain.pareto import value_at
from app.domain.readoff_intervals import load_runs_interval
from app.services.analysis import Params, SweepAnalysis
from app.services.compare.ratios import Pair, frontier_of
from app.services.readoff.intervals import goodput_interval

INTERPOLATED = "interpolated between measured points: no interval"


@dataclass(frozen=True)
class PairIntervals:
    """One pair's distinctions: at the SLO (goodput), its cost ratios, and at each headline."""

    slo: Distinction
    slo_costs: tuple[Interval | None, ...]  # per price group, as Pair.slo_cost_ratios
    headlines: tuple[Distinction, ...]  # as Pair.headlines


def pair_intervals(pair: Pair, params: Params) -> PairIntervals:
    a_name, b_name = str(pair.a.meta.name), str(pair.b.meta.name)
    level = params.ci_level
    ga = goodput_interval(pair.a) or none(None, level, "no interval")
    gb = goodput_interval(pair.b) or none(None, level, "no interval")
    slo_ratio = ratio_interval(ga, gb)
    slo = distinguish(slo_ratio, ga, gb, a_name, b_name)
    # A cost ratio is (price_a ÷ price_b) ÷ the throughput ratio: its ends are the ratio's, swapped.
    slo_costs = tuple(
        None if c is None or pair.slo_ratio is None else reciprocal(slo_ratio, c * pair.slo_ratio)
        for c in pair.slo_cost_ratios
    )
    headlines = []
    for h in pair.headlines:
        ha = frontier_interval(pair.a, h.x_tok_s_user, params)
        hb = frontier_interval(pair.b, h.x_tok_s_user, params)
        headlines.append(distinguish(ratio_interval(ha, hb), ha, hb, a_name, b_name))
    return PairIntervals(slo, slo_costs, tuple(headlines))


def frontier_interval(result: SweepAnalysis, x: float, params: Params) -> Interval:
    """The frontier's tok/s per GPU at x with a t interval over the runs at that point's load.

    Only a measured point has runs; an interpolated value has no interval (said so)."""
    front = frontier_of(result)
    found = value_at(front.xs, front.ys, x, params.interpolation)
    if found.y is None:
        return none(None, params.ci_level, found.reason or "no value here")
    if found.index is None:
        return none(found.y, params.ci_level, INTERPOLATED)
    point = result.points[result.frontier[found.index]]
    return load_runs_interval(result.points, point, params.basis, params.ci_level, found.y)
