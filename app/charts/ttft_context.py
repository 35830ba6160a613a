"""Plotly specs of TTFT against prompt length on a sweep's page (issue 50): the median TTFT of
each input-length bucket per load level, the fitted prefill line, the TTFT limit; and the same by
turn of a session at one load. Every bucket marker names its point, its input-length range and
(on the turns chart) its turn, so clicking it lists the requests there that missed the SLO."""

from __future__ import annotations

from typing import Any

import polars as pl

from app.charts.style import empty_note, series_style, side_legend
from app.charts.sweep import load_label
from app.domain.numbers import fmt_number
from app.domain.prefill_fit import PrefillFit, buckets, fit_prefill
from app.store.point_blocks import StoredPoint

MAX_TURNS = 8  # turns 0 … 7 drawn apart; later turns are listed in the note
CLICK_HINT = "Click a marker to list the requests of that bucket that missed the SLO"


def _ok(samples: pl.DataFrame, point_id: int) -> pl.DataFrame:
    return samples.filter(
        (pl.col("point_id") == point_id)
        & pl.col("ok").fill_null(False)
        & pl.col("ttft_ms").is_not_null()
        & pl.col("input_len").is_not_null()
    )


def _bucket_trace(
    name: str, i: int, frame: pl.DataFrame, point_id: int, turn: int | None, misses_url: str
) -> dict[str, Any] | None:
    """Median TTFT per input-length bucket as one line, each marker's bucket in customdata."""
    found = buckets(frame["input_len"].cast(pl.Float64).to_list(), frame["ttft_ms"].to_list())
    if not found:
        return None
    style = series_style(i)
    xs = [(b.low + (b.high if b.high is not None else 2 * max(b.low, 1))) / 2 for b in found]
    custom = [
        [point_id, b.low, b.high, turn, b.n, fmt_number(b.median_ttft_ms, "ms")] for b in found
    ]
    ranges = [f"{b.low:,}–{b.high:,}" if b.high is not None else f"{b.low:,}+" for b in found]
    return {
        "type": "scatter", "mode": "lines+markers", "name": name, "x": xs,
        "y": [b.median_ttft_ms for b in found],
        "line": {"color": style.colour, "dash": style.dash},
        "marker": {"size": 9, "symbol": style.symbol},
        "customdata": custom, "text": ranges,
        "hovertemplate": f"{name}: %{{text}} input tokens, %{{customdata[4]}} requests, median "
        "TTFT %{customdata[5]}<extra></extra>",
        "meta": {"misses": {"url": misses_url, "box": "sweep-misses"}},
    }  # fmt: skip


def _fit_trace(name: str, i: int, frame: pl.DataFrame, level: float) -> dict[str, Any] | None:
    """The least-squares prefill line over the point's requests, dashed, without a legend."""
    xs = frame["input_len"].cast(pl.Float64).to_list()
    fit = fit_prefill(xs, frame["ttft_ms"].to_list(), level)
    if not isinstance(fit, PrefillFit) or not fit.prefill_tok_s:
        return None
    ends = [min(xs), max(xs)]
    rate = fmt_number(fit.prefill_tok_s, "tok/s")
    return {
        "type": "scatter", "mode": "lines", "name": f"{name} fit", "x": ends,
        "y": [fit.intercept_ms + x * fit.ms_per_token for x in ends], "showlegend": False,
        "line": {"color": series_style(i).colour, "dash": "dot", "width": 1},
        "hovertemplate": f"{name}: fitted prefill {rate}<extra></extra>",
    }  # fmt: skip


def _layout(limit_ms: float | None) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "margin": {"l": 60, "r": 10, "t": 20, "b": 50},
        "legend": side_legend(),
        "xaxis": {"title": {"text": "prompt length (input tokens)"}, "type": "log"},
        "yaxis": {"title": {"text": "median TTFT (ms)"}, "rangemode": "tozero"},
    }
    if limit_ms is not None:
        layout["shapes"] = [
            {
                "type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": limit_ms,
                "y1": limit_ms, "line": {"color": "#b91c1c", "dash": "dash", "width": 1},
            }
        ]  # fmt: skip
        layout["annotations"] = [
            {
                "xref": "paper", "x": 1, "y": limit_ms, "xanchor": "right", "yanchor": "bottom",
                "text": f"TTFT limit {fmt_number(limit_ms, 'ms')}", "showarrow": False,
                "font": {"size": 11, "color": "#b91c1c"},
            }
        ]  # fmt: skip
    return layout


def context_figure(
    points: list[StoredPoint],
    samples: pl.DataFrame,
    limit_ms: float | None,
    level: float,
    misses_url: str,
) -> dict[str, Any]:
    """Median TTFT by input-length bucket, one line per load level with request samples, each
    with its fitted prefill line (dotted); the TTFT limit dashed."""
    traces: list[dict[str, Any]] = []
    for i, point in enumerate(points):
        frame = _ok(samples, point.id)
        line = _bucket_trace(load_label(point), i, frame, point.id, None, misses_url)
        if line is None:
            continue
        traces.append(line)
        fit = _fit_trace(load_label(point), i, frame, level)
        if fit is not None:
            traces.append(fit)
    layout = _layout(limit_ms)
    figure: dict[str, Any] = {"data": traces, "layout": layout, "note": CLICK_HINT}
    if not traces:
        empty_note(layout, "no successful request sample gives both its prompt length and TTFT")
        figure.pop("note")
    return figure


def turn_points(points: list[StoredPoint], samples: pl.DataFrame) -> list[StoredPoint]:
    """The load levels whose requests carry turn indexes (multi-turn sessions)."""
    if "turn_index" not in samples.columns:
        return []
    with_turns = samples.filter(pl.col("turn_index").is_not_null())
    ids = set(with_turns["point_id"].unique().to_list())
    return [p for p in points if p.id in ids]


def turns_figure(
    point: StoredPoint, samples: pl.DataFrame, limit_ms: float | None, misses_url: str
) -> dict[str, Any]:
    """At one load level: median TTFT by input-length bucket, one line per turn of a session
    (turn 0 is cold: the whole prompt prefilled; later turns reuse the session's prefix)."""
    frame = _ok(samples, point.id).filter(pl.col("turn_index").is_not_null())
    traces: list[dict[str, Any]] = []
    turns = sorted(int(t) for t in frame["turn_index"].unique().to_list())
    for i, turn in enumerate(turns[:MAX_TURNS]):
        mine = frame.filter(pl.col("turn_index") == turn)
        name = f"turn {turn}" + (" (cold)" if turn == 0 else "")
        line = _bucket_trace(name, i, mine, point.id, turn, misses_url)
        if line is not None:
            traces.append(line)
    layout = _layout(limit_ms)
    figure: dict[str, Any] = {"data": traces, "layout": layout, "note": CLICK_HINT}
    if len(turns) > MAX_TURNS:
        later = frame.filter(pl.col("turn_index") >= turns[MAX_TURNS]).height
        figure["note"] = (
            f"{CLICK_HINT}; turns {turns[MAX_TURNS]}–{turns[-1]} ({later:,} requests) are not drawn"
        )
    if not traces:
        empty_note(layout, "no successful request of a session gives its prompt length and TTFT")
        figure.pop("note")
    return figure
