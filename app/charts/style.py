"""How series look and where legends go: shared by every chart module.

Colour alone runs out after eight series (and fails readers with colour blindness sooner), so
from the ninth series on the marker symbol and the line dash change too: series i and j share
colour, symbol and dash only when i ≡ j modulo len(PALETTE) × len(SYMBOLS) = 48.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Okabe–Ito: distinguishable with the common forms of colour blindness.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
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
    the legend when it is taller than the plot. static/app.js moves it below the plot on narrow
    screens (data-legend="side" in the figure's config)."""
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


def empty_note(layout: dict[str, Any], reason: str) -> None:
    """Say in the chart why it is empty (centred, in the plot area) instead of blank axes."""
    layout.setdefault("annotations", []).append(
        {
            "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False,
            "text": f"Nothing to draw: {reason}", "font": {"size": 13, "color": "#555"},
            "name": "empty-reason",
        }
    )  # fmt: skip
