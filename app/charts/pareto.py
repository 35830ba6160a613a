"""The Pareto chart as a Plotly figure dict (no Plotly import): the templates serialise it as JSON.

Series styles and legend placement are in charts.style, axis ranges and edge markers in
charts.ranges, the SLO floor in charts.slo_floor.
"""

from __future__ import annotations

from typing import Any

from app.charts import outliers, ranges
from app.charts.hover import hover_groups, line_hover
from app.charts.shown import position
from app.charts.slo_floor import add_slo_floor, slo_floor_x
from app.charts.style import PALETTE as PALETTE
from app.charts.style import SYMBOLS as SYMBOLS
from app.charts.style import colour as colour
from app.charts.style import empty_note, series_style, side_legend
from app.charts.style import symbol as symbol
from app.domain.accounting import axis_unit, short_unit
from app.domain.numbers import fmt_count, fmt_load, fmt_number
from app.domain.repeats import spreads
from app.domain.sessions import axis_words
from app.services.analysis import Params, SweepAnalysis

BASIS_WORDS = {"output": "Output", "total": "Total (input + output)", "input": "Input"}
AXIS_UNITS = ("tok/s/user", "tok/s/GPU")
# Up to this many series each is its own legend entry; beyond it the legend groups them under
# "model · hardware" headings (the palette has this many colours).
GROUP_LEGEND_ABOVE = len(PALETTE)


def pareto_figure(  # noqa: PLR0913 (keyword-only display options)
    results: list[SweepAnalysis],
    params: Params,
    *,
    log_x: bool = False,
    log_y: bool = False,
    frontier_only: bool = False,
    extra_traces: list[dict[str, Any]] | None = None,
    limits_at_edge: bool = True,
    overlay_traces: list[dict[str, Any]] | None = None,
    band_traces: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Frontier lines, faded dominated points, read-off stars, and the SLO's interactivity floor.

    The axes fit the measured points (and the SLO floor); with `limits_at_edge`, physics
    limits and claims in `extra_traces` beyond them become edge markers. Without it (a claim's
    audit, where the claim is the subject) the axes fit those too.
    """
    grouped = len(results) > GROUP_LEGEND_ABOVE
    traces: list[dict[str, Any]] = []
    titled: set[str] = set()
    for i, result in enumerate(results):
        traces.extend(_sweep_traces(i, result, params, frontier_only, grouped, titled))
    unknown = _unknown_trace(results, params)
    if unknown is not None:
        traces.append(unknown)
    traces.extend(overlay_traces or [])  # measured too (a deployment's windows): the axes fit them
    extra = list(extra_traces or [])
    layout: dict[str, Any] = {
        "margin": {"l": 70, "r": 10, "t": 30, "b": 60},
        "hovermode": "closest",
        "legend": side_legend(),
        "xaxis": {
            "title": {
                "text": (
                    f'<a href="/metrics#{_axis_anchor(params)}">' + _axis_title(params) + "</a>"
                )
            },
            "type": "log" if log_x else "linear",
            "rangemode": "tozero",
            "zeroline": False,
        },
        "yaxis": {
            "title": {
                "text": (
                    f'<a href="/metrics#throughput">{BASIS_WORDS[params.basis]} '
                    f"{axis_unit(params.accounting)}</a>"
                )
            },
            "type": "log" if log_y else "linear",
            "rangemode": "tozero",
        },
        "shapes": [],
        "annotations": [],
        "uirevision": "explore",
    }
    # Bands (app.charts.bands) sit beneath the lines; the axes fit them too, so no band runs
    # past the axis's end (issue 45).
    shaded = list(band_traces or [])
    fitted = shaded + (traces if limits_at_edge else traces + extra)
    traces = shaded + traces
    floor = slo_floor_x(params)
    also_x = [floor] if floor else []
    whole = ranges.fit_box(fitted, log_x=log_x, log_y=log_y, also_x=also_x)
    box = whole
    outlying: list[dict[str, Any]] = []
    if whole is not None:
        measured = traces[len(shaded) :]
        # The bulk's top holds its bands; a far series keeps its edge marker (and band) beyond.
        bulk = outliers.bulk_box(traces, whole, also_x)
        if bulk is not None:
            box = bulk
            outlying = outliers.edge_traces(measured, bulk, AXIS_UNITS)
    if box is not None and whole is not None:
        ranges.set_ranges(layout, box)
        outliers.set_log_ticks(layout, box, whole)
        add_slo_floor(layout, params, box)
        if limits_at_edge:
            extra = ranges.edge_markers(extra, box, AXIS_UNITS)
        if outlying:
            start = len(traces)
            outliers.zoom_buttons(layout, box, whole, list(range(start, start + len(outlying))))
    traces.extend(outlying)
    traces.extend(extra)
    reason = empty_reason(results, params)
    if reason is not None:
        empty_note(layout, reason, hide_axes=not extra)
    config = {"toImageButtonOptions": {"scale": 2}}
    return {"data": traces, "layout": layout, "config": config, "notes": _notes(traces)}


def _notes(traces: list[dict[str, Any]]) -> list[str]:
    """What the page says beneath the chart about what the chart cannot show in place."""
    beyond = [t for t in traces if str(t.get("name", "")).endswith("beyond the axis)")]
    beyond += [t for t in traces if str(t.get("name", "")).endswith("▸ beyond the axis")]
    far = [t for t in traces if isinstance(t.get("meta"), dict) and t["meta"].get("edge")]
    notes = []
    if beyond:
        n = len(beyond)
        what = "limit or claim lies" if n == 1 else "limits or claims lie"
        notes.append(
            f"{n} {what} beyond the measured range: each is a triangle on the axis edge pointing "
            "its way (hover it for the value); the axes keep to the measurements."
        )
    if far:
        names = ", ".join(str(t["name"]).removesuffix(" (beyond the axes)") for t in far)
        notes.append(
            f"{fmt_count(len(far), 'series', 'series')} far beyond the others ({names}): the "
            "axes fit the rest, a triangle on the edge stands for what lies beyond (hover it "
            f"for the values), and “{outliers.SHOW_ALL}” above the chart zooms out to every point."
        )
    return notes


def legend_group(result: SweepAnalysis) -> tuple[str, str]:
    """The legend group of a sweep among many: its model and hardware (key, heading)."""
    model = str(result.meta.model or "model not stated")
    hardware = str(result.meta.hardware or "hardware not stated")
    return f"group-{model}|{hardware}", f"{model} · {hardware}"


def _sweep_traces(
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
    xs, ys = _positions(result, params)
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
    if result.dominated and not frontier_only:
        marker = {"color": style.colour, "size": 7, "symbol": style.symbol, "opacity": 0.3}
        for ks, hover in hover_groups(result, result.dominated, params, "<br><i>dominated</i>"):
            traces.append(
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
            )
    traces.extend(_spread_traces(i, result, base, params))
    op = result.readoff.operating_point
    if op is not None and op.interactivity_tok_s_user is not None:
        y, said = op.tok_s_per_gpu, ""
        statistic = result.intervals.statistic if result.intervals else None
        shown = result.readoff.goodput_tok_s_per_gpu
        if statistic is not None and shown is not None and result.intervals is not None:
            # The star is the figure the table shows: the runs' statistic, not the best run.
            y = shown
            best = fmt_number(
                result.intervals.best_run_tok_s_per_gpu, short_unit(params.accounting)
            )
            said = f" ({statistic}; best run {best})"
        at_x = _star_x(result, params)
        traces.append(
            {
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
                    "color": style.colour,
                    "size": 18,
                    "symbol": "star",
                    "line": {"color": "#000", "width": 1.5},
                },
                **_error_bars(result, y, colour(i)),
            }
        )
    return traces


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


def _axis_title(params: Params) -> str:
    words = axis_words(params.interactivity, params.stat, params.e2e_percentile)
    if params.interactivity == "e2e":  # two lines for the long name: a phone shows all of it
        return words.replace(") = ", ")<br>= ")
    return words


def _axis_anchor(params: Params) -> str:
    return "e2e-normalized-interactivity" if params.interactivity == "e2e" else "interactivity"


def _positions(result: SweepAnalysis, params: Params) -> Positions:
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


UNKNOWN_MARKER = {"color": "#8a8a8a", "size": 13, "symbol": "circle-open", "line": {"width": 2}}


def _unknown_trace(results: list[SweepAnalysis], params: Params) -> dict[str, Any] | None:
    """Hollow grey rings around points whose SLO status is unknown (a statistic not measured),
    one legend entry for all sweeps: unknown is neither a pass nor a fail."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    texts: dict[str, int] = {}  # each text once (a sweep's points share their reason) …
    which: list[int] = []  # … and each point's by its index: charts.js makes the trace's text
    for result in results:
        at_x, at_y = _positions(result, params)
        for k, verdict in enumerate(result.readoff.verdicts):
            if verdict.status == "unknown" and result.plotted(k):
                xs.append(at_x[k])
                ys.append(at_y[k])
                text = f"<b>{result.meta.name}</b><br>SLO unknown: {verdict.reason}"
                which.append(texts.setdefault(text, len(texts)))
    if not xs:
        return None
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "SLO unknown (statistic not measured)",
        "legendgroup": "slo-unknown",
        "x": xs,
        "y": ys,
        "meta": {"texts": list(texts), "text": which},
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
