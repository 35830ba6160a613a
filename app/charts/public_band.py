"""Compare's public band chart: each dated public run's goodput at your SLO, by date, with your
goodput and its interval across it (issue 51)."""

from __future__ import annotations

from html import escape
from typing import Any

from app.charts.style import empty_note, series_style, side_legend
from app.domain.numbers import fmt_number
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.services.compare.public_record import AgainstPublic
from app.services.readoff.units_shown import unit_words

YOURS_COLOUR = "#0072b2"


def public_band_figure(item: AgainstPublic) -> PlotlyFigureDict:
    """The band's runs by date (those with a goodput: a run without one is in the table only)
    and, when your sweep has a goodput, a line at it over a shaded interval."""
    c = item.comparison
    unit = unit_words(item.band.runs[0])
    runs = [r for r in c.counted if r.measured_at is not None]
    xs = [r.measured_at.isoformat() for r in runs if r.measured_at is not None]
    ys = [r.goodput_tok_s_per_gpu for r in runs]
    style = series_style(1)
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "public runs",
            "x": xs,
            "y": ys,
            # The run's name in bold, escaped (it comes from an upload).
            "text": [f"<b>{escape(r.name)}</b>" for r in runs],
            "customdata": [fmt_number(y) for y in ys],
            "hovertemplate": "%{text}<br>%{x}: %{customdata}<extra></extra>",
            "line": {"color": style.colour, "dash": "dot"},
            "marker": {"color": style.colour, "size": 9, "symbol": style.symbol},
        }
    ]
    layout: dict[str, Any] = {
        "margin": {"l": 70, "r": 10, "t": 20, "b": 60},
        "hovermode": "closest",
        "legend": side_legend(),
        "xaxis": {"title": {"text": "Date of the public run"}, "type": "date"},
        "yaxis": {
            "title": {"text": f"Goodput at your SLO, tok/s per {unit}"},
            "rangemode": "tozero",
        },
        "shapes": [],
    }
    yours = None if item.yours is None else item.yours.readoff.goodput_tok_s_per_gpu
    if yours is not None and xs:
        name = escape(item.yours.meta.name) if item.yours else ""
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "your goodput",
                "x": [xs[0], xs[-1]],
                "y": [yours, yours],
                "text": [f"<b>{name}</b>"] * 2,
                "customdata": [fmt_number(yours)] * 2,
                "hovertemplate": "%{text}: %{customdata}<extra></extra>",
                "line": {"color": YOURS_COLOUR, "width": 2},
            }
        )
        low, high = _your_interval(item)
        if low is not None and high is not None:
            layout["shapes"].append(
                {
                    "type": "rect",
                    "xref": "paper",
                    "yref": "y",
                    "x0": 0,
                    "x1": 1,
                    "y0": low,
                    "y1": high,
                    "fillcolor": YOURS_COLOUR,
                    "opacity": 0.12,
                    "line": {"width": 0},
                    "layer": "below",
                }
            )
    if not xs:
        empty_note(layout, c.reason or "no dated public run has a goodput at your SLO")
    return {"data": traces, "layout": layout}


def _your_interval(item: AgainstPublic) -> tuple[float | None, float | None]:
    intervals = None if item.yours is None else item.yours.intervals
    ci = None if intervals is None else intervals.goodput_tok_s_per_gpu
    return (ci.low, ci.high) if ci is not None and ci.known else (None, None)
