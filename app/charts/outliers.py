"""Axes fitted to the bulk of the series: one far series (a mock server at 1,100 tok/s/user among
real ones at 200) must not squeeze every other curve into a fifth of the axis.

Each series reaches some extent on each axis; sorted, an extent more than OUTLIER_FACTOR times
the next one is an outlier, as long as the outliers stay a minority (at most a third of the
series). The axis then ends at the bulk's top; each outlier series gets one triangle on the edge
whose hover gives its true values, and a "Show all points" button zooms out to every point.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from app.charts import ranges, ticks
from app.charts.style import button_bar
from app.domain.numbers import fmt_count, fmt_number

OUTLIER_FACTOR = 3.0
SHOW_ALL = "Show all points"
FIT_BULK = "Fit to the bulk"


def bulk_top(extents: list[float]) -> float | None:
    """The largest extent that is not an outlier, or None when no extent is one."""
    tops = sorted(extents, reverse=True)
    dropped = 0
    while dropped < len(tops) // 3 and tops[dropped] > OUTLIER_FACTOR * tops[dropped + 1]:
        dropped += 1
    return tops[dropped] if dropped else None


def _sweep_of(trace: dict[str, Any]) -> Any:
    meta = trace.get("meta")
    return meta.get("sweep") if isinstance(meta, dict) else None


def _by_sweep(traces: list[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
    groups: dict[Any, list[dict[str, Any]]] = {}
    for trace in traces:
        sweep = _sweep_of(trace)
        if sweep is not None:
            groups.setdefault(sweep, []).append(trace)
    return groups


def _pairs(trace: dict[str, Any]) -> list[tuple[float, float]]:
    return [
        (float(x), float(y))
        for x, y in zip(trace.get("x") or [], trace.get("y") or [], strict=False)
        if isinstance(x, int | float) and isinstance(y, int | float)
    ]


def _pair_arrays(trace: dict[str, Any]) -> tuple[np.ndarray, np.ndarray] | None:
    """`_pairs(trace)` as x and y arrays when its values are plain finite numbers (converted and
    checked in C), else None."""
    xs = ranges.plain_floats(list(trace.get("x") or []))
    ys = ranges.plain_floats(list(trace.get("y") or []))
    if xs is None or ys is None:
        return None
    n = min(len(xs), len(ys))
    xs, ys = xs[:n], ys[:n]
    if not (np.isfinite(xs).all() and np.isfinite(ys).all()):
        return None  # NaN compares as Python's max meets it: go value by value
    return xs, ys


def _tops(traces: list[dict[str, Any]]) -> tuple[float, float] | None:
    """The largest x and largest y of a sweep's pairs, None when it has none."""
    arrays = [_pair_arrays(t) for t in traces]
    if any(a is None for a in arrays):
        pairs = [p for t in traces for p in _pairs(t)]
        if not pairs:
            return None
        return max(x for x, _ in pairs), max(y for _, y in pairs)
    kept = [a for a in arrays if a is not None and a[0].size]
    if not kept:
        return None
    return max(float(xs.max()) for xs, _ in kept), max(float(ys.max()) for _, ys in kept)


def _beyond(trace: dict[str, Any], box: ranges.Box) -> list[tuple[float, float]]:
    """The trace's pairs outside `box`."""
    arrays = _pair_arrays(trace)
    if arrays is None:
        return [p for p in _pairs(trace) if box.side(*p) != (0, 0)]
    xs, ys = arrays
    out = (xs > box.x1) | (xs < box.x0) | (ys > box.y1) | (ys < box.y0)
    return list(zip(xs[out].tolist(), ys[out].tolist(), strict=True))


def bulk_box(
    traces: list[dict[str, Any]], whole: ranges.Box, also_x: list[float]
) -> ranges.Box | None:
    """`whole` with its top ends brought down to the bulk of the sweeps, or None when no sweep
    lies far beyond the others."""
    tops = [top for ts in _by_sweep(traces).values() if (top := _tops(ts)) is not None]
    x_top = bulk_top([x for x, _ in tops])
    y_top = bulk_top([y for _, y in tops])
    if x_top is None and y_top is None:
        return None
    box = whole
    if x_top is not None:
        pad = ranges.LOG_PAD if whole.log_x else ranges.LINEAR_PAD
        box = replace(box, x1=max([x_top * pad, *(x * pad for x in also_x)]))
    if y_top is not None:
        pad = ranges.LOG_PAD if whole.log_y else ranges.LINEAR_PAD
        box = replace(box, y1=y_top * pad)
    return box


def edge_traces(
    traces: list[dict[str, Any]], box: ranges.Box, units: tuple[str, str]
) -> list[dict[str, Any]]:
    """One triangle per sweep with points beyond `box`, on the edge nearest its highest such
    point; its hover says how many points lie beyond and their true range."""
    spots = ranges.Spots(box)
    out = []
    for sweep, mine in _by_sweep(traces).items():
        # Distinct points: the read-off star repeats a frontier point.
        beyond = sorted({p for t in mine for p in _beyond(t, box)})
        if not beyond:
            continue
        source = mine[0]
        name = str(source.get("name", ""))
        xs, ys = [x for x, _ in beyond], [y for _, y in beyond]
        text = (
            f"<b>{name}</b><br>{fmt_count(len(beyond), 'point')} beyond the axes:"
            f"<br>{_span(xs)} {units[0]}<br>{_span(ys)} {units[1]}"
            f"<br><i>{SHOW_ALL} (above the chart) zooms out to them</i>"
        )
        top = max(beyond, key=lambda p: (p[1], p[0]))
        colour = str((source.get("line") or {}).get("color") or "#000")
        edge = ranges.edge_trace(source, [(*top, text)], spots, colour)
        edge.update(meta={"sweep": sweep, "edge": "outlier"}, name=f"{name} (beyond the axes)")
        out.append(edge)
    return out


def _span(values: list[float]) -> str:
    lo, hi = min(values), max(values)
    return fmt_number(hi) if lo == hi else f"{fmt_number(lo)}–{fmt_number(hi)}"


def zoom_buttons(
    layout: dict[str, Any], bulk: ranges.Box, whole: ranges.Box, edge_indices: list[int]
) -> None:
    """Two buttons above the plot: the fitted view (edge triangles shown) and every point (the
    triangles hidden, as the points they stand for are then in view)."""

    def view(box: ranges.Box) -> dict[str, Any]:
        return {
            "xaxis.range": box.x_range(),
            "yaxis.range": box.y_range(),
            "xaxis.autorange": False,
            "yaxis.autorange": False,
        }

    layout["updatemenus"] = [
        button_bar(
            "zoom",
            [
                {
                    "label": FIT_BULK,
                    "method": "update",
                    "args": [{"visible": True}, view(bulk), edge_indices],
                },
                {
                    "label": SHOW_ALL,
                    "method": "update",
                    "args": [{"visible": False}, view(whole), edge_indices],
                },
            ],
        )
    ]
    layout["margin"]["t"] = max(layout["margin"].get("t", 0), 40)


def set_log_ticks(layout: dict[str, Any], *boxes: ranges.Box) -> None:
    """Explicit ticks on each log axis across every view the buttons can show."""
    first = boxes[0]
    if first.log_x:
        ticks.log_ticks(layout["xaxis"], min(b.x0 for b in boxes), max(b.x1 for b in boxes))
    if first.log_y:
        ticks.log_ticks(layout["yaxis"], min(b.y0 for b in boxes), max(b.y1 for b in boxes))
