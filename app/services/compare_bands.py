"""Compare's "where is A really better": both sweeps' bands on a grid of their shared range,
the ratio's interval along it, its stretches and headline, and the areas under the frontiers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from app.domain.frontier_band import even_grid
from app.domain.intervals import Interval
from app.domain.stretches import AreaSummary, Stretch, area_summary, headline, ratios, stretches
from app.services.analysis import Params
from app.services.bands import SweepBand, sweep_band
from app.services.comparison import Pair
from app.services.readoff_json import interval_json


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


def pair_bands(pair: Pair, params: Params, samples: Mapping[int, pl.DataFrame]) -> PairBands:
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
    return PairBands(a, b, tuple(grid), tuple(found), tuple(split), words, summary)


def pair_bands_json(pb: PairBands) -> dict[str, Any]:
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
            "a": interval_json(area.a),
            "b": interval_json(area.b),
            "ratio": interval_json(area.ratio),
        },
    }
