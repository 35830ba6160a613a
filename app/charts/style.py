"""How series look and where legends go: shared by every chart module.

Colour alone runs out after eight series (and fails readers with colour blindness sooner), so
from the ninth series on the marker symbol and the line dash change too: series i and j share
colour, symbol and dash only when i ≡ j modulo len(PALETTE) × len(SYMBOLS) = 48.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Okabe–Ito hues (distinguishable with the common forms of colour blindness), darkened where the
# original is too pale on white: every colour keeps a contrast of at least 3:1 against the white
# plot (WCAG 2 for graphics). Orange, sky blue and pink are darker; yellow (1.3:1) became olive.
PALETTE = ("#0072B2", "#B07800", "#009E73", "#B9588F", "#2A8BC9", "#D55E00", "#000000", "#6E7F00")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


@dataclass(frozen=True)
class SeriesStyle:
    colour: str
    symbol: str
    dash: str


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def symbol(i: int) -> str:
    return SYMBOLS[(i // len(PALETTE)) % len(SYMBOLS)]


def dash(i: int) -> str:
    """Solid for the first eight series, then a new dash with each new round of colours."""
    return DASHES[(i // len(PALETTE)) % len(DASHES)]


def series_style(i: int) -> SeriesStyle:
    return SeriesStyle(colour(i), symbol(i), dash(i))


def side_legend(**extra: Any) -> dict[str, Any]:
    """A legend beside the plot, never over it: Plotly reserves the margin it needs and scrolls
    the legend when it is taller than the plot. static/js/charts.js moves it below the plot on
    narrow screens, every entry shown."""
    return {
        "orientation": "v",
        "x": 1.02,
        "xanchor": "left",
        "y": 1,
        "yanchor": "top",
        "font": {"size": 11},
        "tracegroupgap": 6,
        "groupclick": "toggleitem",
        **extra,
    }


def top_legend() -> dict[str, Any]:
    """A one- or two-row legend above the plot, for a chart whose right edge holds an axis."""
    return {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}


def empty_note(layout: dict[str, Any], reason: str, *, hide_axes: bool = True) -> None:
    """Say in the chart why it is empty (centred, in the plot area) instead of blank axes: the
    axes are hidden, as Plotly would otherwise draw them from −1 to 6 around nothing. A chart
    that still draws something else (a claim with no sweep beside it) keeps them."""
    if hide_axes:
        for key in [k for k in layout if k.startswith(("xaxis", "yaxis"))] or ["xaxis", "yaxis"]:
            layout[key] = {**(layout.get(key) or {}), "visible": False}
        layout["showlegend"] = False
    layout.setdefault("annotations", []).append(
        {
            "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False,
            "text": f"Nothing to draw: {reason}", "font": {"size": 13, "color": "#555"},
            "name": "empty-reason",
        }
    )  # fmt: skip


def button_bar(name: str, buttons: list[dict[str, Any]]) -> dict[str, Any]:
    """Plotly buttons in a row above the plot's right end (one style for every chart's views)."""
    return {
        "name": name,
        "type": "buttons",
        "direction": "left",
        "showactive": True,
        "active": 0,
        "x": 1,
        "xanchor": "right",
        "y": 1.01,
        "yanchor": "bottom",
        "pad": {"t": 0, "r": 0, "b": 2, "l": 0},
        "font": {"size": 12},
        "bgcolor": "#fff",
        "bordercolor": "#888",
        "buttons": buttons,
    }
