"""Plotly figure specs as plain dicts (no Plotly import): the templates serialise them as JSON."""

from __future__ import annotations

import math
from typing import Any

from app.charts.hover import hover_groups, line_hover
from app.domain.numbers import fmt_count, fmt_load, fmt_number
from app.domain.repeats import spreads
from app.services.analysis import Params, SweepAnalysis

# Okabe–Ito: distinguishable with the common forms of colour blindness.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x")
BASIS_WORDS = {"output": "Output", "total": "Total (input + output)", "input": "Input"}


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def symbol(i: int) -> str:
    return SYMBOLS[(i // len(PALETTE)) % len(SYMBOLS)]


def pareto_figure(
    results: list[SweepAnalysis],
    params: Params,
    *,
    log_x: bool = False,
    log_y: bool = False,
    frontier_only: bool = False,
    extra_traces: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Frontier lines, faded dominated points, read-off stars, and the SLO's interactivity floor."""
    traces: list[dict[str, Any]] = []
    for i, result in enumerate(results):
        traces.extend(_sweep_traces(i, result, params, frontier_only))
    unknown = _unknown_trace(results, params)
    if unknown is not None:
        traces.append(unknown)
    traces.extend(extra_traces or [])
    xs = [x for r in results for x in r.xs if x is not None and x > 0]
    layout: dict[str, Any] = {
        "margin": {"l": 70, "r": 20, "t": 30, "b": 60},
        "hovermode": "closest",
        "legend": {"orientation": "h", "y": -0.2, "itemclick": "toggle"},
        "xaxis": {
            "title": {
                "text": (
                    f'<a href="/metrics#interactivity">Interactivity (tok/s/user)'
                    f" = 1000 / {params.stat} TPOT</a>"
                )
            },
            "type": "log" if log_x else "linear",
            "rangemode": "tozero",
            "zeroline": False,
        },
        "yaxis": {
            "title": {
                "text": (
                    f'<a href="/metrics#throughput">{BASIS_WORDS[params.basis]} tok/s per GPU</a>'
                )
            },
            "type": "log" if log_y else "linear",
            "rangemode": "tozero",
        },
        "shapes": [],
        "annotations": [],
        "uirevision": "explore",
    }
    _slo_floor(layout, params, xs, log_x)
    reason = empty_reason(results, params)
    if reason is not None:
        layout["annotations"].append(
            {
                "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False,
                "text": f"Nothing to draw: {reason}", "font": {"size": 13, "color": "#555"},
            }
        )  # fmt: skip
    _keep_claims_from_squashing(layout, traces, log_x, log_y)
    return {"data": traces, "layout": layout, "config": {"toImageButtonOptions": {"scale": 2}}}


def _keep_claims_from_squashing(
    layout: dict[str, Any], traces: list[dict[str, Any]], log_x: bool, log_y: bool
) -> None:
    """A claim far beyond the measurements ("3,000 tok/s per user") would shrink every curve to
    a corner: the axes keep the measured range and such a claim becomes an arrow at the edge."""
    claims = [t for t in traces if t.get("meta") == "claim"]
    measured = [t for t in traces if t.get("meta") != "claim"]
    xs = [x for t in measured for x in t.get("x", []) if isinstance(x, int | float) and x > 0]
    ys = [y for t in measured for y in t.get("y", []) if isinstance(y, int | float) and y > 0]
    if not claims or not xs or not ys:
        return
    x_hi, y_hi = max(xs) * 1.15, max(ys) * 1.15
    off = []
    for claim in claims:
        cxs = [x for x in claim["x"] if x is not None]
        cys = [y for y in claim["y"] if y is not None]
        # A line claim states one axis only: a vertical line its x, a horizontal one its y.
        cx = max(cxs, default=0.0) if len(set(cys)) != 1 or len(set(cxs)) == 1 else 0.0
        cy = max(cys, default=0.0) if len(set(cxs)) != 1 or len(set(cys)) == 1 else 0.0
        if claim.get("mode") == "lines" and len(set(cxs)) == 1:
            cy = 0.0
        if cx > x_hi or cy > y_hi:
            off.append((claim, cx, cy))
    if not off:
        return

    def pos(value: float, log: bool) -> float:
        return math.log10(value) if log else value

    layout["xaxis"]["range"] = [pos(min(xs) / 1.5, True) if log_x else 0, pos(x_hi, log_x)]
    layout["yaxis"]["range"] = [pos(min(ys) / 1.5, True) if log_y else 0, pos(y_hi, log_y)]
    for k, (claim, cx, cy) in enumerate(off):
        at_x, at_y = min(cx, x_hi / 1.15 * 1.12), min(cy, y_hi / 1.15 * 1.12)
        beyond = ", ".join(
            fmt_number(v, unit)
            for v, lim, unit in ((cx, x_hi, "tok/s/user"), (cy, y_hi, "tok/s/GPU"))
            if v > lim
        )
        layout["annotations"].append(
            {
                "xref": "x", "yref": "y", "x": pos(at_x, log_x), "y": pos(at_y, log_y),
                "text": f"{claim['name']} → off the chart ({beyond})",
                "showarrow": True, "arrowhead": 2, "ax": -40, "ay": 30 + 28 * k,
                "font": {"size": 11, "color": "#7F3C8D"}, "xanchor": "right",
            }
        )  # fmt: skip


def _sweep_traces(
    i: int, result: SweepAnalysis, params: Params, frontier_only: bool
) -> list[dict[str, Any]]:
    name = str(result.meta["name"])
    group = f"sweep-{result.meta['id']}"
    base: dict[str, Any] = {"legendgroup": group, "type": "scatter"}
    front = result.frontier
    traces: list[dict[str, Any]] = [
        {
            **base,
            "name": name,
            "mode": "lines+markers",
            "x": [result.xs[k] for k in front],
            "y": [result.ys[k] for k in front],
            **line_hover(result, front, params),
            "line": {"color": colour(i), "width": 2},
            "marker": {"color": colour(i), "size": 8, "symbol": symbol(i)},
        }
    ]
    if result.dominated and not frontier_only:
        marker = {"color": colour(i), "size": 7, "symbol": symbol(i), "opacity": 0.3}
        for ks, hover in hover_groups(result, result.dominated, params, "<br><i>dominated</i>"):
            traces.append(
                {
                    **base,
                    "name": f"{name} (dominated)",
                    "showlegend": False,
                    "mode": "markers",
                    "x": [result.xs[k] for k in ks],
                    "y": [result.ys[k] for k in ks],
                    **hover,
                    "marker": marker,
                }
            )
    traces.extend(_spread_traces(i, result, base, params))
    op = result.readoff.operating_point
    if op is not None and op.interactivity_tok_s_user is not None:
        traces.append(
            {
                **base,
                "name": f"{name} · goodput at SLO",
                "showlegend": False,
                "mode": "markers",
                "x": [op.interactivity_tok_s_user],
                "y": [op.tok_s_per_gpu],
                "hovertemplate": (
                    f"<b>{name}</b><br>goodput at SLO: {fmt_number(op.tok_s_per_gpu, 'tok/s/GPU')}"
                    f"<br>at {fmt_number(op.interactivity_tok_s_user, 'tok/s/user')}<extra></extra>"
                ),
                "marker": {
                    "color": colour(i),
                    "size": 18,
                    "symbol": "star",
                    "line": {"color": "#000", "width": 1.5},
                },
                **_error_bars(result, op.tok_s_per_gpu, colour(i)),
            }
        )
    return traces


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


UNKNOWN_MARKER = {"color": "#8a8a8a", "size": 13, "symbol": "circle-open", "line": {"width": 2}}


def _unknown_trace(results: list[SweepAnalysis], params: Params) -> dict[str, Any] | None:
    """Hollow grey rings around points whose SLO status is unknown (a statistic not measured),
    one legend entry for all sweeps: unknown is neither a pass nor a fail."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    text: list[str] = []
    for result in results:
        for k, verdict in enumerate(result.readoff.verdicts):
            if verdict.status == "unknown" and result.plotted(k):
                xs.append(result.xs[k])
                ys.append(result.ys[k])
                text.append(f"<b>{result.meta['name']}</b><br>SLO unknown: {verdict.reason}")
    if not xs:
        return None
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "SLO unknown (statistic not measured)",
        "legendgroup": "slo-unknown",
        "x": xs,
        "y": ys,
        "text": text,
        "hovertemplate": "%{text}<extra></extra>",
        "marker": UNKNOWN_MARKER,
    }


def empty_reason(results: list[SweepAnalysis], params: Params) -> str | None:
    """Why the Pareto chart has no point, or None when it has one."""
    if not results:
        return "no series selected"
    if any(r.plotted(k) for r in results for k in range(len(r.points))):
        return None
    if not any(r.points for r in results):
        return "the selected sweeps have no points"
    if all(x is None for r in results for x in r.xs):
        return (
            f"no point has a {params.stat} TPOT, the x axis: choose another TPOT statistic "
            "for the x axis (e.g. p50 or mean)"
        )
    return f"no point has both an interactivity and a {params.basis} throughput per GPU"


def _spread_traces(
    i: int, result: SweepAnalysis, base: dict[str, Any], params: Params
) -> list[dict[str, Any]]:
    """A shaded min–max box per load level that was run more than once (never averaged)."""
    key = ("spreads", params.stat, params.basis, result.meta["num_gpus"])
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
                "name": f"{result.meta['name']} · {fmt_count(s.runs, 'run')} at {fmt_load(s.load)}",
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


def _slo_floor(layout: dict[str, Any], params: Params, xs: list[float], log_x: bool) -> None:
    """Shade interactivities below the SLO's minimum (from its TPOT limit).

    The x axis is 1000 / TPOT at the axis statistic; the band is only the pass boundary when
    the TPOT limit is checked at that same statistic. Otherwise only a labelled line is drawn,
    saying which statistic it bounds, so points right of it are not mistaken for passing.
    """
    slo = params.slo
    floor = slo.min_tok_s_user
    if floor is None or not xs or not (0 < floor < math.inf):
        return
    low = min(min(xs), floor) / 2 if log_x else 0.0
    limit_stat = slo.stat("tpot")
    same = limit_stat == params.stat

    def pos(value: float) -> float:
        return math.log10(value) if log_x else value

    if same:
        layout["shapes"].append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": pos(low) if log_x else low,
                "x1": pos(floor),
                "y0": 0,
                "y1": 1,
                "fillcolor": "rgba(213, 94, 0, 0.08)",
                "line": {"width": 0},
                "layer": "below",
            }
        )
    layout["shapes"].append(
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": pos(floor),
            "x1": pos(floor),
            "y0": 0,
            "y1": 1,
            "line": {"color": "#D55E00", "width": 1.5, "dash": "dot"},
        }
    )
    text = f"SLO: ≥ {fmt_number(floor)} tok/s/user ({limit_stat} TPOT ≤ {fmt_load(slo.tpot_ms)} ms)"
    if not same:
        text += (
            f"<br>limit on {limit_stat} TPOT; this axis is {params.stat} TPOT,"
            "<br>so the line is not the pass boundary (no shading)"
        )
        layout["margin"]["t"] = 60  # room for the three-line label above the plot
    layout["annotations"].append(
        {
            "xref": "x",
            "yref": "paper",
            "x": pos(floor),
            "y": 1,
            "yanchor": "bottom",
            # Right of the line unless the line sits in the right half of the data.
            "xanchor": "right" if floor > (min(xs) + max(xs)) / 2 else "left",
            "showarrow": False,
            "font": {"size": 11, "color": "#A04000"},
            "text": text,
        }
    )
