"""The History chart: goodput or $/Mtok at the current SLO by measured date, per configuration."""

from __future__ import annotations

from typing import Any

from app.charts.style import empty_note, series_style, side_legend
from app.services.analysis import Cost
from app.services.history import ConfigHistory


def history_figure(
    groups: list[ConfigHistory], cells: dict[int, list[Cost | None]], *, cost: bool
) -> dict[str, Any]:
    """Goodput (or $/Mtok under the first price column) at the current SLO by date."""
    traces: list[dict[str, Any]] = []
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
                "line": {"color": series_style(i).colour, "dash": series_style(i).dash},
                "marker": {
                    "color": series_style(i).colour,
                    "size": 8,
                    "symbol": series_style(i).symbol,
                },
                "connectgaps": False,
            }
        )
    title = "$/Mtok at your SLO" if cost else "Goodput at your SLO, tok/s per GPU"
    layout: dict[str, Any] = {
        "margin": {"l": 70, "r": 10, "t": 20, "b": 60},
        "hovermode": "closest",
        "legend": side_legend(),
        "xaxis": {
            "title": {"text": "Measured date (undated sweeps are in the table only)"},
            "type": "date",
        },
        "yaxis": {"title": {"text": title}, "rangemode": "tozero"},
    }
    if not groups:
        empty_note(layout, "no series selected")
    elif not any(t["x"] for t in traces):
        empty_note(layout, "no selected sweep has a measured date (they are listed in the table)")
    elif not any(y is not None for t in traces for y in t["y"]):
        what = "a $/Mtok under the first price" if cost else "a goodput at your SLO"
        empty_note(layout, f"no dated sweep has {what}")
    return {"data": traces, "layout": layout}
