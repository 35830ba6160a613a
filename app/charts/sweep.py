"""Plotly specs for one sweep's page: latency and throughput against load, per-request CDFs.

TTFT and TPOT differ by one or two orders of magnitude, so each has its own y axis (TTFT left,
TPOT right); E2EL has its own chart, in seconds once it reaches 10 s. A load level of request
rate ∞ (every request sent at once: vLLM's "inf", guidellm's "max") has no x position of its own:
it is drawn one step beyond the largest finite load and labelled ∞ on the axis.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from app.charts.style import colour, empty_note, series_style, side_legend, top_legend
from app.domain.numbers import fmt_load, fmt_number, fmt_percent
from app.domain.request_goodput import defined_tpot_expr, one_token_expr
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.store.point_blocks import StoredPoint

CDF_POINTS = 200
SECONDS_FROM_MS = 10_000.0  # E2EL at or above this is shown in seconds
INF_STEP = 0.25  # the ∞ point sits this share of the largest finite load beyond it
INF_NOTE = "request rate ∞ (all requests sent at once) is drawn at the right, marked ∞"


def is_infinite(point: StoredPoint) -> bool:
    rate = point.request_rate
    return point.concurrency is None and rate is not None and math.isinf(rate)


def _finite_load(point: StoredPoint) -> float | None:
    if point.concurrency is not None:
        return point.concurrency
    rate = point.request_rate
    return None if rate is None or math.isinf(rate) else rate


def _inf_x(points: list[StoredPoint]) -> float | None:
    """Where the ∞ load is drawn, or None when the sweep has no such point."""
    if not any(is_infinite(p) for p in points):
        return None
    finite = [x for p in points if (x := _finite_load(p)) is not None]
    top = max(finite, default=0.0)
    return top * (1 + INF_STEP) if top > 0 else 1.0


def _load(point: StoredPoint, inf_x: float | None) -> float | None:
    return inf_x if is_infinite(point) else _finite_load(point)


def _axis_title(points: list[StoredPoint]) -> str:
    if any(p.concurrency is not None for p in points):
        return "Concurrency (requests)"
    return "Request rate (req/s)"


def _inf_marks(layout: dict[str, Any], inf_x: float | None) -> None:
    """Label the ∞ position under the axis and fence it off from the finite loads."""
    if inf_x is None:
        return
    layout.setdefault("annotations", []).append(
        {
            "name": "inf-load", "xref": "x", "yref": "paper", "x": inf_x, "y": 0,
            "yanchor": "top", "yshift": -18, "showarrow": False, "text": "<b>∞</b>",
            "font": {"size": 14}, "hovertext": INF_NOTE,
        }
    )  # fmt: skip
    layout.setdefault("shapes", []).append(
        {
            "type": "line", "name": "inf-fence", "xref": "x", "yref": "paper",
            "x0": inf_x / (1 + INF_STEP / 2), "x1": inf_x / (1 + INF_STEP / 2), "y0": 0, "y1": 1,
            "line": {"color": "#bbb", "width": 1, "dash": "dot"},
        }
    )  # fmt: skip


def _pairs(
    points: list[StoredPoint], column: str, inf_x: float | None, scale: float = 1.0
) -> list[Any]:
    return sorted(
        (x, value / scale)
        for p in points
        if (x := _load(p, inf_x)) is not None and (value := getattr(p, column)) is not None
    )


def _load_text(x: float, inf_x: float | None) -> str:
    """A load as set: the ∞ position reads ∞, not the number it is drawn at."""
    return "∞" if inf_x is not None and x == inf_x else fmt_load(x)


def _line(
    name: str, pairs: list[Any], colour_: str, dash: str, inf_x: float | None, unit: str
) -> dict[str, Any]:
    """A line against load whose hover writes both numbers by the tables' formatter."""
    return {
        "type": "scatter", "mode": "lines+markers", "name": name,
        "x": [x for x, _ in pairs], "y": [y for _, y in pairs],
        "line": {"color": colour_, "dash": dash}, "marker": {"color": colour_, "size": 6},
        "customdata": [[fmt_number(y, unit), _load_text(x, inf_x)] for x, y in pairs],
        "hovertemplate": f"{name}: %{{customdata[0]}} at load %{{customdata[1]}}<extra></extra>",
    }  # fmt: skip


def _base_layout(points: list[StoredPoint], inf_x: float | None, **axes: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "margin": {"l": 60, "r": 10, "t": 20, "b": 55},
        "legend": side_legend(),
        "hovermode": "closest",
        "xaxis": {"title": {"text": _axis_title(points)}, "zeroline": False},
        "shapes": [],
        "annotations": [],
        **axes,
    }
    _inf_marks(layout, inf_x)
    return layout


def latency_figure(points: list[StoredPoint]) -> PlotlyFigureDict:
    """p50 and p90 TTFT (left axis) and TPOT (right axis), ms, against load."""
    inf_x = _inf_x(points)
    traces = []
    for i, (metric, axis, side) in enumerate((("ttft", "y", "left"), ("tpot", "y2", "right"))):
        for stat, dash in (("p50", "solid"), ("p90", "dash")):
            pairs = _pairs(points, f"{metric}_{stat}_ms", inf_x)
            if pairs:
                name = f"{metric.upper()} {stat} ({side} axis)"
                traces.append({**_line(name, pairs, colour(i), dash, inf_x, "ms"), "yaxis": axis})
    on_right = any(t["yaxis"] == "y2" for t in traces)
    layout = _base_layout(
        points,
        inf_x,
        yaxis=_ms_axis("TTFT (ms)", colour(0)),
        yaxis2={**_ms_axis("TPOT (ms)", colour(1)), "overlaying": "y", "side": "right"},
    )
    layout["margin"]["r"] = 60 if on_right else 10
    layout["legend"] = top_legend()  # the right edge holds TPOT's axis
    if not traces:
        empty_note(layout, "no point has a p50 or p90 TTFT or TPOT")
    return {"data": traces, "layout": layout}


def _ms_axis(title: str, colour_: str) -> dict[str, Any]:
    return {
        "title": {"text": title, "font": {"color": colour_}},
        "tickfont": {"color": colour_},
        "rangemode": "tozero",
        "zeroline": False,
        "showgrid": colour_ == colour(0),  # one grid (the left axis's), not two that disagree
        "tickmode": "auto",  # not ticks synced to the other axis's grid (6.61, 13.22 …)
    }


def e2el_figure(points: list[StoredPoint]) -> PlotlyFigureDict:
    """p50 and p90 end-to-end latency against load, in seconds when it reaches 10 s."""
    inf_x = _inf_x(points)
    values = [v for p in points for v in (p.e2el_p50_ms, p.e2el_p90_ms) if v is not None]
    seconds = bool(values) and max(values) >= SECONDS_FROM_MS
    unit, scale = ("s", 1000.0) if seconds else ("ms", 1.0)
    traces = []
    for stat, dash in (("p50", "solid"), ("p90", "dash")):
        pairs = _pairs(points, f"e2el_{stat}_ms", inf_x, scale)
        if pairs:
            traces.append(_line(f"E2EL {stat}", pairs, colour(2), dash, inf_x, unit))
    layout = _base_layout(
        points, inf_x, yaxis={"title": {"text": f"E2EL ({unit})"}, "rangemode": "tozero"}
    )
    if not traces:
        empty_note(layout, "no point has a p50 or p90 end-to-end latency (E2EL)")
    return {"data": traces, "layout": layout}


def throughput_figure(points: list[StoredPoint], num_gpus: int) -> PlotlyFigureDict:
    """Output and total tok/s per GPU against load."""
    inf_x = _inf_x(points)
    traces = []
    for i, (column, name) in enumerate((("output_tok_s", "output"), ("total_tok_s", "total"))):
        pairs = _pairs(points, column, inf_x, float(num_gpus))
        if pairs:
            traces.append(
                _line(f"{name} tok/s per GPU", pairs, colour(i), "solid", inf_x, "tok/s/GPU")
            )
    layout = _base_layout(
        points, inf_x, yaxis={"title": {"text": "tok/s per GPU"}, "rangemode": "tozero"}
    )
    if not traces:
        empty_note(layout, "no point has an output or total throughput")
    return {"data": traces, "layout": layout}


def load_label(point: StoredPoint) -> str:
    """A load level as a legend says it: "concurrency 4", "rate 1 req/s", "rate ∞"."""
    if point.concurrency is not None:
        return f"concurrency {fmt_load(point.concurrency)}"
    rate = point.request_rate
    if rate is None:
        return "load not stated"
    return "rate ∞" if math.isinf(rate) else f"rate {fmt_load(rate, 'req/s')}"


# A page figure, not a PlotlyFigure answer: it carries the "note" the sweep page shows.
def cdf_figure(points: list[StoredPoint], samples: pl.DataFrame, metric: str) -> dict[str, Any]:
    """Empirical CDF of per-request TTFT or TPOT (ms), one line per load level with samples.

    A one-token request has no TPOT: the TPOT CDF leaves it out, and the figure's "note" says
    how many (it is never drawn at 0 ms)."""
    value = defined_tpot_expr() if metric == "tpot" else pl.col("ttft_ms")
    traces = []
    for i, point in enumerate(points):
        column = (
            samples.filter((pl.col("point_id") == point.id) & pl.col("ok"))
            .select(value.alias("v"))
            .drop_nulls()["v"]
            .sort()
        )
        n = len(column)
        if n == 0:
            continue
        step = max(1, n // CDF_POINTS)
        idx = list(range(0, n, step)) + ([n - 1] if (n - 1) % step else [])
        label = load_label(point)
        style = series_style(i)
        xs = [column[k] for k in idx]
        shares = [(k + 1) / n for k in idx]
        traces.append(
            {
                "type": "scatter", "mode": "lines", "name": label, "x": xs, "y": shares,
                "line": {"color": style.colour, "dash": style.dash, "shape": "hv"},
                "customdata": [
                    [fmt_number(x, "ms"), fmt_percent(y)] for x, y in zip(xs, shares, strict=True)
                ],
                "hovertemplate": f"{label}: %{{customdata[1]}} of requests ≤ %{{customdata[0]}}"
                "<extra></extra>",
            }
        )  # fmt: skip
    name = "TPOT per request" if metric == "tpot" else "TTFT"
    layout: dict[str, Any] = {
        "margin": {"l": 60, "r": 10, "t": 20, "b": 50},
        "legend": side_legend(),
        "xaxis": {"title": {"text": f"{name} (ms)"}},
        "yaxis": {"title": {"text": "share of successful requests"}, "range": [0, 1]},
    }
    figure: dict[str, Any] = {"data": traces, "layout": layout}
    if metric == "tpot":
        mine = samples.filter(pl.col("point_id").is_in([p.id for p in points]))
        left_out = int(mine.select(one_token_expr().sum()).item() or 0)
        succeeded = int(mine.select(pl.col("ok").fill_null(False).sum()).item() or 0)
        if left_out:
            figure["note"] = (
                f"{left_out:,} of {succeeded:,} successful requests have one output token and "
                "so no TPOT (no token after the first): left out of this CDF"
            )
    if not traces:
        what = "a TPOT (it needs output tokens and E2EL)" if metric == "tpot" else "a TTFT"
        if figure.get("note"):
            what = "a TPOT (every one has a single output token)"
        empty_note(layout, f"no successful request sample has {what}")
    return figure
