"""Plotly specs (plain dicts) for Compare: ratio curves and SLO sensitivity."""

from __future__ import annotations

from typing import Any

from app.charts.style import colour, empty_note, series_style, side_legend
from app.domain.slo import Slo
from app.services.comparison import Pair, PriceGroup, SensitivitySeries

METRIC_NAMES = {"tpot": "TPOT", "ttft": "TTFT", "e2el": "E2EL"}


def _layout(x_title: str, y_title: str, log_y: bool = False) -> dict[str, Any]:
    return {
        "margin": {"l": 70, "r": 10, "t": 20, "b": 60},
        "hovermode": "x unified",
        "legend": side_legend(),
        "xaxis": {"title": {"text": x_title}, "zeroline": False},
        "yaxis": {"title": {"text": y_title}, "type": "log" if log_y else "linear"},
        "shapes": [],
    }


def _unity(layout: dict[str, Any]) -> None:
    layout["shapes"].append(
        {
            "type": "line",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "yref": "y",
            "y0": 1,
            "y1": 1,
            "line": {"color": "#888", "width": 1, "dash": "dash"},
        }
    )


def _slo_line(layout: dict[str, Any], slo: Slo) -> None:
    floor = slo.min_tok_s_user
    if floor is not None:
        layout["shapes"].append(
            {
                "type": "line",
                "xref": "x",
                "x0": floor,
                "x1": floor,
                "yref": "paper",
                "y0": 0,
                "y1": 1,
                "line": {"color": "#D55E00", "width": 1.5, "dash": "dot"},
            }
        )


def throughput_ratio_figure(pairs: list[Pair], slo: Slo) -> dict[str, Any]:
    """A ÷ baseline of tok/s per GPU across the shared interactivity range, one line per pair."""
    traces = []
    for i, pair in enumerate(pairs, start=1):
        pts = pair.curve.points
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{pair.a.meta['name']} ÷ {pair.b.meta['name']}",
                "x": [p.x_tok_s_user for p in pts],
                "y": [p.throughput_ratio for p in pts],
                "line": {
                    "color": colour(i),
                    "width": 2,
                    "shape": "hv",
                    "dash": series_style(i).dash,
                },  # fmt: skip
                "hovertemplate": "%{x:,.1f} tok/s/user: %{y:,.3f}×<extra></extra>",
            }
        )
    layout = _layout(
        '<a href="/metrics#interactivity">Interactivity (tok/s/user)</a>',
        "Throughput per GPU, ratio (×)",
    )
    _unity(layout)
    _slo_line(layout, slo)
    if not any(t["x"] for t in traces):
        empty_note(layout, _no_ratio_reason(pairs))
    return {"data": traces, "layout": layout}


def _no_ratio_reason(pairs: list[Pair]) -> str:
    if not pairs:
        return "select two or more systems to compare"
    return "the systems' measured interactivity ranges do not overlap"


def cost_ratio_figure(pairs: list[Pair], groups: list[PriceGroup], slo: Slo) -> dict[str, Any]:
    """A ÷ baseline of $/Mtok per price column (rental and ownership side by side)."""
    traces = []
    dashes = ("solid", "dash", "dot", "dashdot")
    for i, pair in enumerate(pairs, start=1):
        pts = pair.curve.points
        for g, (group, curve) in enumerate(zip(groups, pair.cost_curves, strict=True)):
            if all(v is None for v in curve):
                continue
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": f"{pair.a.meta['name']} ÷ {pair.b.meta['name']} · {group.label}",
                    "x": [p.x_tok_s_user for p in pts],
                    "y": list(curve),
                    "line": {
                        "color": colour(i),
                        "width": 2,
                        "shape": "hv",
                        "dash": dashes[g % len(dashes)],
                    },
                    "hovertemplate": "%{x:,.1f} tok/s/user: %{y:,.3f}×<extra></extra>",
                }
            )
    layout = _layout(
        '<a href="/metrics#interactivity">Interactivity (tok/s/user)</a>',
        '<a href="/metrics#cost">$/Mtok</a>, ratio (×; below 1 = cheaper)',
    )
    _unity(layout)
    _slo_line(layout, slo)
    if not any(t["x"] for t in traces):
        reason = _no_ratio_reason(pairs)
        if pairs and any(p.curve.points for p in pairs):
            reason = "no price applies to both systems of any pair"
        empty_note(layout, reason)
    return {"data": traces, "layout": layout}


def sensitivity_figure(
    series: list[SensitivitySeries], metric: str, percentile: str, costs: bool
) -> dict[str, Any]:
    """Goodput (or $/Mtok) of each sweep against the limit of one metric, as a step line."""
    traces = []
    for i, s in enumerate(series):
        ys = list(s.costs) if costs else [st.goodput_tok_s_per_gpu for st in s.steps]
        style = series_style(i)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": str(s.result.meta["name"]),
                "x": [st.limit_ms for st in s.steps],
                "y": ys,
                "line": {"color": style.colour, "shape": "hv", "dash": style.dash},
                "marker": {"size": 5, "symbol": style.symbol},
                "connectgaps": False,
            }
        )
    name = METRIC_NAMES.get(metric, metric)
    y_title = "$/Mtok" if costs else "Goodput, tok/s per GPU"
    layout = _layout(f"{percentile} {name} limit (ms) — tighter to the left", y_title)
    layout["hovermode"] = "closest"
    return {"data": traces, "layout": layout}
