"""A deployment's production windows as charts: efficiency, SLO attainment and $/Mtok over time,
and the windows as a cloud coloured by time beside the benchmark frontier."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from app.charts.style import PALETTE, empty_note
from app.domain.numbers import fmt_number, fmt_usd
from app.schemas.answers.typed.common import PlotlyFigureDict

FLAG_COLOUR = "#c0392b"


def _xy(x: float, y: float) -> str:
    return f"{fmt_number(x)} tok/s/user, {fmt_number(y)} tok/s/GPU"


def _time_layout(title: str) -> dict[str, Any]:
    return {
        "margin": {"l": 70, "r": 10, "t": 20, "b": 50},
        "hovermode": "closest",
        "showlegend": False,
        "xaxis": {"title": {"text": "Window end (UTC)"}, "type": "date"},
        "yaxis": {"title": {"text": title}, "rangemode": "tozero"},
    }


def _flagged(windows: Sequence[Mapping[str, Any]], ys: list[float | None]) -> dict[str, Any]:
    marked = [(w, y) for w, y in zip(windows, ys, strict=True) if w["flags"] and y is not None]
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "flagged",
        "x": [w["end"] for w, _ in marked],
        "y": [y for _, y in marked],
        "text": [escape("; ".join(w["flags"])) for w, _ in marked],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {"color": FLAG_COLOUR, "size": 14, "symbol": "x-thin-open", "line": {"width": 3}},
    }


def _efficiency_span(eff: Mapping[str, Any]) -> tuple[float | None, float | None, str]:
    """(lower, upper) in % and the hover text: one value, the buckets' interval, or why not."""
    if eff["value"] is not None:
        v = eff["value"] * 100
        return v, v, fmt_number(v) + " %"
    lower, upper = (None if b is None else b * 100 for b in eff["bounds"])
    if lower is None and upper is None:
        return None, None, escape(eff["reason"] or "unknown")
    low = "?" if lower is None else fmt_number(lower)
    high = "?" if upper is None else fmt_number(upper)
    return lower, upper, f"{low} – {high} % (the TPOT's bucket allows this range)"


def efficiency_figure(doc: Mapping[str, Any]) -> PlotlyFigureDict:
    """One marker per window: a value where the data fix it, else a bar over the interval the
    TPOT's bucket allows (an open side drawn as far as the known side, marked by a triangle)."""
    windows = doc["windows"]
    spans = [_efficiency_span(w["efficiency"]) for w in windows]
    ys: list[float | None] = []
    plus, minus, symbols = [], [], []
    for lower, upper, _ in spans:
        known = [v for v in (lower, upper) if v is not None]
        if not known:
            ys.append(None)
            plus.append(0.0)
            minus.append(0.0)
            symbols.append("circle")
            continue
        low, high = min(known), max(known)
        mid = (low + high) / 2
        ys.append(mid)
        plus.append(high - mid)
        minus.append(mid - low)
        symbols.append(
            "triangle-up" if upper is None else "triangle-down" if lower is None else "circle"
        )
    trace = {
        "type": "scatter",
        "mode": "markers",
        "name": "efficiency",
        "x": [w["end"] for w in windows],
        "y": ys,
        "error_y": {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus},
        "customdata": [text for _, _, text in spans],
        "hovertemplate": "%{x}: %{customdata}<extra></extra>",
        "marker": {"color": PALETTE[0], "size": 8, "symbol": symbols},
    }
    layout = _time_layout("Efficiency, % of the frontier")
    if doc["options"]["min_efficiency"] is not None:
        layout["shapes"] = [
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": doc["options"]["min_efficiency"] * 100,
                "y1": doc["options"]["min_efficiency"] * 100,
                "line": {"color": FLAG_COLOUR, "dash": "dash", "width": 1},
            }
        ]
    if not any(y is not None for y in ys):
        reason = next((w["efficiency"]["reason"] for w in windows), None) or "no windows"
        empty_note(layout, f"no efficiency: {reason}")
    return {"data": [trace, _flagged(windows, ys)], "layout": layout}


def attainment_figure(doc: Mapping[str, Any]) -> PlotlyFigureDict:
    windows = [w for w in doc["windows"] if w["slo"] is not None]
    lower = [w["slo"]["attainment_lower"] * 100 for w in windows]
    upper = [w["slo"]["attainment_upper"] * 100 for w in windows]
    trace = {
        "type": "scatter",
        "mode": "markers",
        "name": "attainment",
        "x": [w["end"] for w in windows],
        "y": [(a + b) / 2 for a, b in zip(lower, upper, strict=True)],
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": [(b - a) / 2 for a, b in zip(lower, upper, strict=True)],
            "arrayminus": [(b - a) / 2 for a, b in zip(lower, upper, strict=True)],
        },
        "customdata": [
            f"{fmt_number(a)} – {fmt_number(b)} % ({w['slo']['verdict']})"
            for w, a, b in zip(windows, lower, upper, strict=True)
        ],
        "hovertemplate": "%{x}: %{customdata}<extra></extra>",
        "marker": {"color": PALETTE[2], "size": 8},
    }
    layout = _time_layout("SLO attainment, % of requests")
    target = doc["options"]["attainment"] * 100
    layout["shapes"] = [
        {
            "type": "line",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "y0": target,
            "y1": target,
            "line": {"color": FLAG_COLOUR, "dash": "dash", "width": 1},
        }
    ]
    if not windows:
        empty_note(layout, "no SLO given: set a TTFT, TPOT or E2EL limit")
    return {"data": [trace], "layout": layout}


def cost_figure(doc: Mapping[str, Any]) -> PlotlyFigureDict:
    windows = doc["windows"]
    ys = [w["usd_per_mtok"] for w in windows]
    trace = {
        "type": "scatter",
        "mode": "lines+markers",
        "name": "$/Mtok",
        "x": [w["end"] for w in windows],
        "y": ys,
        "customdata": [fmt_usd(y) if y is not None else "unknown" for y in ys],
        "hovertemplate": "%{x}: %{customdata}<extra></extra>",
        "line": {"color": PALETTE[1]},
        "connectgaps": False,
    }
    price = doc["price"]
    layout = _time_layout(f"$/Mtok at {price['name'] or 'the page’s price'}")
    if price["usd_per_gpu_hour"] is None:
        empty_note(layout, f"no $/Mtok: {price['reason']}")
    elif not any(y is not None for y in ys):
        empty_note(layout, "no $/Mtok: tok/s per GPU unknown (GPU count not given)")
    return {"data": [trace], "layout": layout}


def _bucket_bars(windows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Horizontal bars over the interactivity each window's TPOT bucket allows (none for the
    exact mean); an open end (a bucket starting at 0 ms) is not drawn past the marker."""
    plus, minus = [], []
    for w in windows:
        x, bucket = w["interactivity_tok_s_user"], w["tpot"]["bucket_ms"]
        if bucket is None:
            plus.append(0.0)
            minus.append(0.0)
            continue
        lower_ms, upper_ms = bucket
        plus.append(1000 / lower_ms - x if lower_ms > 0 else 0.0)
        minus.append(x - (1000 / upper_ms if upper_ms else 0.0))
    return {
        "type": "data",
        "symmetric": False,
        "array": plus,
        "arrayminus": minus,
        "color": "#999999",
        "thickness": 1,
    }


def overlay_figure(doc: Mapping[str, Any]) -> PlotlyFigureDict:
    """The frontier and the windows as a cloud coloured by time (minutes since the first)."""
    front = doc["frontier"]
    traces: list[dict[str, Any]] = []
    if front:
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": f"frontier: {escape(front['sweep'])}",
                "x": front["xs"],
                "y": front["ys"],
                "line": {"color": "#555555", "shape": "linear"},
                "marker": {"color": "#555555", "size": 6},
                "customdata": [_xy(x, y) for x, y in zip(front["xs"], front["ys"], strict=True)],
                "hovertemplate": "%{customdata}<extra>frontier</extra>",
            }
        )
    shown = [
        w
        for w in doc["windows"]
        if w["interactivity_tok_s_user"] is not None and w["tok_s_per_gpu"] is not None
    ]
    first = shown[0]["start_s"] if shown else 0.0
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "production windows",
            "x": [w["interactivity_tok_s_user"] for w in shown],
            "y": [w["tok_s_per_gpu"] for w in shown],
            "customdata": [
                f"{w['end']}<br>{_xy(w['interactivity_tok_s_user'], w['tok_s_per_gpu'])}"
                for w in shown
            ],
            "hovertemplate": "%{customdata}<extra></extra>",
            # A percentile's TPOT lies somewhere in its bucket: so does the interactivity.
            "error_x": _bucket_bars(shown),
            "marker": {
                "size": 9,
                "color": [(w["end_s"] - first) / 60 for w in shown],
                "colorscale": "Viridis",
                "showscale": True,
                "colorbar": {"title": {"text": "minutes"}, "thickness": 12},
                "line": {"width": 1, "color": "#ffffff"},
            },
        }
    )
    layout = {
        "margin": {"l": 70, "r": 10, "t": 20, "b": 50},
        "hovermode": "closest",
        "showlegend": False,
        "xaxis": {"title": {"text": "Interactivity, tok/s/user"}, "rangemode": "tozero"},
        "yaxis": {"title": {"text": "tok/s per GPU"}, "rangemode": "tozero"},
    }
    if not shown:
        empty_note(layout, "no window has both an interactivity and tok/s per GPU")
    return {"data": traces, "layout": layout}


def overlay_trace(name: str, points: list[dict[str, Any]]) -> dict[str, Any]:
    """A deployment's windows over Explore's frontiers: one cloud coloured by time."""
    first = points[0]["end_s"] if points else 0.0
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"production: {escape(name)}",
        "x": [p["x"] for p in points],
        "y": [p["y"] for p in points],
        "customdata": [f"{p['end']}<br>{_xy(p['x'], p['y'])}" for p in points],
        "hovertemplate": "%{customdata}<extra>" + escape(name) + "</extra>",
        "meta": {"production": True},
        "marker": {
            "size": 9,
            "symbol": "diamond",
            "color": [(p["end_s"] - first) / 60 for p in points],
            "colorscale": "Viridis",
            # No colour bar: it would sit on Explore's legend; the note under the chart says
            # dark is early and yellow late.
            "showscale": False,
            "line": {"width": 1, "color": "#333333"},
        },
    }
