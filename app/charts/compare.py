"""Plotly specs (plain dicts) for Compare: ratio curves and SLO sensitivity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.charts.style import colour, empty_note, series_style, side_legend
from app.domain.compare import no_overlap_reason
from app.domain.numbers import fmt_load, fmt_number, fmt_usd
from app.domain.slo import Slo
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.services.compare.intervals import PairIntervals
from app.services.compare.ratios import Pair, frontier_of
from app.services.compare.sensitivity import SensitivitySeries
from app.services.readoff.price_columns import PriceColumn
from app.services.readoff.units_shown import unit_words

METRIC_NAMES = {"tpot": "TPOT", "ttft": "TTFT", "e2el": "E2EL"}
HOVER = "%{customdata[0]} tok/s/user: %{customdata[1]}×<extra></extra>"


def _hover_pairs(xs: list[float], ys: list[float | None]) -> list[list[str]]:
    """Hover text by the app's number rule (Plotly's own formats cannot express it)."""
    return [[fmt_number(x), fmt_number(y)] for x, y in zip(xs, ys, strict=True)]


def _layout(x_title: str, y_title: str, log_y: bool = False) -> dict[str, Any]:
    return {
        "margin": {"l": 70, "r": 10, "t": 20, "b": 60},
        "hovermode": "x unified",
        "legend": side_legend(),
        "xaxis": {"title": {"text": x_title}, "zeroline": False},
        # Ratios, goodputs and costs are never negative: no autorange below 0.
        "yaxis": {
            "title": {"text": y_title},
            "type": "log" if log_y else "linear",
            "rangemode": "nonnegative",
        },
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


def _slo_line(layout: dict[str, Any], slo: Slo, traces: list[dict[str, Any]]) -> None:
    """The SLO's interactivity floor, where it falls within the curves' range: a floor far left
    of every ratio would stretch the axis and squeeze the curves."""
    floor = slo.min_tok_s_user
    xs = [x for t in traces for x in t["x"] if x is not None]
    if floor is not None and xs and min(xs) <= floor <= max(xs):
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


def throughput_ratio_figure(
    pairs: list[Pair], slo: Slo, intervals: Sequence[PairIntervals | None] | None = None
) -> PlotlyFigureDict:
    """A ÷ baseline of tok/s per GPU across the shared interactivity range, one line per pair;
    with `intervals`, the headline ratios (and the goodput ratio at the SLO's interactivity
    floor) as markers with their intervals as error bars."""
    traces = []
    for i, pair in enumerate(pairs, start=1):
        pts = pair.curve.points
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{pair.a.meta.name} ÷ {pair.b.meta.name}",
                "x": [p.x_tok_s_user for p in pts],
                "y": [p.throughput_ratio for p in pts],
                "line": {
                    "color": colour(i),
                    "width": 2,
                    "shape": "hv",
                    "dash": series_style(i).dash,
                },  # fmt: skip
                "customdata": _hover_pairs(
                    [p.x_tok_s_user for p in pts], [p.throughput_ratio for p in pts]
                ),
                "hovertemplate": HOVER,
            }
        )
        shown = None if intervals is None else intervals[i - 1]
        if shown is not None and pts:
            # Without a shared range there is no ratio to mark: the SLO marker's bar would join
            # the two operating points as if it were one (issue 45).
            traces.append(_ratio_error_bars(i, pair, shown, slo))
    layout = _layout(
        '<a href="/metrics#interactivity">Interactivity (tok/s/user)</a>',
        f"Throughput per {unit_words(pairs[0].a) if pairs else 'GPU'}, ratio (×)",
    )
    _unity(layout)
    _slo_line(layout, slo, traces)
    if not any(t["x"] for t in traces):
        layout["shapes"] = []  # no 1× line across an empty chart, through its reason
        empty_note(layout, _no_ratio_reason(pairs))
    return {"data": traces, "layout": layout}


def slo_read_at(pair: Pair) -> tuple[float, float] | None:
    """Where the goodput ratio at the SLO is read: A's goodput sits at A's operating point and
    B's at B's, so the ratio spans the two interactivities (None when either has no point)."""
    xs = []
    for result in (pair.a, pair.b):
        op = result.readoff.operating_point
        if op is None or op.interactivity_tok_s_user is None:
            return None
        xs.append(op.interactivity_tok_s_user)
    return xs[0], xs[1]


def _ratio_error_bars(i: int, pair: Pair, iv: PairIntervals, slo: Slo) -> dict[str, Any]:
    """Markers at the headline ratios and at the goodput ratio at the SLO, each with its interval
    as an asymmetric error bar (0 where there is none). The SLO marker sits between the two
    operating points its goodputs are read at, a horizontal bar spanning them."""
    xs: list[float] = []
    ys: list[float] = []
    ups: list[float] = []
    downs: list[float] = []
    lefts: list[float] = []
    rights: list[float] = []
    labels: list[str] = []
    rows = [
        (h.x_tok_s_user, h.x_tok_s_user, d, "headline")
        for h, d in zip(pair.headlines, iv.headlines, strict=True)
    ]
    read_at = slo_read_at(pair)
    if read_at is not None:
        rows.append((*read_at, iv.slo, "goodput at your SLO"))
    a_name, b_name = pair.a.meta.name, pair.b.meta.name
    for xa, xb, d, label in rows:
        r = d.ratio
        if r.value is None:
            continue
        x = (xa + xb) / 2
        xs.append(x)
        ys.append(r.value)
        ups.append(max(0.0, r.high - r.value) if r.high is not None else 0.0)
        downs.append(max(0.0, r.value - r.low) if r.low is not None else 0.0)
        lefts.append(x - min(xa, xb))
        rights.append(max(xa, xb) - x)
        where = f"{fmt_number(x)} tok/s/user"
        if xa != xb:
            where = (
                f"{a_name} at {fmt_number(xa)} tok/s/user ÷ {b_name} at {fmt_number(xb)} tok/s/user"
            )
        labels.append(f"{label}, {where}: {fmt_number(r.value)}×<br>{d.text}")
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{pair.a.meta.name} ÷ {pair.b.meta.name}: ratios with intervals",
        "showlegend": False,
        "x": xs,
        "y": ys,
        "text": labels,
        "marker": {"color": colour(i), "size": 8, "symbol": "diamond"},
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": ups,
            "arrayminus": downs,
            "color": colour(i),
            "visible": True,
        },
        "error_x": {
            "type": "data",
            "symmetric": False,
            "array": rights,
            "arrayminus": lefts,
            "color": colour(i),
            "width": 0,
            "visible": any(rights),
        },
        "hovertemplate": "%{text}<extra></extra>",
    }


def _no_ratio_reason(pairs: list[Pair]) -> str:
    """Why no pair has a ratio curve: the first pair's own reason, naming its systems."""
    if not pairs:
        return "select two or more systems to compare"
    pair = pairs[0]
    a, b = frontier_of(pair.a), frontier_of(pair.b)
    if pair.curve.shared_range is None:
        return no_overlap_reason(a, b, str(pair.a.meta.name), str(pair.b.meta.name))
    return pair.curve.reason or "the systems' measured interactivity ranges do not overlap"


def cost_ratio_figure(pairs: list[Pair], groups: list[PriceColumn], slo: Slo) -> PlotlyFigureDict:
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
                    "name": f"{pair.a.meta.name} ÷ {pair.b.meta.name} · {group.label}",
                    "x": [p.x_tok_s_user for p in pts],
                    "y": list(curve),
                    "line": {
                        "color": colour(i),
                        "width": 2,
                        "shape": "hv",
                        "dash": dashes[g % len(dashes)],
                    },
                    "customdata": _hover_pairs([p.x_tok_s_user for p in pts], list(curve)),
                    "hovertemplate": HOVER,
                }
            )
    layout = _layout(
        '<a href="/metrics#interactivity">Interactivity (tok/s/user)</a>',
        '<a href="/metrics#cost">$/Mtok</a>, ratio (×; below 1 = cheaper)',
    )
    _unity(layout)
    _slo_line(layout, slo, traces)
    if not any(t["x"] for t in traces):
        reason = _no_ratio_reason(pairs)
        if pairs and any(p.curve.points for p in pairs):
            # The first system without its own GPU's price says which and what to do.
            whys = [why for p in pairs for why in p.cost_reasons if why]
            reason = whys[0] if whys else "no price applies to both systems of any pair"
        layout["shapes"] = []
        empty_note(layout, reason)
    return {"data": traces, "layout": layout}


def sensitivity_figure(
    series: list[SensitivitySeries],
    metric: str,
    percentile: str,
    costs: bool,
    empty: str | None = None,
) -> PlotlyFigureDict:
    """Goodput (or $/Mtok) of each sweep against the limit of one metric, as a step line; where
    no step has a value, the chart says why (`empty`) instead of blank axes."""
    traces = []
    labels: dict[float, str] = {}  # every series steps through the same limits: format once
    for i, s in enumerate(series):
        ys = list(s.costs) if costs else goodputs(s)
        xs = [st.limit_ms for st in s.steps]
        for x in xs:
            if x not in labels:
                labels[x] = fmt_load(x, "ms")
        shown = [fmt_usd(y, "/Mtok") for y in ys] if costs else [fmt_number(y) for y in ys]
        style = series_style(i)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": str(s.result.meta.name),
                "x": xs,
                "y": ys,
                "line": {"color": style.colour, "shape": "hv", "dash": style.dash},
                "marker": {"size": 5, "symbol": style.symbol},
                "connectgaps": False,
                # Each step's limit and value as formatted text (two flat lists, not a pair per
                # step: a page draws 20 series × 60 steps).
                "customdata": [labels[x] for x in xs],
                "text": shown,
                "hovertemplate": "≤ %{customdata}: %{text}",  # the trace name beside it
            }
        )
    name = METRIC_NAMES.get(metric, metric)
    unit = unit_words(series[0].result) if series else "GPU"
    y_title = "$/Mtok" if costs else f"Goodput, tok/s per {unit}"
    layout = _layout(f"{percentile} {name} limit (ms) — tighter to the left", y_title)
    layout["hovermode"] = "closest"
    if not any(y is not None for s in series for y in (s.costs if costs else goodputs(s))):
        what = "no $/Mtok at any limit" if costs else "no goodput at any limit"
        empty_note(layout, empty or what)
    return {"data": traces, "layout": layout}


def goodputs(s: SensitivitySeries) -> list[float | None]:
    return [st.goodput_tok_s_per_gpu for st in s.steps]


def cost_sensitivity_empty(
    series: list[SensitivitySeries], group: PriceColumn, goodput_empty: str | None
) -> str | None:
    """Why the $/Mtok sensitivity chart has nothing to draw (None when it has a cost): no
    goodput at any limit, else the systems without their own GPU's price in the column."""
    if any(c is not None for s in series for c in s.costs):
        return None
    if goodput_empty is not None:
        return goodput_empty
    whys = [
        f"{s.result.meta.name}: {why}"
        for s in series
        if (why := group.missing(str(s.result.meta.hardware or ""))) is not None
    ]
    return "; ".join(whys) or "no step has both a goodput and a price"
