"""Plotly specs for one sweep's page: latency and throughput against load, per-request CDFs."""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from app.charts.pareto import colour
from app.domain.numbers import fmt_load
from app.domain.request_goodput import request_tpot_expr
from app.store.models import Point

CDF_POINTS = 200


def _load(point: Point) -> float | None:
    if point.concurrency is not None:
        return point.concurrency
    rate = point.request_rate
    return None if rate is None or math.isinf(rate) else rate


def _axis_title(points: list[Point]) -> str:
    if any(p.concurrency is not None for p in points):
        return "Concurrency (requests)"
    return "Request rate (req/s)"


def latency_figure(points: list[Point]) -> dict[str, Any] | None:
    """p50 and p90 TTFT, TPOT and E2EL (ms) against load; None when nothing to draw."""
    traces = []
    for i, metric in enumerate(("ttft", "tpot", "e2el")):
        for stat, dash in (("p50", "solid"), ("p90", "dash")):
            pairs = [
                (x, getattr(p, f"{metric}_{stat}_ms"))
                for p in points
                if (x := _load(p)) is not None and getattr(p, f"{metric}_{stat}_ms") is not None
            ]
            if not pairs:
                continue
            pairs.sort()
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": f"{metric.upper()} {stat}",
                    "x": [x for x, _ in pairs],
                    "y": [y for _, y in pairs],
                    "yaxis": "y2" if metric == "e2el" else "y",
                    "line": {"color": colour(i), "dash": dash},
                }
            )
    if not traces:
        return None
    return {
        "data": traces,
        "layout": {
            "margin": {"l": 60, "r": 60, "t": 20, "b": 50},
            "legend": {"orientation": "h", "y": -0.3},
            "xaxis": {"title": {"text": _axis_title(points)}},
            "yaxis": {"title": {"text": "TTFT, TPOT (ms)"}, "rangemode": "tozero"},
            "yaxis2": {"title": {"text": "E2EL (ms)"}, "overlaying": "y", "side": "right",
                       "rangemode": "tozero"},
        },
    }  # fmt: skip


def throughput_figure(points: list[Point], num_gpus: int) -> dict[str, Any] | None:
    """Output and total tok/s per GPU against load."""
    traces = []
    for i, (column, name) in enumerate((("output_tok_s", "output"), ("total_tok_s", "total"))):
        pairs = sorted(
            (x, getattr(p, column) / num_gpus)
            for p in points
            if (x := _load(p)) is not None and getattr(p, column) is not None
        )
        if pairs:
            traces.append(
                {
                    "type": "scatter", "mode": "lines+markers", "name": f"{name} tok/s per GPU",
                    "x": [x for x, _ in pairs], "y": [y for _, y in pairs],
                    "line": {"color": colour(i)},
                }
            )  # fmt: skip
    if not traces:
        return None
    return {
        "data": traces,
        "layout": {
            "margin": {"l": 60, "r": 20, "t": 20, "b": 50},
            "legend": {"orientation": "h", "y": -0.3},
            "xaxis": {"title": {"text": _axis_title(points)}},
            "yaxis": {"title": {"text": "tok/s per GPU"}, "rangemode": "tozero"},
        },
    }


def cdf_figure(points: list[Point], samples: pl.DataFrame, metric: str) -> dict[str, Any] | None:
    """Empirical CDF of per-request TTFT or TPOT (ms), one line per load level with samples."""
    value = request_tpot_expr() if metric == "tpot" else pl.col("ttft_ms")
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
        label = (
            f"{_axis_title([point]).split(' ')[0].lower()} {fmt_load(_load(point), missing='∞')}"
        )
        traces.append(
            {
                "type": "scatter", "mode": "lines", "name": label,
                "x": [column[k] for k in idx], "y": [(k + 1) / n for k in idx],
                "line": {"color": colour(i), "shape": "hv"},
            }
        )  # fmt: skip
    if not traces:
        return None
    name = "TPOT per request" if metric == "tpot" else "TTFT"
    return {
        "data": traces,
        "layout": {
            "margin": {"l": 60, "r": 20, "t": 20, "b": 50},
            "legend": {"orientation": "h", "y": -0.3},
            "xaxis": {"title": {"text": f"{name} (ms)"}},
            "yaxis": {"title": {"text": "share of successful requests"}, "range": [0, 1]},
        },
    }
