"""Compare's frontier chart: every system's Pareto frontier (throughput per accounting unit
against interactivity), each sweep's band with bands on, and each pair's stretches where A is
significantly above or below B shaded between the two frontiers, named in the legend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.charts.bands import STRETCH_FILL, frontier_band_traces
from app.charts.pareto import pareto_figure
from app.domain.accounting import short_unit
from app.domain.numbers import fmt_number
from app.domain.pareto import value_at
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.services.analysis import Params, SweepAnalysis
from app.services.bands import SweepBand
from app.services.compare.bands import PairBands

SIDE_WORDS = {"above": "significantly above", "below": "significantly below"}


def stretch_traces(split: Sequence[PairBands]) -> list[dict[str, Any]]:
    """Per pair and stretch where A is significantly above (green) or below (orange) B, the
    area between the two frontiers over the stretch's grid interactivities, as one closed
    polygon (A's frontier left to right, then B's back), each frontier read as the chart draws
    it: straight lines between its points. One legend entry per pair and side, "A
    significantly above B"; a click hides every stretch of that entry."""
    out: list[dict[str, Any]] = []
    for i, pb in enumerate(split, start=1):
        if pb.a is None or pb.b is None or pb.a.band is None or pb.b.band is None:
            continue
        a_name, b_name = str(pb.a.result.meta.name), str(pb.b.result.meta.name)
        named: set[str] = set()
        for s in pb.stretches:
            fill = STRETCH_FILL.get(s.side)
            if fill is None:
                continue
            xs, ya, yb = [], [], []
            for x in (x for x in pb.xs if s.x_from <= x <= s.x_to):
                on_a, on_b = drawn_at(pb.a.result, x), drawn_at(pb.b.result, x)
                if on_a is not None and on_b is not None:
                    xs.append(x)
                    ya.append(on_a)
                    yb.append(on_b)
            if not xs:
                continue
            label = f"{a_name} {SIDE_WORDS[s.side]} {b_name}"
            ratio = (
                f"{fmt_number(s.low)}–{fmt_number(s.high)}×"
                if s.low is not None and s.high is not None
                else "no interval"
            )
            out.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": label,
                    "legendgroup": f"stretch-{i}-{s.side}",
                    "showlegend": s.side not in named,
                    "x": [*xs, *reversed(xs)],
                    "y": [*ya, *reversed(yb)],
                    "fill": "toself",
                    "fillcolor": fill.replace("0.12)", "0.35)"),
                    "line": {"width": 0},
                    "hoveron": "fills",
                    "text": (
                        f"{label} from {fmt_number(s.x_from)} to {fmt_number(s.x_to)} "
                        f"tok/s/user: A ÷ B {ratio}"
                    ),
                    "hoverinfo": "text",
                    "meta": {"stretch": s.side, "pair": i},
                }
            )
            named.add(s.side)
    return out


def drawn_at(result: SweepAnalysis, x: float) -> float | None:
    """The sweep's frontier at x as the chart draws it (straight lines between its points)."""
    front = [k for k in result.frontier if result.xs[k] is not None and result.ys[k] is not None]
    fx = [float(result.xs[k] or 0) for k in front]
    fy = [float(result.ys[k] or 0) for k in front]
    return value_at(fx, fy, x, "linear").y


def compare_frontier_figure(
    results: Sequence[SweepAnalysis],
    params: Params,
    order: Sequence[int],
    found: Sequence[SweepBand] | None = None,
    split: Sequence[PairBands] | None = None,
    *,
    log_x: bool = False,
    log_y: bool = False,
) -> PlotlyFigureDict:
    """The systems' frontiers as Explore draws them (frontier only), with `found` bands and
    `split` stretches beneath the lines (neither moves the axes)."""
    beneath: list[dict[str, Any]] = []
    if split:
        beneath.extend(stretch_traces(split))
    if found:
        beneath.extend(frontier_band_traces(found, order, short_unit(params.accounting)))
    figure = pareto_figure(
        list(results),
        params,
        log_x=log_x,
        log_y=log_y,
        frontier_only=True,
        band_traces=beneath,
    )
    figure["layout"]["uirevision"] = "compare-frontier"
    return figure
