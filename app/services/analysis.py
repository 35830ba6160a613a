"""One Explore/read-off computation: frontiers, SLO read-offs and costs for a set of sweeps.

Glue between queries (rows in) and the pure domain functions (numbers out); no web imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal

import polars as pl
from sqlalchemy.orm import Session

from app.domain.accounting import Accounting, Split, Units, per_total_gpu, unknown_units_reason
from app.domain.cost import tok_s_per_mw
from app.domain.covariates import Covariates
from app.domain.estimate import estimate_tok_s_per_gpu
from app.domain.failures import Failed, shown_failures
from app.domain.intervals import DEFAULT_LEVEL
from app.domain.metrics import Basis
from app.domain.pareto import Interpolation, pareto_frontier
from app.domain.point import METRICS, PointMetrics, Stat
from app.domain.readoff_intervals import (
    ReadoffIntervals,
    request_intervals_many,
    runs_intervals,
    shown_from_runs,
)
from app.domain.request_goodput import SAMPLE_SCHEMA, request_counts
from app.domain.sample_percentiles import sample_percentiles
from app.domain.sessions import DEFAULT_E2E_PERCENTILE, e2e_interactivity
from app.domain.slo import Readoff, Slo, percentile_readoff, request_readoff_from_counts
from app.domain.sweep_meta import SweepMeta
from app.domain.verdict import Columns, SamplePercentiles
from app.services.prices import Cost, Price, cost_at, prices_for
from app.services.sweeps import covariates as sweep_covariates
from app.services.sweeps import point_splits
from app.services.sweeps import sessions as session_figures
from app.services.sweeps.derived import needs_samples, point_metrics, sweep_load_order
from app.services.sweeps.memo import check_values, keep, recall, remember
from app.services.sweeps.sessions import SweepSessions
from app.services.sweeps.units import sweep_units
from app.store import points as point_queries
from app.store import pricing as pricing_queries
from app.store.catalog_cache import Catalog
from app.store.points import SweepPoints

Mode = Literal["percentile", "requests"]
# A read-off, its estimate and intervals: what is kept per sweep and SLO.
Figures = tuple[Readoff, float | None, ReadoffIntervals]


@dataclass(frozen=True)
class Params:
    slo: Slo
    mode: Mode = "percentile"
    basis: Basis = "output"
    stat: Stat = "p50"
    interpolation: Interpolation = "staircase"
    ci_level: float = DEFAULT_LEVEL  # the level of every interval, 0.5 … 0.999
    # What throughput is counted per (app.domain.accounting); costs stay per GPU-hour.
    accounting: Accounting = "gpu"
    # The x axis: per-token speed (1000 / TPOT at `stat`) or E2E-normalized interactivity,
    # 1000 / the `e2e_percentile` of E2EL ÷ OSL over successful requests (issue 49).
    interactivity: Literal["tpot", "e2e"] = "tpot"
    e2e_percentile: float = DEFAULT_E2E_PERCENTILE


@dataclass
class SweepAnalysis:
    meta: SweepMeta
    points: list[PointMetrics]  # the sweep's points in stored order, typed
    xs: list[float | None]  # interactivity, tok/s/user
    ys: list[float | None]  # tok/s per GPU on the basis
    frontier: list[int]  # indices into points, x ascending
    readoff: Readoff
    estimate_tok_s_per_gpu: float | None
    costs: list[Cost] = field(default_factory=list)
    allin_kw: float | None = None  # all-in power per GPU from the hardware catalog
    # Percentiles from request samples, by point id, where the files did not store one the SLO
    # asks for (percentile mode); empty when no sample was needed.
    sample_stats: dict[int, SamplePercentiles] = field(default_factory=dict)
    intervals: ReadoffIntervals | None = None  # the read-off's figures with their intervals
    # The sweep's request samples in per-request mode (the process-wide cached frame), so
    # what else the page draws from them does not read them again.
    samples: pl.DataFrame | None = None
    # Per-process memo of values derived from the sweep's points alone (points never change).
    derived: dict[Any, Any] = field(default_factory=dict, repr=False)
    # What ys and the read-off are counted per: every "tok_s_per_gpu" figure of this analysis
    # is per one of these units (per total GPU unless the accounting mode says otherwise).
    units: Units | None = None
    # Split, speculative decoding and prefix caching, point figures averaged (issue 37).
    covariates: Covariates | None = None
    # Each point's covariates (acceptance, prefix-cache hits, measured power), in point order.
    point_covariates: list[dict[str, float]] = field(default_factory=list, repr=False)
    # The prefill:decode split ("8P + 8D", "varies: …") and each point's where it changes.
    split: str | None = None
    point_splits: list[Split] = field(default_factory=list, repr=False)
    # Sessions, turns and agents at the SLO where the samples carry sessions (issue 49).
    sessions: SweepSessions | None = None

    @property
    def goodput_tok_s_per_total_gpu(self) -> float | None:
        """The read-off's goodput per total GPU whatever the accounting (costs and power)."""
        counted = point_splits.at_operating_point(self.units, self.points, self.readoff)
        return per_total_gpu(self.readoff.goodput_tok_s_per_gpu, self.meta.num_gpus, counted)

    @property
    def failed_requests(self) -> Failed | None:
        """Failed requests at the operating point (else where failures start): "3 of 10
        failed" beside the verdict wherever the file counts failures."""
        op = self.readoff.operating_point
        return shown_failures(self.points, None if op is None else op.point_id)

    @property
    def tok_s_per_mw(self) -> float | None:
        goodput = self.goodput_tok_s_per_total_gpu
        return None if self.allin_kw is None else tok_s_per_mw(goodput, self.allin_kw)

    @property
    def dominated(self) -> list[int]:
        on_front = set(self.frontier)
        return [i for i in range(len(self.points)) if i not in on_front and self.plotted(i)]

    def plotted(self, i: int) -> bool:
        x, y = self.xs[i], self.ys[i]
        return x is not None and y is not None and x > 0

    def excluded_reason(self, i: int, params: Params) -> str | None:
        if self.xs[i] is None and params.interactivity == "e2e":
            return "no successful request samples: no E2E-normalized interactivity"
        if self.xs[i] is None:
            return f"TPOT {params.stat} not measured"
        if self.units is not None and self.units.count is None:
            return unknown_units_reason(self.units)
        if self.ys[i] is None:
            return f"no {params.basis} throughput"
        return None


def analyse(
    sweeps: list[SweepPoints],
    params: Params,
    prices: list[Price],
    samples: Mapping[int, pl.DataFrame] | None = None,
    units_by_sweep: Mapping[int, Units] | None = None,
) -> list[SweepAnalysis]:
    """Frontier, read-off and costs of each sweep, in the order given; throughput per the
    sweep's `units_by_sweep` (per total GPU where not given).

    Per-request mode counts good requests of every point of every sweep in one polars pass
    (samples by sweep id), so the work grows with the samples, not with sweeps × samples.
    """
    by_sweep = samples or {}
    counted_in = units_by_sweep or {}
    sweeps = [point_splits.accounted(s, counted_in.get(s.meta.id), point_metrics) for s in sweeps]
    kept: dict[int, Figures | None] = {s.meta.id: None for s in sweeps}
    if params.mode == "requests":
        # Per-request figures are kept per sweep and SLO too: only sweeps without them count.
        kept = {s.meta.id: recall(s.derived, _readoff_key(s, params)) for s in sweeps}
        missing = [s for s in sweeps if kept[s.meta.id] is None]
        for sweep, found in zip(missing, _request_figures(missing, params, by_sweep), strict=True):
            kept[sweep.meta.id] = keep(sweep.derived, _readoff_key(sweep, params), found)
    results = [_one(s, params, prices, by_sweep.get(s.meta.id), kept[s.meta.id]) for s in sweeps]
    return _with_units(results, counted_in)


def _with_units(
    results: list[SweepAnalysis], counted_in: Mapping[int, Units]
) -> list[SweepAnalysis]:
    """Each result names its units, also where they equal its GPUs (an aggregated sweep per
    decode GPU), so its figures say what they are counted per."""
    for result in results:
        result.units = counted_in.get(result.meta.id, result.units)
    return results


def _request_figures(
    sweeps: list[SweepPoints], params: Params, samples: Mapping[int, pl.DataFrame]
) -> list[Figures]:
    """Per-request read-offs and their bootstrap intervals, each a polars pass for all sweeps."""
    if not sweeps:
        return []
    frames = [
        frame
        for s in sweeps
        if (frame := samples.get(s.meta.id)) is not None and not frame.is_empty()
    ]
    every = pl.concat(frames) if frames else pl.DataFrame(schema=SAMPLE_SCHEMA)
    counts = request_counts(every, params.slo.limits(), params.basis, params.ci_level)
    readoffs = []
    estimates = []
    for sweep in sweeps:
        points = point_metrics(sweep)
        xs, ys, frontier = _axes_of(sweep, points, params, samples.get(sweep.meta.id))
        readoff = request_readoff_from_counts(counts, points, params.slo, params.basis, params.stat)
        readoffs.append((readoff, points, samples.get(sweep.meta.id)))
        estimates.append(_estimate(readoff, points, params, frontier, xs, ys))
    intervals = request_intervals_many(
        readoffs, params.slo, params.basis, params.ci_level, every=every
    )
    return [
        (readoff, estimate_y, ivs)
        for (readoff, _, _), estimate_y, ivs in zip(readoffs, estimates, intervals, strict=True)
    ]


def _one(
    sweep: SweepPoints,
    params: Params,
    prices: list[Price],
    samples: pl.DataFrame | None = None,
    counted: Figures | None = None,
) -> SweepAnalysis:
    """One sweep's analysis; `counted` are its per-request figures (per-request mode)."""
    points = point_metrics(sweep)
    xs, ys, frontier = _axes_of(sweep, points, params, samples)
    stats: dict[int, SamplePercentiles] = {}
    if counted is not None:
        readoff, estimate_y, intervals = counted
    else:
        stats = _sample_stats(points, params.slo, samples)

        def figures() -> Figures:
            columns = None if stats else partial(check_values, sweep.derived, points)
            order = sweep_load_order(sweep, points)
            return _percentile_figures(points, params, stats, frontier, xs, ys, columns, order)

        # From the stored points alone the same SLO always reads the same: kept per sweep.
        readoff, estimate_y, intervals = (
            remember(sweep.derived, _readoff_key(sweep, params), figures)
            if not stats
            else figures()
        )
    analysis = SweepAnalysis(sweep.meta, points, xs, ys, frontier, readoff, estimate_y)
    analysis.derived = sweep.derived
    analysis.units = sweep.derived.get(point_splits.UNITS)
    analysis.point_covariates, analysis.covariates = sweep_covariates.of(sweep)
    analysis.split, analysis.point_splits = point_splits.labels(sweep)
    if analysis.units is not None and analysis.units.count is None and readoff.reason:
        # Unknown units leave every point without a throughput: say why, not "no GPU count".
        analysis.readoff = replace(readoff, reason=unknown_units_reason(analysis.units))
    analysis.sample_stats = stats
    analysis.samples = samples if counted is not None else None
    analysis.intervals = intervals
    why = analysis.readoff.reason if analysis.readoff.status == "unknown" else None
    at = (sweep.meta.hardware or "", analysis.goodput_tok_s_per_total_gpu, why)
    analysis.costs = [cost_at(price, *at) for price in prices]
    return analysis


def _axes_of(
    sweep: SweepPoints,
    points: list[PointMetrics],
    params: Params,
    samples: pl.DataFrame | None = None,
) -> tuple[list[float | None], list[float | None], list[int]]:
    if params.interactivity == "e2e":
        key: tuple[Any, ...] = ("e2e axes", sweep.meta.num_gpus, params.e2e_percentile)
        key += (params.basis,)
        if key not in sweep.derived:
            sweep.derived[key] = _e2e_axes(points, params, samples)
        e2e: tuple[list[float | None], list[float | None], list[int]] = sweep.derived[key]
        return e2e
    key = ("axes", sweep.meta.num_gpus, params.stat, params.basis)
    if key not in sweep.derived:
        sweep.derived[key] = _axes(points, params)
    axes: tuple[list[float | None], list[float | None], list[int]] = sweep.derived[key]
    return axes


def _percentile_figures(
    points: list[PointMetrics],
    params: Params,
    stats: dict[int, SamplePercentiles],
    frontier: list[int],
    xs: list[float | None],
    ys: list[float | None],
    columns: Columns | None = None,
    order: list[int] | None = None,
) -> Figures:
    readoff = percentile_readoff(
        points,
        params.slo,
        params.basis,
        params.stat,
        samples=stats,
        columns=columns,
        axes=(xs, ys),
        order=order,
    )
    estimate_y = _estimate(readoff, points, params, frontier, xs, ys)
    intervals = runs_intervals(readoff, points, params.basis, params.ci_level)
    return shown_from_runs(readoff, intervals), estimate_y, intervals


def _readoff_key(sweep: SweepPoints, params: Params) -> tuple[str, Any, Params]:
    return ("readoff", sweep.meta.num_gpus, params)


def _sample_stats(
    points: list[PointMetrics], slo: Slo, samples: pl.DataFrame | None
) -> dict[int, SamplePercentiles]:
    """Every metric's SLO percentile from the request samples of points that have them."""
    if samples is None or samples.is_empty():
        return {}
    ids = [p.point_id for p in points]
    mine = samples.filter(pl.col("point_id").is_in(ids))
    wanted = [(m, slo.stat(m)) for m in METRICS]
    return dict(sample_percentiles(mine, wanted))


def _axes(
    points: list[PointMetrics], params: Params
) -> tuple[list[float | None], list[float | None], list[int]]:
    xs = [p.interactivity_tok_s_user(params.stat) for p in points]
    ys = [p.tok_s_per_gpu(params.basis) for p in points]
    return xs, ys, pareto_frontier(xs, ys)


def _e2e_axes(
    points: list[PointMetrics], params: Params, samples: pl.DataFrame | None
) -> tuple[list[float | None], list[float | None], list[int]]:
    """x = E2E-normalized interactivity of each point's request samples (None without them)."""
    found = {} if samples is None else e2e_interactivity(samples, params.e2e_percentile)
    xs = [found[p.point_id].tok_s_user if p.point_id in found else None for p in points]
    ys = [p.tok_s_per_gpu(params.basis) for p in points]
    return xs, ys, pareto_frontier(xs, ys)


def _estimate(
    readoff: Readoff,
    points: list[PointMetrics],
    params: Params,
    frontier: list[int],
    xs: list[float | None],
    ys: list[float | None],
) -> float | None:
    estimate = readoff.estimate
    if estimate is None:
        return None
    by_id = {p.point_id: p for p in points}
    p0, p1 = by_id[estimate.between[0]], by_id[estimate.between[1]]
    if p0.num_gpus != p1.num_gpus:
        # Counted per decode or prefill GPU across two splits: a line between two points per
        # different GPUs is no one's throughput.
        return None
    y0, y1 = p0.tok_s_per_gpu(params.basis), p1.tok_s_per_gpu(params.basis)
    front_xs = [float(xs[i] or 0) for i in frontier]
    front_ys = [float(ys[i] or 0) for i in frontier]
    value = estimate_tok_s_per_gpu(estimate, params.interpolation, y0, y1, front_xs, front_ys)
    goodput = readoff.goodput_tok_s_per_gpu
    # An estimate is only worth showing where it says more than the measured goodput.
    return value if value is not None and goodput is not None and value > goodput else None


def run(
    session: Session,
    sweep_ids: list[int],
    params: Params,
    profile_ids: list[int],
    usd_per_gpu_hour: float | None,
    kept: Catalog | None = None,
) -> tuple[list[SweepAnalysis], list[Price]]:
    """Load the sweeps (and samples in per-request mode), then analyse them; prices and power
    from the `kept` catalog when the caller has read it (app.store.catalog_cache)."""
    sweeps = point_queries.sweeps_with_points(session, sweep_ids)
    samples = None
    if params.mode == "requests" or params.interactivity == "e2e":
        # E2E-normalized interactivity is read from every point's request samples.
        samples = point_queries.sweeps_samples(session, sweeps)
    else:
        # Percentile mode reads samples only for sweeps missing a percentile the SLO asks for.
        wanting = [s for s in sweeps if needs_samples(s, params.slo)]
        if wanting:
            samples = point_queries.sweeps_samples(session, wanting)
    prices = prices_for(session, profile_ids, usd_per_gpu_hour, kept)
    power = kept.allin_kw if kept else pricing_queries.allin_kw_by_hardware(session)
    counted_in = None
    if params.accounting != "gpu":
        rows = kept.hardware if kept else tuple(pricing_queries.hardware_catalog(session))
        counted_in = {
            s.meta.id: sweep_units(params.accounting, s.meta, rows, power) for s in sweeps
        }
    results = analyse(sweeps, params, prices, samples, counted_in)
    for result in results:
        result.allin_kw = power.get(result.meta.hardware.lower())
    session_figures.attach(session, results, sweeps, params, samples)
    return results, prices
