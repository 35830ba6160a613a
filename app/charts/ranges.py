"""Axis ranges that follow the measured data, and edge markers for what lies beyond them.

A physics ceiling or a vendor claim can sit ten times beyond every measurement; left to
autorange, Plotly would crush the measured curves into a corner. The axes keep the measured
extent, and a limit beyond it becomes a triangle on the axis edge pointing its way, whose hover
text gives the true value.

Plotly positions differ by kind on a log axis: layout ranges and annotations take log10 values,
but shapes and traces take data values. `Box` keeps data values and converts only for ranges.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.domain.numbers import fmt_number

LINEAR_PAD = 1.08  # headroom above the largest value on a linear axis (which starts at 0)
LOG_PAD = 1.25  # factor beyond the smallest and largest value on a log axis
EDGE_SYMBOLS = {
    (1, 0): "triangle-right",
    (-1, 0): "triangle-left",
    (0, 1): "triangle-up",
    (0, -1): "triangle-down",
    (1, 1): "triangle-ne",
    (1, -1): "triangle-se",
    (-1, 1): "triangle-nw",
    (-1, -1): "triangle-sw",
}


def _numbers(values: Iterable[Any], log: bool) -> list[float]:
    return [
        float(v)
        for v in values
        if isinstance(v, int | float) and math.isfinite(v) and (v > 0 or not log)
    ]


_PLAIN = frozenset((float, int))


def plain_floats(values: list[Any]) -> np.ndarray | None:
    """`values` as a float array when every one is a plain int or float (a chart's x or y as
    the figure builds them: checked and converted in C), else None (the caller goes value by
    value). A page of 40k points meets these loops on every new SLO."""
    if not set(map(type, values)) <= _PLAIN:
        return None
    return np.asarray(values, dtype=np.float64)


def _extent(values: list[Any], log: bool) -> tuple[float, float] | None:
    """The least and greatest of `_numbers(values, log)`, None when there is none."""
    array = plain_floats(values)
    if array is None:
        numbers = _numbers(values, log)
        return (min(numbers), max(numbers)) if numbers else None
    keep = np.isfinite(array)
    if log:
        keep &= array > 0
    kept = array[keep]
    return (float(kept.min()), float(kept.max())) if kept.size else None


def _with_errors(trace: dict[str, Any], axis: str) -> list[Any]:
    """The trace's values on one axis, widened by its error bars when it has them."""
    values = list(trace.get(axis) or [])
    error = trace.get(f"error_{axis}") or {}
    plus = error.get("array")
    if not error.get("visible", True) or not plus:
        return values
    minus = error.get("arrayminus") if error.get("symmetric") is False else plus
    out = list(values)
    for k, v in enumerate(values):
        if not isinstance(v, int | float):
            continue
        for err, sign in ((plus, 1), (minus or [], -1)):
            e = err[k] if k < len(err) else None
            if isinstance(e, int | float):
                out.append(v + sign * e)
    return out


@dataclass(frozen=True)
class Box:
    """The plotted area in data values (log axes included)."""

    x0: float
    x1: float
    y0: float
    y1: float
    log_x: bool
    log_y: bool

    def x_range(self) -> list[float]:
        return _range(self.x0, self.x1, self.log_x)

    def y_range(self) -> list[float]:
        return _range(self.y0, self.y1, self.log_y)

    def x_fraction(self, x: float) -> float:
        """Where x sits across the x axis, 0 (left edge) to 1 (right edge)."""
        lo, hi = self.x_range()
        at = math.log10(x) if self.log_x else x
        return (at - lo) / (hi - lo) if hi > lo else 0.5

    def y_fraction(self, y: float) -> float:
        lo, hi = self.y_range()
        at = math.log10(y) if self.log_y else y
        return (at - lo) / (hi - lo) if hi > lo else 0.5

    def at_fraction(self, fx: float, fy: float) -> tuple[float, float]:
        """The data values at fractions (0 … 1) of the x and y axes."""
        (x_lo, x_hi), (y_lo, y_hi) = self.x_range(), self.y_range()
        x, y = x_lo + fx * (x_hi - x_lo), y_lo + fy * (y_hi - y_lo)
        return (10**x if self.log_x else x), (10**y if self.log_y else y)

    def side(self, x: float, y: float) -> tuple[int, int]:
        """-1, 0 or +1 per axis: below, within or beyond the box."""
        dx = 1 if x > self.x1 else -1 if x < self.x0 else 0
        dy = 1 if y > self.y1 else -1 if y < self.y0 else 0
        return dx, dy

    def clamp(self, x: float, y: float) -> tuple[float, float]:
        return min(max(x, self.x0), self.x1), min(max(y, self.y0), self.y1)


def _range(lo: float, hi: float, log: bool) -> list[float]:
    return [math.log10(lo), math.log10(hi)] if log else [lo, hi]


def _span(values: list[float], log: bool) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    if log:
        return lo / LOG_PAD, hi * LOG_PAD
    top = hi * LINEAR_PAD if hi > 0 else 1.0
    return min(0.0, lo), top


def fit_box(
    traces: list[dict[str, Any]],
    *,
    log_x: bool,
    log_y: bool,
    also_x: Iterable[float] = (),
) -> Box | None:
    """The box around every value of `traces` (and `also_x`); None when there is none."""
    xs = [v for t in traces if (e := _extent(_with_errors(t, "x"), log_x)) for v in e]
    ys = [v for t in traces if (e := _extent(_with_errors(t, "y"), log_y)) for v in e]
    xs += _numbers(also_x, log_x)
    if not xs or not ys:
        return None
    x0, x1 = _span(xs, log_x)
    y0, y1 = _span(ys, log_y)
    return Box(x0, x1, y0, y1, log_x, log_y)


def set_ranges(layout: dict[str, Any], box: Box) -> None:
    layout["xaxis"]["range"] = box.x_range()
    layout["yaxis"]["range"] = box.y_range()
    layout["xaxis"]["autorange"] = False
    layout["yaxis"]["autorange"] = False


def _point_text(x: float, y: float, units: tuple[str, str]) -> str:
    return f"{fmt_number(x, units[0])}, {fmt_number(y, units[1])}"


SPOT_GAP = 0.035  # two edge markers closer than this share of both axes would overlap
SPOT_STEP = 0.06  # how far along its edge a marker moves to clear another


@dataclass
class Spots:
    """Edge positions taken so far: a marker that would sit on another moves along its edge
    (down the right edge; left along the top edge, corners included), its hover unchanged."""

    box: Box
    used: list[tuple[float, float]] = field(default_factory=list)

    def place(self, x: float, y: float, side: tuple[int, int]) -> tuple[float, float]:
        fx, fy = self.box.x_fraction(x), self.box.y_fraction(y)
        for _ in range(int(1 / SPOT_STEP)):
            if all(abs(fx - ux) > SPOT_GAP or abs(fy - uy) > SPOT_GAP for ux, uy in self.used):
                break
            if side[1] != 0:
                fx = max(fx - SPOT_STEP, 0.0)
            else:
                fy = max(fy - SPOT_STEP, 0.0)
        self.used.append((fx, fy))
        return self.box.at_fraction(fx, fy)


def edge_trace(
    source: dict[str, Any],
    points: list[tuple[float, float, str]],
    spots: Spots,
    colour: str,
) -> dict[str, Any]:
    """Triangles on the box's edge, each pointing towards the true position in its hover."""
    box = spots.box
    xs, ys, symbols = [], [], []
    for x, y, _ in points:
        side = box.side(x, y)
        cx, cy = spots.place(*box.clamp(x, y), side)
        xs.append(cx)
        ys.append(cy)
        symbols.append(EDGE_SYMBOLS.get(side, "triangle-up"))
    return {
        "type": "scatter",
        "mode": "markers",
        "meta": "edge",
        "name": f"{source.get('name', '')} (beyond the axis)",
        "legendgroup": source.get("legendgroup"),
        "showlegend": False,
        "x": xs,
        "y": ys,
        "text": [text for _, _, text in points],
        "hovertemplate": "%{text}<extra></extra>",
        "cliponaxis": False,  # a marker centred on the edge would otherwise be cut in half
        "marker": {
            "symbol": symbols,
            "size": 13,
            "color": colour,
            "line": {"color": "#000", "width": 1},
        },
    }


def _line_colour(trace: dict[str, Any]) -> str:
    return str((trace.get("line") or {}).get("color") or (trace.get("marker") or {}).get("color"))


def edge_markers(
    limits: list[dict[str, Any]], box: Box, units: tuple[str, str]
) -> list[dict[str, Any]]:
    """The limit traces, each as drawn within `box`, plus an edge marker where one lies beyond.

    A point claim beyond the box is replaced by its edge marker (its legend entry says so);
    a line claim (one axis stated) beyond it becomes a marker at the middle of that edge; a
    ceiling curve with no point inside keeps its (clipped, unseen) line for the legend and gets
    one marker where it comes nearest to the box.
    """
    out: list[dict[str, Any]] = []
    spots = Spots(box)
    for trace in limits:
        xs, ys = trace.get("x") or [], trace.get("y") or []
        pairs = [
            (float(x), float(y))
            for x, y in zip(xs, ys, strict=False)
            if isinstance(x, int | float) and isinstance(y, int | float)
        ]
        inside = [p for p in pairs if box.side(*p) == (0, 0)]
        name = str(trace.get("name", ""))
        if not pairs or inside and trace.get("mode") == "markers":
            out.append(trace)
            continue
        if trace.get("meta") == "claim":
            out.extend(_claim_edge(trace, pairs, spots, units, name))
            continue
        out.append(trace)
        if inside or _crosses(pairs, box):
            continue
        near = min(pairs, key=lambda p: _excess(p, box))
        k = pairs.index(near)
        texts = trace.get("text") or []
        detail = f"<br>{texts[k]}" if k < len(texts) and texts[k] else ""
        text = f"<b>{name}</b>{detail}<br>beyond the axes: {_point_text(*near, units)}"
        out.append(edge_trace(trace, [(*near, text)], spots, _line_colour(trace)))
    return out


def _claim_edge(
    trace: dict[str, Any],
    pairs: list[tuple[float, float]],
    spots: Spots,
    units: tuple[str, str],
    name: str,
) -> list[dict[str, Any]]:
    box = spots.box
    xs = {x for x, _ in pairs}
    text = (trace.get("text") or [""])[0]
    if trace.get("mode") == "markers":
        x, y = pairs[0]
        true = _point_text(x, y, units)
    elif len(xs) == 1:  # a vertical line: the claim states the x value only
        x = pairs[0][0]
        if box.x0 <= x <= box.x1:
            return [trace]
        y = box.at_fraction(0.5, 0.5)[1]  # the middle of the edge it lies beyond
        true = fmt_number(x, units[0])
    else:  # a horizontal line: the y value only
        y = pairs[0][1]
        if box.y0 <= y <= box.y1:
            return [trace]
        x = box.at_fraction(0.5, 0.5)[0]
        true = fmt_number(y, units[1])
    edge = edge_trace(trace, [(x, y, f"{text}<br><b>beyond the axis: {true}</b>")], spots, "")
    edge.update(meta="claim", showlegend=True, name=f"{name} ▸ beyond the axis")
    edge["legendgroup"] = trace.get("legendgroup")
    edge["marker"]["color"] = _line_colour(trace)
    return [edge]


def _excess(point: tuple[float, float], box: Box) -> float:
    """How far beyond the box a point lies, in multiples of the box (log axes: as ratios)."""
    x, y = point

    def over(v: float, lo: float, hi: float, log: bool) -> float:
        if log:
            return max(math.log10(v / hi) if v > hi else 0.0, math.log10(lo / v) if v < lo else 0.0)
        width = hi - lo or 1.0
        return max((v - hi) / width, (lo - v) / width, 0.0)

    return max(
        over(x, box.x0, box.x1, box.log_x) if x > 0 or not box.log_x else math.inf,
        over(y, box.y0, box.y1, box.log_y) if y > 0 or not box.log_y else math.inf,
    )


def _crosses(pairs: list[tuple[float, float]], box: Box) -> bool:
    """Whether a polyline with no vertex inside the box still passes through it (a long
    segment between two far vertices): tested at a few points along each segment."""
    for (ax, ay), (bx, by) in zip(pairs, pairs[1:], strict=False):
        for t in (0.25, 0.5, 0.75):
            if box.side(ax + (bx - ax) * t, ay + (by - ay) * t) == (0, 0):
                return True
    return False
