"""Intervals of derived figures ($/Mtok, Compare's ratios) from a read-off's goodput interval."""

from __future__ import annotations

from app.domain.intervals import Interval, none, reciprocal
from app.services.analysis import SweepAnalysis
from app.services.prices import Cost


def goodput_interval(result: SweepAnalysis) -> Interval | None:
    """The goodput (tok/s per GPU) interval of a read-off, None when it was not computed."""
    return None if result.intervals is None else result.intervals.goodput_tok_s_per_gpu


def cost_interval(result: SweepAnalysis, cost: Cost) -> Interval | None:
    """$/Mtok's interval: $/Mtok = k ÷ goodput, so its ends are k ÷ the goodput's ends."""
    goodput = goodput_interval(result)
    if goodput is None:
        return None
    g = result.readoff.goodput_tok_s_per_gpu
    if cost.usd_per_mtok is None or not g:
        return none(cost.usd_per_mtok, goodput.level, cost.reason or "no $/Mtok")
    return reciprocal(goodput, cost.usd_per_mtok * g)
