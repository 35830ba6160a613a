"""Hover text of Pareto points: one template per group of points over their numbers, formatted
once per process per sweep (points never change); per-point text only for a line whose points
differ in what they measured.

The numbers travel as columns, one per template slot, in the trace's meta.hover, each value the
number the formatter's text shows (app.charts.shown); static/js/charts.js writes them back as that
text and hands Plotly the rows as customdata. A column of like numbers compresses far better than
rows of strings."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

from app.charts.shown import Cell, load_cell, number_cell
from app.domain.accounting import short_unit, split_label
from app.domain.numbers import fmt_count, fmt_load, fmt_number
from app.domain.point import PointMetrics
from app.services.analysis import Params, SweepAnalysis

T = TypeVar("T")


def hover_header(result: SweepAnalysis) -> str:
    """What every point of a sweep shares, written once per trace rather than per point."""
    meta = result.meta
    gpus = f"{meta.hardware} × {fmt_count(meta.num_gpus, 'GPU')}"
    split = result.split if result.split is not None else _split(result)
    lines = [f"<b>{meta.name}</b>", f"{gpus} ({split})" if split else gpus]
    system = " · ".join(str(v) for v in (meta.engine, meta.precision) if v)
    if system:
        lines.append(system)
    covariates = result.covariates.describe() if result.covariates else ""
    if covariates:  # speculative decoding, prefix-cache hits, workload (issue 37)
        lines.append(covariates)
    return "<br>".join(lines)


def _split(result: SweepAnalysis) -> str | None:
    return split_label(result.meta.num_prefill_gpus, result.meta.num_decode_gpus)


# A hover field naming the point's own split ("split=8P + 8D": a line of the template, no slot)
# where the split changes along the sweep.
SPLIT_FIELD = "split="

LATENCY_FIELDS = tuple(
    f"{m}_{s}_ms" for m in ("ttft", "tpot", "e2el") for s in ("p50", "p90", "p99")
)


def hover_fields(result: SweepAnalysis, k: int) -> tuple[str, ...]:
    """Which hover lines point k has: its load, position and the latencies it measured."""
    point = result.points[k]
    fields = [f for f in ("concurrency", "request_rate") if getattr(point, f) is not None]
    if point.request_rate is not None and math.isinf(point.request_rate):
        fields[fields.index("request_rate")] = "rate_inf"
    if result.xs[k] is not None and result.ys[k] is not None:
        fields.append("xy")
    fields.extend(f for f in LATENCY_FIELDS if _latency(point, f) is not None)
    own = split_label(*result.point_splits[k]) if result.point_splits else None
    if own:
        fields.append(SPLIT_FIELD + own)
    return tuple(fields)


# Where each of LATENCY_FIELDS is in a point: "ttft_p90_ms" is point.ttft_ms.p90.
_LATENCY_AT = {f: (f"{f.split('_')[0]}_ms", f.split("_")[1]) for f in LATENCY_FIELDS}


def _latency(point: PointMetrics, field: str) -> float | None:
    """A LATENCY_FIELDS value of a point, None if not measured."""
    stats, stat = _LATENCY_AT[field]
    value: float | None = getattr(getattr(point, stats), stat)
    return value


def by_hover_fields(result: SweepAnalysis, ks: list[int]) -> dict[tuple[str, ...], list[int]]:
    """Points grouped by the hover lines they have: thousands of dominated points share one
    template (a missing value has no slot, so it can never print as 0)."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for k in ks:
        groups.setdefault(hover_fields(result, k), []).append(k)
    return groups


def hover_cells(result: SweepAnalysis, k: int, fields: tuple[str, ...]) -> list[Cell]:
    """The hover's numbers as sent: each text as the number it shows (app.charts.shown.cell)."""
    return hover_items(result, k, fields, number_cell, load_cell)


def hover_items(
    result: SweepAnalysis,
    k: int,
    fields: tuple[str, ...],
    number: Callable[[float | None], T],
    load: Callable[[float | None], T],
) -> list[T]:
    """The point\'s hover fields in template slot order, each written by `number` or `load`."""
    point = result.points[k]
    values = []
    for field in fields:
        if field == "concurrency":
            values.append(load(point.concurrency))
        elif field == "request_rate":  # finite (rate_inf otherwise); the unit is the template's
            values.append(load(point.request_rate))
        elif field == "xy":
            values += [number(result.xs[k]), number(result.ys[k])]
        elif field != "rate_inf" and not field.startswith(SPLIT_FIELD):
            values.append(number(_latency(point, field)))
    return values


def hover_template(fields: tuple[str, ...], params: Params) -> str:
    """The lines `point_hover` writes, as a Plotly template over the point's customdata."""
    lines: list[str] = []
    latency: dict[str, list[str]] = {}
    split = ""  # the point's own split, last as in `point_hover`
    slot = iter(f"%{{customdata[{i}]}}" for i in range(len(fields) + 1))
    for field in fields:
        if field == "concurrency":
            lines.append(f"concurrency {next(slot)}")
        elif field == "request_rate":
            lines.append(f"rate {next(slot)} req/s")
        elif field == "rate_inf":
            lines.append("rate ∞")
        elif field.startswith(SPLIT_FIELD):
            split = f"split {field.removeprefix(SPLIT_FIELD)}"
        elif field == "xy":
            x, y = next(slot), next(slot)
            lines.append(f"{x} tok/s/user · {y} {short_unit(params.accounting)} ({params.basis})")
        else:
            metric, stat, _ = field.split("_")
            latency.setdefault(metric, []).append(f"{stat} {next(slot)}")
    lines.extend(f"{m.upper()} ms: " + ", ".join(parts) for m, parts in latency.items())
    return "<br>".join([*lines, split] if split else lines)


def point_hover(result: SweepAnalysis, k: int, params: Params) -> str:
    """The point's own lines: load, position and latencies."""
    point = result.points[k]
    lines = []
    if point.concurrency is not None:
        lines.append(f"concurrency {fmt_load(point.concurrency)}")
    if point.request_rate is not None:
        rate = point.request_rate
        lines.append("rate ∞" if math.isinf(rate) else f"rate {fmt_load(rate, 'req/s')}")
    x, y = result.xs[k], result.ys[k]
    if x is not None and y is not None:
        unit = short_unit(params.accounting)
        lines.append(f"{fmt_number(x)} tok/s/user · {fmt_number(y)} {unit} ({params.basis})")
    for metric in ("ttft", "tpot", "e2el"):
        parts = [
            f"{stat} {fmt_number(value)}"
            for stat in ("p50", "p90", "p99")
            if (value := _latency(point, f"{metric}_{stat}_ms")) is not None
        ]
        if parts:
            lines.append(f"{metric.upper()} ms: " + ", ".join(parts))
    own = split_label(*result.point_splits[k]) if result.point_splits else None
    if own:
        lines.append(f"split {own}")
    return "<br>".join(lines)


def hover_groups(
    result: SweepAnalysis, ks: list[int], params: Params, note: str = ""
) -> list[tuple[list[int], dict[str, Any]]]:
    """Points with the hover keys of their trace: one template over numbers per group of points
    with the same lines (a concurrency sweep is one group). The numbers are in meta.hover,
    one column per template slot (see the module)."""
    header = hover_header(result)  # from metadata, which can be edited: never memoised
    return [
        (
            group,
            {
                "meta": {"hover": columns},
                "hovertemplate": f"{header}<br>{hover_template(fields, params)}{note}"
                "<extra></extra>",
            },
        )
        for fields, group, columns in _grouped(result, ks, params)
    ]


Column = list[Cell]


def _grouped(
    result: SweepAnalysis, ks: list[int], params: Params
) -> list[tuple[tuple[str, ...], list[int], list[Column]]]:
    """Groups and their numbers depend only on the points and the axes, and points never change:
    built once per process per sweep and shared read-only by every figure after."""
    key = ("hover", params.stat, params.basis, result.meta.num_gpus, result.split, tuple(ks))
    if key not in result.derived:
        grouped = []
        for fields, group in by_hover_fields(result, ks).items():
            rows = [hover_cells(result, k, fields) for k in group]
            grouped.append((fields, group, [list(column) for column in zip(*rows, strict=True)]))
        result.derived[key] = grouped
    memo: list[tuple[tuple[str, ...], list[int], list[Column]]] = result.derived[key]
    return memo


def line_hover(result: SweepAnalysis, ks: list[int], params: Params) -> dict[str, Any]:
    """Hover keys for one line through `ks`: a template when the points share their lines, else
    a text per point (a line cannot be split into groups)."""
    groups = hover_groups(result, ks, params)
    if len(groups) == 1 and groups[0][0] == ks:
        return groups[0][1]
    return {
        "text": [point_hover(result, k, params) for k in ks],
        "hovertemplate": hover_header(result) + "<br>%{text}<extra></extra>",
    }
