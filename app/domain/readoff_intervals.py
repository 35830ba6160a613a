"""Intervals of a read-off's figures at its operating point: per-request mode by a seeded bootstrap
over the operating point's requests (Wilson for attainment), percentile mode from repeated runs.

Pure math: imports only the standard library and polars (no web, database or settings modules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import polars as pl

from app.domain.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_sums_many
from app.domain.failures import successful_requests_per_s
from app.domain.intervals import (
    ONE_RUN,
    Interval,
    log_t_interval,
    none,
    percentile_interval,
    wilson,
)
from app.domain.metrics import Basis
from app.domain.numbers import fmt_percent
from app.domain.point import PointMetrics
from app.domain.request_goodput import good_request_expr
from app.domain.run_agreement import unsettled
from app.domain.slo import Readoff, Slo

PERCENTILE_NO_RUNS = ONE_RUN  # percentile mode needs repeated runs at the operating load
PERCENTILE_ATTAINMENT = "percentile mode: attainment is not counted per request"


@dataclass(frozen=True)
class ReadoffIntervals:
    """The intervals of one sweep's read-off at `level` (each says why when it has none)."""

    level: float
    goodput_tok_s_per_gpu: Interval
    goodput_requests_per_s: Interval
    attainment: Interval
    borderline_reason: str | None = None  # set when the read-off is borderline
    # The attainment interval that straddles the target (the borderline point's, which need not
    # be the operating point's): what a borderline goodput shows instead of a "± 0".
    borderline_attainment: Interval | None = None
    # Percentile mode with repeated passing runs at the operating load: the goodput shown is
    # their geometric mean (the centre of its t-log interval, from the same runs), and the best
    # of them is kept here as a separate figure; `runs` counts them (0 otherwise).
    best_run_tok_s_per_gpu: float | None = None
    runs: int = 0

    @property
    def statistic(self) -> str | None:
        """What the goodput shown is, when it is not a single measured figure."""
        return f"geometric mean of {self.runs} runs" if self.runs > 1 else None


# Why a read-off is borderline, and the attainment interval that straddles the target (None
# when repeated runs at a load disagree: no interval makes that borderline, the runs do).
Borderline = tuple[str, Interval | None] | None


def no_intervals(
    readoff: Readoff, level: float, reason: str | None = None, borderline: Borderline = None
) -> ReadoffIntervals:
    why = reason or readoff.reason or "no goodput at this SLO"
    return ReadoffIntervals(
        level,
        none(readoff.goodput_tok_s_per_gpu, level, why),
        none(readoff.goodput_requests_per_s, level, why),
        none(None, level, why),
        *_unpacked(borderline),
    )


def _unpacked(borderline: Borderline) -> tuple[str | None, Interval | None]:
    return (None, None) if borderline is None else borderline


def borderline_of(readoff: Readoff, target: float, level: float) -> Borderline:
    """Why a read-off is borderline, and the attainment interval that straddles the target (the
    operating point's when it is borderline, else the first borderline point's)."""
    if readoff.shown_status != "borderline":
        return None
    by_runs = unsettled(readoff.verdicts) if readoff.status != "pass" else None
    if by_runs is not None and by_runs.runs is not None:
        reason = no_pass_reason_runs(readoff)
        return reason, None
    op = readoff.operating_verdict
    verdict = op if op is not None and op.borderline else None
    if verdict is None:
        verdict = next((v for v in readoff.verdicts if v.borderline), None)
    if verdict is None or verdict.attainment_ci is None or verdict.requests is None:
        return None
    low, high = verdict.attainment_ci
    stats = verdict.requests
    reason = (
        f"attainment {_pct(stats.attainment)} ({stats.good} of {stats.issued} requests good): "
        f"its {_pct(level)} interval {_pct(low)}–{_pct(high)} straddles the {_pct(target)} target"
    )
    return reason, Interval(stats.attainment, low, high, level, "wilson", n=stats.issued)


def no_pass_reason_runs(readoff: Readoff) -> str:
    """A read-off made borderline by disagreeing runs: its reason's part that says so (the
    read-off's reason starts with it, see readoff_reasons.no_pass_reason)."""
    reason = readoff.reason or ""
    return next((part for part in reason.split("; ") if " runs " in part), reason)


def _pct(share: float) -> str:
    return fmt_percent(share)


def request_intervals(
    readoff: Readoff,
    points: Sequence[PointMetrics],
    samples: pl.DataFrame | None,
    slo: Slo,
    basis: Basis,
    level: float,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> ReadoffIntervals:
    """Per-request mode: Wilson for the operating point's attainment; goodput (tokens and
    requests per second) by the percentile bootstrap over its requests, issued count fixed.

    Each resample draws the point's n issued requests with replacement and recomputes
    good tokens ÷ duration ÷ GPUs and good ÷ duration; the seed makes it reproducible.
    """
    [intervals] = request_intervals_many(
        [(readoff, points, samples)], slo, basis, level, resamples, seed
    )
    return intervals


def request_intervals_many(
    sweeps: Sequence[tuple[Readoff, Sequence[PointMetrics], pl.DataFrame | None]],
    slo: Slo,
    basis: Basis,
    level: float,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    every: pl.DataFrame | None = None,
) -> list[ReadoffIntervals]:
    """`request_intervals` of many sweeps (read-off, points, request samples), the operating
    points' requests picked out and judged in one polars pass rather than a few per sweep;
    `every` is all their samples in one frame, when the caller has stacked them already."""
    out: list[ReadoffIntervals | None] = [None] * len(sweeps)
    todo: list[tuple[int, PointMetrics, Interval, Borderline]] = []
    for i, (readoff, points, samples) in enumerate(sweeps):
        op = readoff.operating_point
        verdict = readoff.operating_verdict
        borderline = borderline_of(readoff, slo.attainment, level)
        if op is None or verdict is None or verdict.requests is None:
            out[i] = no_intervals(readoff, level, borderline=borderline)
            continue
        point = next(p for p in points if p.point_id == op.point_id)
        stats = verdict.requests
        attainment = wilson(stats.good, stats.issued, level)
        duration = point.duration_s or 0.0
        if samples is None or samples.is_empty() or not duration > 0 or point.num_gpus <= 0:
            why = "no request samples at the operating point"
            out[i] = no_intervals(readoff, level, why, borderline)
            continue
        todo.append((i, point, attainment, borderline))
    wanted = [(i, p.point_id) for i, p, _, _ in todo]
    frames = _operating_requests(sweeps, wanted, slo, basis, every)
    requests = [frames.get(point.point_id, _NO_REQUESTS) for _, point, _, _ in todo]
    all_sums = bootstrap_sums_many(requests, resamples, seed)
    for (i, point, attainment, borderline), frame, sums in zip(
        todo, requests, all_sums, strict=True
    ):
        readoff = sweeps[i][0]
        duration = point.duration_s or 0.0  # > 0: checked above
        tok_scale = 1.0 / duration / point.num_gpus
        # Float64 columns: the same products and quotients as float(t) * scale, in one call.
        tok_reps = sums["tokens"].cast(pl.Float64) * tok_scale
        req_reps = sums["good"].cast(pl.Float64) / duration
        n = frame.height
        out[i] = ReadoffIntervals(
            level,
            percentile_interval(readoff.goodput_tok_s_per_gpu, tok_reps, level, n),
            percentile_interval(readoff.goodput_requests_per_s, req_reps, level, n),
            attainment,
            *_unpacked(borderline),
        )
    return [intervals for intervals in out if intervals is not None]


_NO_REQUESTS = pl.DataFrame(schema={"good": pl.Float64, "tokens": pl.Float64})


def _operating_requests(
    sweeps: Sequence[tuple[Readoff, Sequence[PointMetrics], pl.DataFrame | None]],
    wanted: list[tuple[int, int]],
    slo: Slo,
    basis: Basis,
    every: pl.DataFrame | None = None,
) -> dict[int, pl.DataFrame]:
    """Per operating point id: its requests in stored order as (good, tokens if good else 0)."""
    if not wanted:
        return {}
    ids = [point_id for _, point_id in wanted]
    if every is None:
        # Each frame once, even if several sweeps were given the same one.
        frames = {id(f): f for i, _ in wanted if (f := sweeps[i][2]) is not None}
        every = pl.concat(list(frames.values()))
    every = every.filter(pl.col("point_id").is_in(ids))
    good = good_request_expr(slo.limits())
    out_len = pl.col("output_len").fill_null(0).cast(pl.Float64)
    in_len = pl.col("input_len").fill_null(0).cast(pl.Float64)
    tokens = {"output": out_len, "total": out_len + in_len, "input": in_len}[basis]
    picked = every.select(
        "point_id",
        good=good.cast(pl.Float64),
        tokens=pl.when(good).then(tokens).otherwise(0.0),
    )
    parts = picked.partition_by("point_id", as_dict=True, include_key=False, maintain_order=True)
    return {int(key[0]): part for key, part in parts.items()}


def runs_intervals(
    readoff: Readoff, points: Sequence[PointMetrics], basis: Basis, level: float
) -> ReadoffIntervals:
    """Percentile mode: a t interval on the log scale (`log_t_interval`, positive ends) over the
    repeated runs at the operating point's load that meet the SLO (their tok/s per GPU and
    req/s); one run: no interval, said plainly."""
    op = readoff.operating_point
    if op is None:
        return no_intervals(readoff, level, borderline=borderline_of(readoff, 1.0, level))
    point = next(p for p in points if p.point_id == op.point_id)
    load = point.load()
    passing = {v.point_id for v in readoff.verdicts if v.status == "pass"}
    runs = [p for p in points if load is not None and p.load() == load]
    good = [p for p in runs if p.point_id in passing]
    attainment = none(None, level, PERCENTILE_ATTAINMENT)
    if len(runs) < 2:
        return ReadoffIntervals(
            level,
            none(readoff.goodput_tok_s_per_gpu, level, PERCENTILE_NO_RUNS, 1),
            none(readoff.goodput_requests_per_s, level, PERCENTILE_NO_RUNS, 1),
            attainment,
        )
    if len(good) < 2:
        why = f"1 of {len(runs)} runs at this load meets the SLO: no interval"
        return ReadoffIntervals(
            level,
            none(readoff.goodput_tok_s_per_gpu, level, why, 1),
            none(readoff.goodput_requests_per_s, level, why, 1),
            attainment,
        )
    tok = [y for p in good if (y := p.tok_s_per_gpu(basis)) is not None]
    req = [r for p in good if (r := successful_requests_per_s(p)) is not None]
    # The value shown and its interval come from the same runs: their geometric mean.
    return ReadoffIntervals(
        level,
        log_t_interval(tok, level),
        log_t_interval(req, level)
        if len(req) == len(tok)
        else none(None, level, "request throughput not recorded for every run"),
        attainment,
        best_run_tok_s_per_gpu=readoff.goodput_tok_s_per_gpu,
        runs=len(tok),
    )


def shown_from_runs(readoff: Readoff, intervals: ReadoffIntervals) -> Readoff:
    """The read-off with its goodput (tokens and requests) as the runs' statistic, when the
    intervals come from repeated runs; unchanged otherwise."""
    if intervals.runs < 2:
        return readoff
    return replace(
        readoff,
        goodput_tok_s_per_gpu=intervals.goodput_tok_s_per_gpu.value,
        goodput_requests_per_s=intervals.goodput_requests_per_s.value,
    )


def load_runs_interval(
    points: Sequence[PointMetrics],
    point: PointMetrics,
    basis: Basis,
    level: float,
    value: float | None = None,
) -> Interval:
    """t interval on the log scale of tok/s per GPU over every run at `point`'s load (a
    frontier read-off)."""
    load = point.load()
    runs = [p for p in points if load is not None and p.load() == load]
    ys = [y for p in runs if (y := p.tok_s_per_gpu(basis)) is not None]
    return log_t_interval(ys, level, value if value is not None else point.tok_s_per_gpu(basis))
