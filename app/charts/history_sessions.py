"""History for multi-turn runs (issue 49): session attainment at the SLO (with its Wilson
interval as error bars) and E2E-normalized interactivity at the operating point, by measured
date, one line per multi-turn configuration."""

from __future__ import annotations

from html import escape
from typing import Any

from app.charts.style import empty_note, series_style, side_legend
from app.domain.numbers import fmt_number, fmt_percent
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.services.history import ConfigHistory, HistoryRow
from app.services.readoff.document import e2e_at


def attainment_of(row: HistoryRow) -> tuple[float | None, float | None, float | None]:
    """(attainment, Wilson low, Wilson high) of the sessions at the operating point."""
    figures = row.result.sessions
    stats = None if figures is None else figures.sessions
    if stats is None:
        return None, None, None
    return stats.attainment, stats.low, stats.high


def e2e_of(row: HistoryRow) -> float | None:
    """E2E-normalized interactivity at the operating point, when its samples were read."""
    op = row.result.readoff.operating_point
    return None if op is None else e2e_at(row.result, op.point_id)


def sessions_figure(groups: list[ConfigHistory], *, e2e: bool) -> PlotlyFigureDict:
    """Session attainment (or, with `e2e`, E2E-normalized interactivity) by date, per
    multi-turn configuration; undated sweeps stay in the table."""
    traces = [_trace(i, group, e2e) for i, group in enumerate(g for g in groups if g.multi_turn)]
    return {"data": traces, "layout": _layout(traces, e2e)}


def _trace(i: int, group: ConfigHistory, e2e: bool) -> dict[str, Any]:
    rows = [row for row in group.rows if row.date is not None]
    style = series_style(i)
    trace: dict[str, Any] = {
        "type": "scatter",
        "mode": "lines+markers",
        "name": group.label,
        "x": [row.date.isoformat() for row in rows if row.date is not None],
        "text": [f"<b>{escape(row.result.meta.name)}</b>" for row in rows],
        "hovertemplate": "%{text}<br>%{x}: %{customdata}<extra></extra>",
        "line": {"color": style.colour, "dash": style.dash},
        "marker": {"color": style.colour, "size": 8, "symbol": style.symbol},
        "connectgaps": False,
    }
    if e2e:
        ys = [e2e_of(row) for row in rows]
        return trace | {"y": ys, "customdata": [fmt_number(y, "tok/s/user") for y in ys]}
    return trace | _attainment_fields([attainment_of(row) for row in rows], style.colour)


def _attainment_fields(
    found: list[tuple[float | None, float | None, float | None]], colour: str
) -> dict[str, Any]:
    """The attainments with their Wilson ends as asymmetric error bars."""

    def above(a: float | None, end: float | None) -> float | None:
        return None if a is None or end is None else end - a

    def below(a: float | None, end: float | None) -> float | None:
        return None if a is None or end is None else a - end

    return {
        "y": [a for a, _, _ in found],
        "customdata": [
            f"{fmt_percent(a)} [{fmt_percent(lo)}, {fmt_percent(hi)}]" for a, lo, hi in found
        ],
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": [above(a, hi) for a, _, hi in found],
            "arrayminus": [below(a, lo) for a, lo, _ in found],
            "color": colour,
        },
    }


def _layout(traces: list[dict[str, Any]], e2e: bool) -> dict[str, Any]:
    title = (
        "E2E-normalized interactivity at the operating point, tok/s/user"
        if e2e
        else "Sessions with every turn within the SLO (Wilson interval)"
    )
    yaxis: dict[str, Any] = {"title": {"text": title}, "rangemode": "tozero"}
    if not e2e:
        yaxis |= {"tickformat": ".0%", "range": [0, 1.02]}
    layout: dict[str, Any] = {
        "margin": {"l": 70, "r": 10, "t": 20, "b": 60},
        "hovermode": "closest",
        "legend": side_legend(),
        "xaxis": {"title": {"text": "Measured date"}, "type": "date"},
        "yaxis": yaxis,
    }
    if not any(t["x"] for t in traces):
        empty_note(layout, "no multi-turn sweep has a measured date (they are in the table)")
    elif not any(y is not None for t in traces for y in t["y"]):
        what = "an E2E-normalized interactivity" if e2e else "sessions judged at your SLO"
        empty_note(layout, f"no dated multi-turn sweep has {what}")
    return layout
