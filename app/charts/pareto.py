"""The Pareto chart as a Plotly figure dict (no Plotly import): the templates serialise it as JSON.

Each sweep's traces are in charts.sweep_traces, series styles and legend placement in
charts.style, axis ranges and edge markers in charts.ranges, the SLO floor in charts.slo_floor.
"""

from __future__ import annotations

from typing import Any

from app.charts import outliers, ranges
from app.charts.slo_floor import add_slo_floor, slo_floor_x
from app.charts.style import PALETTE as PALETTE
from app.charts.style import SYMBOLS as SYMBOLS
from app.charts.style import colour as colour
from app.charts.style import empty_note, side_legend
from app.charts.style import symbol as symbol
from app.charts.sweep_traces import positions, sweep_traces
from app.domain.accounting import axis_unit
from app.domain.numbers import fmt_count
from app.domain.sessions import axis_words
from app.schemas.answers.typed.common import PlotlyFigureDict
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
) -> PlotlyFigureDict:
    """Frontier lines, faded dominated points, read-off stars, and the SLO's interactivity floor.

    The axes fit the measured points (and the SLO floor); with `limits_at_edge`, physics
    limits and claims in `extra_traces` beyond them become edge markers. Without it (a claim's
    audit, where the claim is the subject) the axes fit those too.
    """
    grouped = len(results) > GROUP_LEGEND_ABOVE
    traces: list[dict[str, Any]] = []
    titled: set[str] = set()
    for i, result in enumerate(results):
        traces.extend(sweep_traces(i, result, params, frontier_only, grouped, titled))
    unknown = _unknown_trace(results, params)
    if unknown is not None:
        traces.append(unknown)
    traces.extend(overlay_traces or [])  # measured too (a deployment's windows): the axes fit them
    extra = list(extra_traces or [])
    layout = _layout(params, log_x, log_y)
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


def _layout(params: Params, log_x: bool, log_y: bool) -> dict[str, Any]:
    """The chart's layout before ranges: axes titled (linked to the metrics page) and typed."""
    return {
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


def _axis_title(params: Params) -> str:
    words = axis_words(params.interactivity, params.stat, params.e2e_percentile)
    if params.interactivity == "e2e":  # two lines for the long name: a phone shows all of it
        return words.replace(") = ", ")<br>= ")
    return words


def _axis_anchor(params: Params) -> str:
    return "e2e-normalized-interactivity" if params.interactivity == "e2e" else "interactivity"


UNKNOWN_MARKER = {"color": "#8a8a8a", "size": 13, "symbol": "circle-open", "line": {"width": 2}}


def _unknown_trace(results: list[SweepAnalysis], params: Params) -> dict[str, Any] | None:
    """Hollow grey rings around points whose SLO status is unknown (a statistic not measured),
    one legend entry for all sweeps: unknown is neither a pass nor a fail."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    texts: dict[str, int] = {}  # each text once (a sweep's points share their reason) …
    which: list[int] = []  # … and each point's by its index: charts.js makes the trace's text
    for result in results:
        at_x, at_y = positions(result, params)
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
