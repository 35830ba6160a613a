"""Their figure beside ours for a stored sweep (app.domain.stated_figures): per point, each
aggregate the file stated that Paretoscope can recompute, from the point's request samples or
from the file's own totals.

What is compared, where the file and the samples allow it:
- output and request throughput: the stored figure beside successful samples' output tokens
  (or count) ÷ the point's duration;
- TTFT, TPOT and E2EL at p50, p90 and p99: the stored percentile beside the samples' (linear
  interpolation; TPOT per request, (E2EL − TTFT) ÷ (n − 1));
- InferenceX's own interactivity (`*_intvty`) beside 1000 ÷ the stored TPOT at that statistic;
- the MLCommons endpoints client's `tps` / `qps` beside its totals ÷ the whole run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl
from sqlalchemy.orm import Session

from app.domain.request_goodput import defined_tpot_expr
from app.domain.stated_figures import (
    StatedFigure,
    interactivity_figure,
    per_run_figure,
    per_user_figure,
    percentile_figure,
    pooled_figure,
    throughput_figure,
    token_weighted_figure,
    totals_figure,
    ttft_included_figure,
    window_figure,
    within_rounding,
)
from app.schemas.answers.typed.sweeps import StatedFigureOutDict
from app.store import samples as sample_store
from app.store.point_blocks import StoredPoint

PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))
METRICS = (("ttft", "TTFT"), ("tpot", "TPOT"), ("e2el", "E2EL"))
INTVTY = (("mean", "mean"), ("median", "p50"), ("p90", "p90"), ("p99", "p99"))
MAX_SHOWN_POINTS = 200  # a sweep page lists at most this many points' figures


def stated_rows(session: Session, points: Sequence[StoredPoint]) -> list[StatedFigureOutDict]:
    """Per point (position order), its stated figures beside Paretoscope's, as JSON rows."""
    shown = list(points)[:MAX_SHOWN_POINTS]
    frame = sample_store.samples_frame(session, [p.id for p in shown])
    by_point: dict[int, pl.DataFrame] = (
        {int(k[0]): g for k, g in frame.group_by("point_id")} if not frame.is_empty() else {}
    )
    rows: list[StatedFigureOutDict] = []
    for point in shown:
        figures = point_figures(point, by_point.get(point.id))
        rows.extend(_row(point, f) for f in figures)
    return rows


def _row(point: StoredPoint, figure: StatedFigure) -> StatedFigureOutDict:
    load = point.concurrency if point.concurrency is not None else point.request_rate
    return {
        "point_id": point.id,
        "position": point.position,
        "load": load,
        "load_kind": "concurrency" if point.concurrency is not None else "request_rate",
        "figure": figure.figure,
        "unit": figure.unit,
        "theirs": figure.theirs,
        "ours": figure.ours,
        "ours_from": figure.ours_from,
        "difference_pct": figure.difference_pct,
        "status": figure.status,
        "rule": figure.rule,
    }


def point_figures(point: StoredPoint, samples: pl.DataFrame | None) -> list[StatedFigure]:
    """The stated figures of one point Paretoscope can recompute."""
    extra: Mapping[str, Any] = point.extra or {}
    out: list[StatedFigure] = []
    if samples is not None and samples.height:
        out.extend(_from_samples(point, samples, extra))
    elif "legacy_loadgen_window_s" not in extra:
        out.extend(_from_totals(point))
    out.extend(_from_intvty(point, extra))
    out.extend(_per_user_and_ttft(point, extra))
    out.extend(_from_window(point, extra))
    out.extend(_from_aiperf_runs(extra))
    return out


def _from_samples(
    point: StoredPoint, samples: pl.DataFrame, extra: Mapping[str, Any]
) -> list[StatedFigure]:
    out: list[StatedFigure] = []
    ok = samples.filter(pl.col("ok").fill_null(False))
    counted = (point.num_requests or 0) + (point.num_failed or 0)
    subset = samples.height < counted
    window = extra.get("samples_window")
    straddling = isinstance(window, dict) and bool(window.get("straddling"))
    duration = point.duration_s
    if duration and duration > 0:
        tokens = float(ok.select(pl.col("output_len").cast(pl.Int64).sum()).item() or 0)
        if point.output_tok_s:
            how = (
                f"{tokens:,.0f} output tokens of {ok.height:,} successful samples ÷ "
                f"{duration:.4g} s"
            )
            out.append(
                throughput_figure(
                    "output throughput",
                    point.output_tok_s,
                    tokens / duration,
                    how,
                    subset=subset,
                    straddling=straddling,
                )
            )
        if point.requests_per_s:
            how = f"{ok.height:,} successful samples ÷ {duration:.4g} s"
            out.append(
                throughput_figure(
                    "request throughput",
                    point.requests_per_s,
                    ok.height / duration,
                    how,
                    subset=subset,
                    straddling=straddling,
                )
            )
    for metric, label in METRICS:
        value = defined_tpot_expr() if metric == "tpot" else pl.col(f"{metric}_ms")
        values = [v for v in ok.select(value.alias("v"))["v"].to_list() if v is not None]
        if not values:
            continue
        series = pl.Series(values, dtype=pl.Float64)
        for stat, q in PERCENTILES:
            theirs = getattr(point, f"{metric}_{stat}_ms", None)
            if theirs is None:
                continue
            ours = series.quantile(q, "linear")
            if ours is not None:
                out.append(_percentile(ok, extra, (metric, label, stat), theirs, float(ours), q))
    return out


def _percentile(
    ok: pl.DataFrame,
    extra: Mapping[str, Any],
    named: tuple[str, str, str],
    theirs: float,
    ours: float,
    q: float,
) -> StatedFigure:
    """A stored percentile beside the samples': guidellm's TPOT by the token-weighted rule where
    the samples weighted by their tokens give it, any other by the percentile rule."""
    metric, label, stat = named
    values = [v for v in ok.select(_metric_expr(metric).alias("v"))["v"].to_list() if v is not None]
    weighted = _token_weighted(ok, q) if metric == "tpot" and _itl(extra) else None
    if weighted is not None and within_rounding(theirs, weighted):
        return token_weighted_figure(stat, theirs, ours, weighted, len(values))
    return percentile_figure(f"{label} {stat}", theirs, ours, values, q)


def _metric_expr(metric: str) -> pl.Expr:
    return defined_tpot_expr() if metric == "tpot" else pl.col(f"{metric}_ms")


def _itl(extra: Mapping[str, Any]) -> bool:
    """guidellm's TPOT columns are its inter-token latency (the importer says so)."""
    return "tpot_source" in extra and "guidellm_time_per_output_token_ms" in extra


def _token_weighted(ok: pl.DataFrame, q: float) -> float | None:
    """The q-quantile of the requests' TPOT with each request weighted by its tokens after the
    first (n − 1): the first value whose cumulative weight reaches q of the total."""
    frame = ok.select(
        defined_tpot_expr().alias("v"), (pl.col("output_len") - 1).cast(pl.Float64).alias("w")
    ).drop_nulls()
    frame = frame.filter(pl.col("w") > 0).sort("v")
    total = float(frame["w"].sum() or 0) if frame.height else 0.0
    if total <= 0:
        return None
    reached = frame.filter(pl.col("w").cum_sum() >= q * total)
    return float(reached["v"][0]) if reached.height else None


def _from_aiperf_runs(extra: Mapping[str, Any]) -> list[StatedFigure]:
    """AIPerf's multi-run aggregate (per run) and collated (pooled) figures beside the mean of
    the uploaded runs' own figures (app.ingest.tools._aiperf_aggregate)."""
    out: list[StatedFigure] = []
    found = extra.get("aiperf_aggregates")
    for entry in found if isinstance(found, list) else ():
        if not isinstance(entry, Mapping):
            continue
        figures, values = entry.get("figures") or {}, entry.get("run_values") or {}
        runs = entry.get("runs") if isinstance(entry.get("runs"), int) else None
        rule = per_run_figure if entry.get("kind") == "aggregate" else pooled_figure
        for column, theirs in figures.items():
            mine = [float(v) for v in values.get(column) or () if isinstance(v, int | float)]
            if mine and isinstance(theirs, int | float):
                out.append(rule(_label(column), float(theirs), mine, runs))
    return out


def _label(column: str) -> str:
    """ttft_p99_ms → 'TTFT p99'; output_tok_s → 'output throughput'."""
    if column == "output_tok_s":
        return "output throughput"
    if column == "requests_per_s":
        return "request throughput"
    metric, stat = column.split("_")[:2]
    return f"{metric.upper()} {stat}"


def _from_totals(point: StoredPoint) -> list[StatedFigure]:
    """Without samples: the stated throughputs beside the file's own totals (mean output length
    × successful requests ÷ duration; successful requests ÷ duration)."""
    duration, done = point.duration_s, point.num_requests
    if not duration or duration <= 0 or not done:
        return _from_rates(point)
    out = []
    if point.output_tok_s and point.output_len is not None:
        tokens = point.output_len * done
        how = f"mean output {point.output_len:.4g} tokens × {done:,} requests ÷ {duration:.4g} s"
        out.append(totals_figure("output throughput", point.output_tok_s, tokens / duration, how))
    if point.requests_per_s:
        how = f"{done:,} successful requests ÷ {duration:.4g} s"
        out.append(totals_figure("request throughput", point.requests_per_s, done / duration, how))
    return out


def _from_rates(point: StoredPoint) -> list[StatedFigure]:
    """Without a duration: the stated output throughput beside mean output length × the stated
    request throughput (the same requests over the same time, if the tool measured both so)."""
    if not point.output_tok_s or point.output_len is None or not point.requests_per_s:
        return []
    ours = point.output_len * point.requests_per_s
    how = f"mean output {point.output_len:.4g} tokens × {point.requests_per_s:.4g} req/s"
    return [totals_figure("output throughput", point.output_tok_s, ours, how)]


def _per_user_and_ttft(point: StoredPoint, extra: Mapping[str, Any]) -> list[StatedFigure]:
    out: list[StatedFigure] = []
    tpot = point.tpot_mean_ms
    if not tpot:
        return out
    per_user = extra.get("output_token_throughput_per_user")  # GenAI-Perf, AIPerf
    avg = per_user.get("avg") if isinstance(per_user, dict) else None
    if isinstance(avg, int | float) and not isinstance(avg, bool):
        out.append(per_user_figure(float(avg), tpot))
    guidellm = extra.get("guidellm_time_per_output_token_ms")
    mean = guidellm.get("time_per_output_token_mean_ms") if isinstance(guidellm, dict) else None
    if isinstance(mean, int | float) and not isinstance(mean, bool):
        out.append(ttft_included_figure(float(mean), tpot))
    return out


def _from_intvty(point: StoredPoint, extra: Mapping[str, Any]) -> list[StatedFigure]:
    out = []
    for key, stat in INTVTY:
        theirs = extra.get(f"{key}_intvty")
        tpot = getattr(point, f"tpot_{stat}_ms", None)
        if isinstance(theirs, int | float) and not isinstance(theirs, bool) and tpot:
            out.append(interactivity_figure(key, float(theirs), tpot))
    return out


def _from_window(point: StoredPoint, extra: Mapping[str, Any]) -> list[StatedFigure]:
    window = extra.get("legacy_loadgen_window_s")
    duration = point.duration_s
    if not isinstance(window, int | float) or not window or not duration:
        return []
    out = []
    tokens = extra.get("output_tokens_total")
    if isinstance(tokens, int | float) and point.output_tok_s:
        out.append(window_figure("output throughput", point.output_tok_s, tokens, duration, window))
    if point.requests_per_s and point.num_requests:
        out.append(
            window_figure(
                "request throughput", point.requests_per_s, point.num_requests, duration, window
            )
        )
    return out
