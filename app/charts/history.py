"""The History chart: goodput or $/Mtok at the current SLO by measured date, per configuration."""

from __future__ import annotations

from typing import Any

from app.charts.style import colour, symbol
from app.services.analysis import Cost
from app.services.history import ConfigHistory


def history_figure(
    groups: list[ConfigHistory], cells: dict[int, list[Cost | None]], *, cost: bool
) -> dict[str, Any]:
    """Goodput (or $/Mtok under the first price column) at the current SLO by date."""
    traces = []
    for i, group in enumerate(groups):
        ys = []
        rows = [row for row in group.rows if row.date is not None]  # undated: table only
        for row in rows:
            if cost:
                first = (cells.get(row.result.meta["id"]) or [None])[0]
                ys.append(first.usd_per_mtok if first else None)
            else:
                ys.append(row.result.readoff.goodput_tok_s_per_gpu)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": group.label,
                "x": [row.date.isoformat() for row in rows if row.date is not None],
                "y": ys,
                "text": [str(row.result.meta["name"]) for row in rows],
                "hovertemplate": "%{text}<br>%{x}: %{y:,.2f}<extra></extra>",
                "line": {"color": colour(i)},
                "marker": {"color": colour(i), "size": 8, "symbol": symbol(i)},
                "connectgaps": False,
            }
        )
    title = "$/Mtok at your SLO" if cost else "Goodput at your SLO, tok/s per GPU"
    return {
        "data": traces,
        "layout": {
            "margin": {"l": 70, "r": 20, "t": 20, "b": 60},
            "hovermode": "closest",
            "legend": {"orientation": "h", "y": -0.25},
            "xaxis": {
                "title": {"text": "Measured date (undated sweeps are in the table only)"},
                "type": "date",
            },
            "yaxis": {"title": {"text": title}, "rangemode": "tozero"},
        },
    }
