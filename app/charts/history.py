"""The History chart: goodput or $/Mtok at the current SLO by measured date, per configuration."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from app.charts.style import empty_note, series_style, side_legend
from app.domain.numbers import fmt_number, fmt_usd
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.services.history import ConfigHistory, HistoryRow, RegressionMark
from app.services.readoff.price_columns import PriceCell
from app.services.readoff.units_shown import unit_words

REGRESSION_COLOUR = "#c0392b"


def history_figure(
    groups: list[ConfigHistory],
    cells: dict[int, list[PriceCell]],
    *,
    cost: bool,
    marks: dict[int, list[RegressionMark]] | None = None,
) -> PlotlyFigureDict:
    """Goodput (or $/Mtok under the first price column) at the current SLO by date; sweeps a
    check found to be a regression carry a red cross."""

    def y_of(row: HistoryRow) -> float | None:
        if cost:
            mine = cells.get(row.result.meta.id) or []
            return mine[0].usd_per_mtok if mine else None
        return row.result.readoff.goodput_tok_s_per_gpu

    traces = [_group_trace(i, group, y_of, cost) for i, group in enumerate(groups)]
    marked = [
        row
        for group in groups
        for row in group.rows
        if row.date is not None and (marks or {}).get(row.result.meta.id)
    ]
    if marked:
        traces.append(_regression_trace(marked, [y_of(row) for row in marked], marks or {}))
    rows = [row for group in groups for row in group.rows]
    unit = unit_words(rows[0].result) if rows else "GPU"
    title = "$/Mtok at your SLO" if cost else f"Goodput at your SLO, tok/s per {unit}"
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
    _empty_notes(layout, groups, traces, cost)
    return {"data": traces, "layout": layout}


def _group_trace(
    i: int, group: ConfigHistory, y_of: Callable[[HistoryRow], float | None], cost: bool
) -> dict[str, Any]:
    """One configuration's dated sweeps, as a line in its series style."""
    rows = [row for row in group.rows if row.date is not None]  # undated: table only
    ys = [y_of(row) for row in rows]
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": group.label,
        "x": [row.date.isoformat() for row in rows if row.date is not None],
        "y": ys,
        # The name in bold, escaped (it comes from an upload): hover numbers stand apart.
        "text": [f"<b>{escape(row.result.meta.name)}</b>" for row in rows],
        "customdata": [fmt_usd(y) if cost else fmt_number(y) for y in ys],
        "hovertemplate": "%{text}<br>%{x}: %{customdata}<extra></extra>",
        "line": {"color": series_style(i).colour, "dash": series_style(i).dash},
        "marker": {
            "color": series_style(i).colour,
            "size": 8,
            "symbol": series_style(i).symbol,
        },
        "connectgaps": False,
    }


def _empty_notes(
    layout: dict[str, Any], groups: list[ConfigHistory], traces: list[dict[str, Any]], cost: bool
) -> None:
    """Why the chart is empty, when it is."""
    if not groups:
        empty_note(layout, "no series selected")
    elif not any(t["x"] for t in traces):
        empty_note(layout, "no selected sweep has a measured date (they are listed in the table)")
    elif not any(y is not None for t in traces for y in t["y"]):
        what = "a $/Mtok under the first price" if cost else "a goodput at your SLO"
        empty_note(layout, f"no dated sweep has {what}")


def _regression_trace(
    rows: list[HistoryRow], ys: list[float | None], marks: dict[int, list[RegressionMark]]
) -> dict[str, Any]:
    """A cross on each sweep a check found to be a regression (at 0 when it has no value at
    this SLO: the cross still shows where the regression landed)."""
    notes = []
    for row in rows:
        found = marks[row.result.meta.id]
        notes.append(
            "<br>".join(f"check #{m.check_id} vs {m.baseline_ref}: {m.headline}" for m in found)
        )
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "regression found by a check",
        "x": [row.date.isoformat() for row in rows if row.date is not None],
        "y": [0 if y is None else y for y in ys],
        "text": notes,
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {
            "color": REGRESSION_COLOUR,
            "size": 16,
            "symbol": "x-thin-open",
            "line": {"width": 3, "color": REGRESSION_COLOUR},
        },
    }
