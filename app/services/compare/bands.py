"""Compare's "where is A really better": both sweeps' bands on a grid of their shared range,
the ratio's interval along it, its stretches and headline, and the areas under the frontiers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import polars as pl

from app.domain.frontier_band import even_grid
from app.domain.intervals import Interval
from app.domain.numbers import fmt_number
from app.domain.stretches import (
    AreaSummary,
    Stretch,
    area_summary,
    headline,
    ratios,
    stretches,
    unknown_area,
)
from app.schemas.answers.typed.compare import PairBandsOutDict
from app.services.analysis import Params, SweepAnalysis
from app.services.bands import SweepBand, sweep_band
from app.services.compare.ratios import Pair
from app.services.readoff.document import interval_json


@dataclass(frozen=True)
class PairBands:
    """One pair's bands on the shared grid; `reason` when there is nothing to split."""

    a: SweepBand | None
    b: SweepBand | None
    xs: tuple[float, ...]
    ratios: tuple[Interval, ...]
    stretches: tuple[Stretch, ...]
    headline: str
    area: AreaSummary | None
    reason: str | None = None


def pair_bands(
    pair: Pair,
    params: Params,
    samples: Mapping[int, pl.DataFrame],
    stated: tuple[float | None, float | None] = (None, None),
) -> PairBands:
    """The split of the pair's shared range; the area over `stated` (from, to in tok/s/user;
    an end not given is the shared range's), or over the shared range when neither is."""
    span = pair.curve.shared_range
    if span is None:
        return PairBands(None, None, (), (), (), "", None, pair.curve.reason)
    grid = even_grid(*span)
    a = sweep_band(pair.a, params, samples.get(int(pair.a.meta.id)), grid)
    b = sweep_band(pair.b, params, samples.get(int(pair.b.meta.id)), grid)
    if a.band is None or b.band is None:
        missing = a if a.band is None else b
        why = f"{missing.result.meta.name}: {missing.reason}"
        return PairBands(a, b, tuple(grid), (), (), "", None, why)
    found = ratios(a.band, b.band)
    split = stretches(grid, found)
    words = headline(split, str(pair.a.meta.name), str(pair.b.meta.name))
    summary = area_summary(a.band, b.band, *span)
    if stated != (None, None):
        summary = stated_area(pair, params, samples, stated, span)
    return PairBands(a, b, tuple(grid), tuple(found), tuple(split), words, summary)


def frontier_range(result: SweepAnalysis) -> tuple[float, float] | None:
    """The interactivities the sweep's frontier covers (tok/s/user)."""
    xs = [x for k in result.frontier if (x := result.xs[k]) is not None]
    return (min(xs), max(xs)) if xs else None


def stated_area(
    pair: Pair,
    params: Params,
    samples: Mapping[int, pl.DataFrame],
    stated: tuple[float | None, float | None],
    span: tuple[float, float],
) -> AreaSummary:
    """The areas over the range the user stated, read on a grid of its own (its ends
    included); unknown, with the reason, where it is empty or reaches beyond either frontier
    (nothing is extrapolated)."""
    lo = span[0] if stated[0] is None else stated[0]
    hi = span[1] if stated[1] is None else stated[1]
    level = params.ci_level
    if hi <= lo:
        why = f"the stated range from {fmt_number(lo)} to {fmt_number(hi)} tok/s/user is empty"
        return unknown_area(lo, hi, level, why)
    for result in (pair.a, pair.b):
        covered = frontier_range(result)
        if covered is None or lo < covered[0] or hi > covered[1]:
            measured = (
                "it has no frontier"
                if covered is None
                else f"it covers {fmt_number(covered[0])} to {fmt_number(covered[1])} tok/s/user"
            )
            why = (
                f"the stated range from {fmt_number(lo)} to {fmt_number(hi)} tok/s/user lies "
                f"outside {result.meta.name}'s frontier ({measured}): nothing is extrapolated"
            )
            return unknown_area(lo, hi, level, why)
    grid = even_grid(lo, hi)
    a = sweep_band(pair.a, params, samples.get(int(pair.a.meta.id)), grid)
    b = sweep_band(pair.b, params, samples.get(int(pair.b.meta.id)), grid)
    if a.band is None or b.band is None:
        missing = a if a.band is None else b
        return unknown_area(lo, hi, level, f"{missing.result.meta.name}: {missing.reason}")
    return replace(area_summary(a.band, b.band, lo, hi), stated=True)


def pair_bands_json(pb: PairBands) -> PairBandsOutDict:
    """The split as /api/compare gives it: the ratio's interval at each grid interactivity,
    the stretches, the headline and the areas."""
    area = pb.area
    return {
        "reason": pb.reason,
        "headline": pb.headline or None,
        "x_tok_s_user": list(pb.xs) if pb.ratios else [],
        "ratio": [r.value for r in pb.ratios],
        "ratio_low": [r.low for r in pb.ratios],
        "ratio_high": [r.high for r in pb.ratios],
        "stretches": [
            {
                "side": s.side,
                "from_tok_s_user": s.x_from,
                "to_tok_s_user": s.x_to,
                "ratio_low": s.low,
                "ratio_high": s.high,
            }
            for s in pb.stretches
        ],  # fmt: skip
        "area": None
        if area is None
        else {
            "from_tok_s_user": area.lo,
            "to_tok_s_user": area.hi,
            # area_from/area_to gave the range (else the shared range); why it is unknown.
            "stated": area.stated,
            "reason": area.reason,
            "a": interval_json(area.a),
            "b": interval_json(area.b),
            "ratio": interval_json(area.ratio),
        },
    }
