"""Plotly spec (a plain dict) for Plan: $/month against demand, one step line per option."""

from __future__ import annotations

import math
from typing import Any

from app.charts import ticks
from app.charts.ranges import LOG_PAD
from app.charts.style import button_bar, colour, empty_note, side_legend
from app.domain import plan as domain
from app.domain.numbers import fmt_number, fmt_usd
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.services.planning.sizing import Option, Plan

UNIT_WORDS = {
    "requests_per_s": "requests/s",
    "output_tok_s": "output tokens/s",
    "tokens_per_day": "tokens/day (input + output)",
    "concurrent_sessions": "concurrent sessions",
}
DASHES = ("solid", "dash", "dot", "dashdot")


def cost_figure(plan: Plan) -> PlotlyFigureDict:
    """$/month against average demand from 0.1× to 10× the given demand, log–log (linear one
    click away).

    Replicas are whole, so each line is a step function ('hv': a level holds until the next
    breakpoint). The given demand is a dotted vertical line; crossovers are marked.
    """
    demand = plan.demand
    low, high = domain.demand_range(demand.average)
    sweep_order = list(dict.fromkeys(o.result.sweep_id for o in plan.options))
    traces = [_option_trace(plan, option, sweep_order, low, high) for option in plan.options]
    if plan.crossovers:
        traces.append(_crossover_trace(plan))
    costs = ticks.positive(y for t in traces for y in t["y"])
    log_y = bool(costs) and len(costs) == sum(len(t["y"]) for t in traces)
    x_axis, y_axis = _axes(plan, low, high, costs if log_y else [])
    layout: dict[str, Any] = {
        "margin": {"l": 80, "r": 10, "t": 40 if log_y else 20, "b": 60},
        "hovermode": "closest",
        "legend": side_legend(),
        "xaxis": x_axis,
        "yaxis": y_axis,
        **_demand_marks(demand.average),
    }
    if log_y:
        layout["updatemenus"] = [_scale_buttons(demand.average, low, high, y_axis)]
    if not traces:
        layout["shapes"], layout["annotations"] = [], []  # no demand line across nothing
        empty_note(
            layout,
            "no option both meets the SLO and has a price: see each system's reason in the table",
        )
    return {"data": traces, "layout": layout}


def _option_trace(
    plan: Plan, option: Option, sweep_order: list[int], low: float, high: float
) -> dict[str, Any]:
    """One option's $/month steps: colour names the system, dash its price (solid first)."""
    demand = plan.demand
    xs, ys, exact = domain.step_curve(option.step, low, high, demand.sizing_factor)
    sweep_index = sweep_order.index(option.result.sweep_id)
    mine = [o for o in plan.options if o.result is option.result]
    price_index = mine.index(option)
    name = option.label + ("" if exact else " (sampled)")
    if option.cost.cheapest:
        name += " ★ cheapest at your demand"
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": xs,
        "y": ys,
        "line": {
            "shape": "hv",
            "color": colour(sweep_index),
            "dash": DASHES[price_index % len(DASHES)],
            "width": 3 if option.cost.cheapest else 1.5,
        },
        "customdata": [[fmt_number(x), fmt_usd(y, "/month")] for x, y in zip(xs, ys, strict=True)],
        "hovertemplate": f"{option.label}<br>%{{customdata[0]}} {UNIT_WORDS[demand.unit]}"
        "<br>%{customdata[1]}<extra></extra>",
    }


def _crossover_trace(plan: Plan) -> dict[str, Any]:
    """A mark where the cheapest option changes."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "cheapest option changes",
        "x": [c.demand for c in plan.crossovers],
        "y": [_cheapest_cost_above(plan, c.demand) for c in plan.crossovers],
        "marker": {"symbol": "line-ns-open", "size": 14, "color": "#D55E00"},
        "customdata": [fmt_number(c.demand) for c in plan.crossovers],
        "hovertemplate": "above %{customdata}: cheapest changes<extra></extra>",
    }


def _axes(
    plan: Plan, low: float, high: float, log_costs: list[float]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The demand axis (log) and the $/month axis: log over `log_costs` when every cost is
    positive (given), else linear from zero."""
    x_axis = ticks.log_ticks(
        {
            "title": {"text": f"average demand, {UNIT_WORDS[plan.demand.unit]}"},
            "type": "log",
            "range": _log_range(low, high),
        },
        low,
        high,
    )
    y_axis: dict[str, Any] = {"title": {"text": "$ per month"}, "rangemode": "tozero"}
    if log_costs:
        y_low, y_high = min(log_costs) / LOG_PAD, max(log_costs) * LOG_PAD
        y_axis = ticks.log_ticks(
            {**y_axis, "type": "log", "range": _log_range(y_low, y_high)},
            y_low,
            y_high,
            ticks.money,
        )
        del y_axis["rangemode"]
    return x_axis, y_axis


def _demand_marks(average: float) -> dict[str, Any]:
    """The dotted line at the user's demand and its label."""
    return {
        "shapes": [
            {
                "type": "line",
                "xref": "x",
                "x0": average,
                "x1": average,
                "yref": "paper",
                "y0": 0,
                "y1": 1,
                "line": {"color": "#888", "width": 1, "dash": "dot"},
            }
        ],
        "annotations": [
            {
                "x": _log10(average),
                "xref": "x",
                "y": 1,
                "yref": "paper",
                "text": "your demand",
                "showarrow": False,
                "yanchor": "bottom",
            }
        ],
    }


def _scale_buttons(
    average: float, low: float, high: float, y_axis: dict[str, Any]
) -> dict[str, Any]:
    """Log–log (the default: a costly system cannot flatten the rest, and every step keeps its
    shape) or linear–linear, one click apart. Either way the lines stay straight steps."""
    log_view = {
        "xaxis.type": "log",
        "xaxis.range": _log_range(low, high),
        "yaxis.type": "log",
        "yaxis.range": y_axis["range"],
        "xaxis.tickmode": "array",
        "yaxis.tickmode": "array",
        "annotations[0].x": _log10(average),  # annotations take log10 values on a log axis
    }
    linear_view = {
        "xaxis.type": "linear",
        "xaxis.range": [0, high * 1.02],
        "xaxis.tickmode": "auto",
        "yaxis.type": "linear",
        "yaxis.autorange": True,
        "yaxis.rangemode": "tozero",
        "yaxis.tickmode": "auto",
        "annotations[0].x": average,
    }
    return button_bar(
        "scale",
        [
            {"label": "log–log", "method": "relayout", "args": [log_view]},
            {"label": "linear", "method": "relayout", "args": [linear_view]},
        ],
    )


def _cheapest_cost_above(plan: Plan, demand_average: float) -> float:
    """The lowest $/month just above a crossover demand, where the marker sits."""
    return min(o.step.cost_above(demand_average, plan.demand.sizing_factor) for o in plan.options)


def _log10(value: float) -> float:
    return math.log10(value)


def _log_range(low: float, high: float) -> list[float]:
    return [_log10(low), _log10(high)]
