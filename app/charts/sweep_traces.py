"""One sweep's traces on the Pareto chart: its frontier (the legend entry), faded dominated
points, shaded spreads of repeated loads and the read-off's star."""

from __future__ import annotations

from typing import Any

from app.charts.hover import hover_groups, line_hover
from app.charts.shown import position
from app.charts.style import colour, series_style
from app.domain.accounting import short_unit
from app.domain.numbers import fmt_count, fmt_load, fmt_number
from app.domain.repeats import spreads
from app.services.analysis import Params, SweepAnalysis


def legend_group(result: SweepAnalysis) -> tuple[str, str]:
    """The legend group of a sweep among many: its model and hardware (key, heading)."""
    model = str(result.meta.model or "model not stated")
    hardware = str(result.meta.hardware or "hardware not stated")
    return f"group-{model}|{hardware}", f"{model} · {hardware}"


def sweep_traces(
    i: int,
    result: SweepAnalysis,
    params: Params,
    frontier_only: bool,
    grouped: bool,
    titled: set[str],
) -> list[dict[str, Any]]:
    """The sweep's frontier (its legend entry), dominated points, spreads and read-off star.

    All carry meta {"sweep": id}: static/js/charts.js hides and shows them together when the legend
    entry is clicked, also when the legend groups several sweeps under one heading.
    """
    name = str(result.meta.name)
    style = series_style(i)
    base: dict[str, Any] = {
        "legendgroup": f"sweep-{result.meta.id}",
        "type": "scatter",
        "meta": {"sweep": result.meta.id},
    }
    frontier_extra: dict[str, Any] = {}
    if grouped:
        group, heading = legend_group(result)
        base["legendgroup"] = group
        if group not in titled:
            titled.add(group)
            frontier_extra["legendgrouptitle"] = {"text": heading, "font": {"size": 11}}
    front = result.frontier
    xs, ys = positions(result, params)
    traces: list[dict[str, Any]] = [
        {
            **base,
            **frontier_extra,
            "name": name,
            "mode": "lines+markers",
            "x": [xs[k] for k in front],
            "y": [ys[k] for k in front],
            # Point ids: clicking a point lists its requests that missed the SLO (charts.js).
            "ids": [str(result.points[k].point_id) for k in front],
            **_with_meta(base, line_hover(result, front, params)),
            "line": {"color": style.colour, "width": 2, "dash": style.dash},
            "marker": {"color": style.colour, "size": 8, "symbol": style.symbol},
        }
    ]
    if not frontier_only:
        traces += _dominated_traces(result, base, (xs, ys), params, style.colour, style.symbol)
    traces.extend(_spread_traces(i, result, base, params))
    star = _star_trace(i, result, base, params)
    if star is not None:
        traces.append(star)
    return traces


def _dominated_traces(
    result: SweepAnalysis,
    base: dict[str, Any],
    at: Positions,
    params: Params,
    color: str,
    shape: str,
) -> list[dict[str, Any]]:
    """The sweep's dominated points, faded, grouped by their hover text."""
    if not result.dominated:
        return []
    xs, ys = at
    name = str(result.meta.name)
    marker = {"color": color, "size": 7, "symbol": shape, "opacity": 0.3}
    return [
        {
            **base,
            "name": f"{name} (dominated)",
            "showlegend": False,
            "mode": "markers",
            "x": [xs[k] for k in ks],
            "y": [ys[k] for k in ks],
            "ids": [str(result.points[k].point_id) for k in ks],
            **_with_meta(base, hover),
            "marker": marker,
        }
        for ks, hover in hover_groups(result, result.dominated, params, "<br><i>dominated</i>")
    ]


def _star_trace(
    i: int, result: SweepAnalysis, base: dict[str, Any], params: Params
) -> dict[str, Any] | None:
    """The read-off's star at the goodput, with its interval as an error bar."""
    op = result.readoff.operating_point
    if op is None or op.interactivity_tok_s_user is None:
        return None
    name = str(result.meta.name)
    y, said = op.tok_s_per_gpu, ""
    statistic = result.intervals.statistic if result.intervals else None
    shown = result.readoff.goodput_tok_s_per_gpu
    if statistic is not None and shown is not None and result.intervals is not None:
        # The star is the figure the table shows: the runs' statistic, not the best run.
        y = shown
        best = fmt_number(result.intervals.best_run_tok_s_per_gpu, short_unit(params.accounting))
        said = f" ({statistic}; best run {best})"
    at_x = _star_x(result, params)
    return {
        **base,
        "name": f"{name} · goodput at SLO",
        "showlegend": False,
        "mode": "markers",
        "x": [position(at_x)],
        "y": [position(y)],
        "ids": [str(op.point_id)],
        "hovertemplate": (
            f"<b>{name}</b><br>goodput at SLO: "
            f"{fmt_number(y, short_unit(params.accounting))}{said}"
            f"<br>at {fmt_number(at_x, 'tok/s/user')}<extra></extra>"
        ),
        "marker": {
            "color": series_style(i).colour,
            "size": 18,
            "symbol": "star",
            "line": {"color": "#000", "width": 1.5},
        },
        **_error_bars(result, y, colour(i)),
    }


Positions = tuple[list[float | int | None], list[float | int | None]]


def _star_x(result: SweepAnalysis, params: Params) -> float | None:
    """The operating point's x on the axis drawn: its E2E-normalized interactivity on the E2E
    axis (the point's own x), else its per-token speed."""
    op = result.readoff.operating_point
    if op is None:
        return None
    if params.interactivity != "e2e":
        return op.interactivity_tok_s_user
    at = next((i for i, p in enumerate(result.points) if p.point_id == op.point_id), None)
    return None if at is None else result.xs[at]


def positions(result: SweepAnalysis, params: Params) -> Positions:
    """Every point's x and y as plotted (app.charts.shown.position): from the points and axes
    alone, which never change, so rounded once per process per sweep and axes."""
    key = (
        "positions",
        params.stat,
        params.basis,
        result.meta.num_gpus,
        params.interactivity,
        params.e2e_percentile,
    )
    if key not in result.derived:
        result.derived[key] = (
            [position(x) for x in result.xs],
            [position(y) for y in result.ys],
        )
    positions: Positions = result.derived[key]
    return positions


def _with_meta(base: dict[str, Any], hover: dict[str, Any]) -> dict[str, Any]:
    """Hover keys for a trace of `base`, their meta (the hover's numbers) joined to the base's."""
    if "meta" not in hover:
        return hover
    return {**hover, "meta": {**base["meta"], **hover["meta"]}}


def _error_bars(result: SweepAnalysis, y: float, color: str) -> dict[str, Any]:
    """The goodput's interval as a vertical error bar on the star (none without an interval)."""
    iv = result.intervals.goodput_tok_s_per_gpu if result.intervals else None
    if iv is None or iv.low is None or iv.high is None:
        return {}
    return {
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": [max(0.0, iv.high - y)],
            "arrayminus": [max(0.0, y - iv.low)],
            "color": color,
            "thickness": 2,
            "visible": True,
        }
    }


def _spread_traces(
    i: int, result: SweepAnalysis, base: dict[str, Any], params: Params
) -> list[dict[str, Any]]:
    """A shaded min–max box per load level that was run more than once (never averaged)."""
    key = ("spreads", params.stat, params.basis, result.meta.num_gpus)
    if key not in result.derived:  # from the points and axes alone, which never change
        loads = [
            p.concurrency if p.concurrency is not None else p.request_rate for p in result.points
        ]
        result.derived[key] = spreads(loads, result.xs, result.ys)
    out = []
    for s in result.derived[key]:
        if None in (s.x_min, s.x_max, s.y_min, s.y_max):
            continue
        x0, x1, y0, y1 = s.x_min, s.x_max, s.y_min, s.y_max
        out.append(
            {
                **base,
                "name": f"{result.meta.name} · {fmt_count(s.runs, 'run')} at {fmt_load(s.load)}",
                "showlegend": False,
                "mode": "lines",
                "fill": "toself",
                "x": [x0, x1, x1, x0, x0],
                "y": [y0, y0, y1, y1, y0],
                "line": {"color": colour(i), "width": 1, "dash": "dot"},
                "opacity": 0.35,
                "hoverinfo": "text",
                "text": (
                    f"{fmt_count(s.runs, 'run')} at load {fmt_load(s.load)}: "
                    f"{fmt_number(y0)}–{fmt_number(y1)} tok/s/GPU, "
                    f"{fmt_number(x0)}–{fmt_number(x1)} tok/s/user"
                ),
            }
        )
    return out
