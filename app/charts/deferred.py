"""A big figure's hover numbers, sent after the page instead of inside it.

Explore of 20 sweeps × 2,048 points carries 12 numbers per point: x, y and ten hover numbers
(app.charts.shown). The hover numbers are three quarters of the page, and a browser needs them
only when the pointer rests on a point, yet it decodes and parses them before it can draw. Above
a size the page keeps the positions and the hover templates, and the traces' hover columns
(meta.hover) travel in a second answer that static/js/charts.js asks for as it draws, then joins
by trace index, so hovers read exactly as if they had come inline. The offline report and the
JSON twin keep everything inline.
"""

from __future__ import annotations

from typing import Any

Hovers = dict[str, list[list[Any]]]  # trace index (as a JSON key) -> its hover columns


def hover_points(figure: dict[str, Any]) -> int:
    """How many points of the figure carry hover columns."""
    return sum(len(t.get("x") or ()) for t in figure["data"] if _columns(t) is not None)


def split_hovers(figure: dict[str, Any]) -> tuple[dict[str, Any], Hovers]:
    """The figure without its traces' hover columns (a copy: the traces may be kept elsewhere),
    and those columns by trace index."""
    data: list[dict[str, Any]] = []
    hovers: Hovers = {}
    for index, trace in enumerate(figure["data"]):
        columns = _columns(trace)
        if columns is None:
            data.append(trace)
            continue
        hovers[str(index)] = columns
        meta = {key: value for key, value in trace["meta"].items() if key != "hover"}
        # Until the columns arrive a hover shows nothing rather than a template's empty slots.
        data.append({**trace, "meta": {**meta, "hover_later": True}, "hoverinfo": "none"})
    return {**figure, "data": data}, hovers


def _columns(trace: dict[str, Any]) -> list[list[Any]] | None:
    meta = trace.get("meta")
    if not isinstance(meta, dict):
        return None
    columns = meta.get("hover")
    return columns if isinstance(columns, list) else None
