"""Confidence bands as Plotly traces: a frontier's band on Explore, the ratio's band and its
stretches on Compare's ratio chart. Each band is two traces, the upper end then the lower end
filled up to it ("tonexty"); a grid point without an interval is a gap."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.charts.style import colour
from app.domain.numbers import fmt_number, fmt_percent
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.services.bands import SweepBand
from app.services.compare.bands import PairBands


def rgba(hex_colour: str, alpha: float) -> str:
    r, g, b = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def shaded(
    name: str,
    xs: Sequence[float],
    lows: Sequence[float | None],
    highs: Sequence[float | None],
    hex_colour: str,
    base: dict[str, Any],
    unit: str,
) -> list[dict[str, Any]]:
    """The upper and lower ends of a band, the area between them filled; hover gives both."""
    hover = [
        [fmt_number(x), fmt_number(lo), fmt_number(hi)] if lo is not None and hi is not None else
        [fmt_number(x), "–", "–"]
        for x, lo, hi in zip(xs, lows, highs, strict=True)
    ]  # fmt: skip
    common = {
        **base,
        "type": "scatter",
        "mode": "lines",
        "showlegend": False,
        "x": list(xs),
        "line": {"width": 0, "color": hex_colour},
        "customdata": hover,
    }
    return [
        {**common, "name": f"{name} · band (upper)", "y": list(highs), "hoverinfo": "skip"},
        {
            **common,
            "name": f"{name} · band",
            "y": list(lows),
            "fill": "tonexty",
            "fillcolor": rgba(hex_colour, 0.18),
            "hovertemplate": (
                f"<b>{name}</b><br>%{{customdata[0]}} tok/s/user: "
                f"%{{customdata[1]}}–%{{customdata[2]}} {unit}<extra>band</extra>"
            ),
        },
    ]


def frontier_band_traces(
    found: Sequence[SweepBand], order: Sequence[int], unit: str = "tok/s/GPU"
) -> list[dict[str, Any]]:
    """Each sweep's frontier band in its series colour (`order`: the selection, as the chart's
    colours follow it); a sweep without a band draws nothing (the page says why)."""
    out: list[dict[str, Any]] = []
    for sb in found:
        b = sb.band
        if b is None or not b.known:
            continue
        sweep_id = int(sb.result.meta.id)
        i = order.index(sweep_id) if sweep_id in order else 0
        base = {"legendgroup": f"sweep-{sweep_id}", "meta": {"sweep": sweep_id, "band": True}}
        name = f"{sb.result.meta.name} {fmt_percent(b.level)}"
        out.extend(shaded(name, b.x, b.low, b.high, colour(i), base, unit))
    return out


STRETCH_FILL = {"above": "rgba(0,158,115,0.12)", "below": "rgba(213,94,0,0.12)"}


def add_stretches(figure: PlotlyFigureDict, split: Sequence[PairBands]) -> None:
    """On the ratio chart: each pair's ratio band (in its line's colour) and, behind it, its
    stretches where A is significantly above B (green) or below (orange), from the first to
    the last grid interactivity of each stretch."""
    traces: list[dict[str, Any]] = []
    for i, pb in enumerate(split, start=1):
        if not pb.ratios or pb.a is None or pb.b is None:
            continue
        name = f"{pb.a.result.meta.name} ÷ {pb.b.result.meta.name}"
        lows = [r.low for r in pb.ratios]
        highs = [r.high for r in pb.ratios]
        base = {"meta": {"band": True, "pair": i}}
        traces.extend(shaded(name, pb.xs, lows, highs, colour(i), base, "×"))
        for s in pb.stretches:
            fill = STRETCH_FILL.get(s.side)
            if fill is None:
                continue
            figure["layout"]["shapes"].append(
                {
                    "type": "rect",
                    "name": f"stretch-{s.side}",
                    "xref": "x",
                    "x0": s.x_from,
                    "x1": s.x_to,
                    "yref": "paper",
                    "y0": 0,
                    "y1": 1,
                    "fillcolor": fill,
                    "line": {"width": 0},
                    "layer": "below",
                }
            )
    # Beneath the ratio lines, which stay the traces the legend lists first.
    figure["data"] = traces + figure["data"]
