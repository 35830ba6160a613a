"""Scrapes of an engine's /metrics become windows, and each window an operating point.

Pure: standard library only. Between two scrapes, every counter and histogram bucket is read as
its increase; a value that went down is a counter reset, counted from zero after the reset the
way Prometheus's rate() and increase() count it (what was counted before the reset within the
window is lost, and the window says so). A histogram whose series reset is read as reset as a
whole, so its buckets stay cumulative.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from app.domain.numbers import fmt_number
from app.domain.prom_cache import CacheCounts, cache_counts, cache_names
from app.domain.prom_histogram import Histogram, Quantile, quantile
from app.domain.prom_increase import (
    Key,
    counter_increase,
    histogram_increase,
    shown,
)
from app.domain.prom_increase import (
    WindowError as WindowError,
)
from app.domain.prom_names import HISTOGRAMS, PER_TOKEN, EngineNames, Measure, engine_of
from app.domain.prom_text import Labels, Scrape

DEFAULT_WINDOW_S = 300.0
JITTER = 0.05  # a scrape this share of window_s early or late still ends the window
MAX_SCRAPES = 10_000
_REQUIRED: tuple[Measure, ...] = ("e2el", "output_tokens")  # requests and tokens counted


@dataclass(frozen=True)
class Refused:
    """A window that was not made, with its time range and the reason."""

    start_s: float
    end_s: float
    reason: str


@dataclass(frozen=True)
class WindowPoint:
    """What a deployment did between two scrapes."""

    start_s: float
    end_s: float
    requests: float  # finished in the window (the E2E latency histogram's count)
    output_tokens: float
    prompt_tokens: float | None
    num_gpus: int | None
    concurrency: float | None  # time-average of the running gauge over all readings in the window
    histograms: dict[Measure, Histogram]
    names: dict[Measure, str]  # the series each measure was read from
    notes: tuple[str, ...] = ()
    concurrency_reason: str | None = None
    # Counts from a live pull: increase() extrapolates them to the window's edges, so a share
    # read from them is an estimate, never exact.
    extrapolated: bool = False
    cache: CacheCounts | None = None  # the server's prefix-cache counters (issue 50)

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s

    @property
    def request_rate(self) -> float:
        return self.requests / self.duration_s

    @property
    def output_tok_s(self) -> float:
        return self.output_tokens / self.duration_s

    @property
    def total_tok_s(self) -> float | None:
        if self.prompt_tokens is None:
            return None
        return (self.output_tokens + self.prompt_tokens) / self.duration_s

    @property
    def output_tok_s_per_gpu(self) -> float | None:
        return None if not self.num_gpus else self.output_tok_s / self.num_gpus

    @property
    def total_tok_s_per_gpu(self) -> float | None:
        total = self.total_tok_s
        return None if not self.num_gpus or total is None else total / self.num_gpus

    def percentile(self, measure: Measure, q: float) -> Quantile:
        hist = self.histograms.get(measure)
        if hist is None:
            return Quantile(None, None, f"the engine exported no {measure.upper()} histogram")
        return quantile(hist, q)

    def mean(self, measure: Measure) -> tuple[float | None, str | None]:
        """The exact mean in ms (the histogram's _sum ÷ _count), or None with the reason."""
        hist = self.histograms.get(measure)
        if hist is None:
            return None, f"the engine exported no {measure.upper()} histogram"
        if hist.total <= 0:
            return None, "no observations in the window"
        if hist.mean_ms is None:
            return None, f"no {self.names.get(measure, measure)}_sum series: no exact mean"
        return hist.mean_ms, None

    def per_token(self, measure: Measure) -> bool:
        return self.names.get(measure) in PER_TOKEN


@dataclass
class Windows:
    engine: str
    points: list[WindowPoint] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    model: str | None = None  # the series' model_name label, when they carry one


def matches(labels: Labels, selector: Mapping[str, str]) -> bool:
    if not selector:
        return True
    have = dict(labels)
    return all(have.get(k) == v for k, v in selector.items())


def _table(scrape: Scrape, selector: Mapping[str, str], wanted: set[str]) -> dict[Key, float]:
    table = {
        (s.name, s.labels): s.value
        for s in scrape.samples
        if s.name in wanted and matches(s.labels, selector)
    }
    _refuse_nan(table)
    return table


def _refuse_nan(table: Mapping[Key, float]) -> None:
    """A series read for a window that holds NaN: nothing can be counted from it (other
    series, e.g. an unused summary's quantiles, may be NaN and are not read)."""
    for (name, labels), value in table.items():
        if math.isnan(value):
            raise WindowError(f"{name}{shown(labels)} is NaN: not a reading")


def resolve_names(engine: EngineNames, names: set[str]) -> dict[Measure, str]:
    found: dict[Measure, str] = {}
    for measure, candidates in engine.names.items():
        for name in candidates:
            if name in names or f"{name}_bucket" in names or f"{name}_count" in names:
                found[measure] = name
                break
    return found


def _series(names: Mapping[Measure, str]) -> set[str]:
    out: set[str] = set()
    for measure, name in names.items():
        if measure in HISTOGRAMS:
            out |= {f"{name}_bucket", f"{name}_count", f"{name}_sum"}
        else:
            out.add(name)
    return out


def _models(table: Mapping[Key, float], labels: Sequence[str]) -> set[str]:
    return {v for (_, ls) in table for k, v in ls if k in labels}


def windows(
    scrapes: Sequence[Scrape],
    *,
    num_gpus: int | None,
    window_s: float = DEFAULT_WINDOW_S,
    selector: Mapping[str, str] | None = None,
) -> Windows:
    """Windows of about `window_s` between scrapes (each ends at the scrape nearest `window_s`
    after its start within JITTER of it, else at the first one later; the last may be
    shorter); each becomes a WindowPoint or is refused with its reason. Raises WindowError when
    nothing can be read at all."""
    selector = dict(selector or {})
    if len(scrapes) < 2:
        raise WindowError("a window needs two scrapes or more (with their times)")
    if len(scrapes) > MAX_SCRAPES:
        raise WindowError(f"{len(scrapes):,} scrapes; at most {MAX_SCRAPES:,}")
    if not window_s > 0 or not math.isfinite(window_s):
        raise WindowError("the window must be a positive number of seconds")
    timed = _timed(scrapes)
    engine, resolved, names = _engine_names(timed, selector)
    cache = cache_names(engine.engine, names)
    wanted = _series(resolved) | set(cache or ())
    tables = [(t, _table(s, selector, wanted)) for t, s in timed]
    models = set().union(*(_models(tb, engine.model_labels) for _, tb in tables))
    if len(models) > 1:
        raise WindowError(
            f"mixed label sets: series of {len(models)} models ({', '.join(sorted(models)[:3])}); "
            "choose one with a selector, e.g. model_name=…"
        )
    out = Windows(engine=engine.engine, model=next(iter(models)) if models else None)
    start = 0
    while start < len(tables) - 1:
        end = window_end([t for t, _ in tables], start, window_s)
        made = _window(tables[start : end + 1], resolved, num_gpus, cache)
        if isinstance(made, WindowPoint):
            out.points.append(made)
        else:
            out.refused.append(made)
        start = end
    return out


def _timed(scrapes: Sequence[Scrape]) -> list[tuple[float, Scrape]]:
    """The scrapes by time; each must have one, and no two the same."""
    timed: list[tuple[float, Scrape]] = []
    for i, s in enumerate(scrapes, start=1):
        if s.scraped_at_s is None:
            raise WindowError(
                f"scrape {i} has no time: give it, or start the file with '# scraped_at <time>'"
            )
        timed.append((s.scraped_at_s, s))
    timed.sort(key=lambda t: t[0])
    for (t0, _), (t1, _) in zip(timed, timed[1:], strict=False):
        if t1 <= t0:
            raise WindowError(f"two scrapes at the same time ({fmt_number(t0)})")
    return timed


def _engine_names(
    timed: Sequence[tuple[float, Scrape]], selector: Mapping[str, str]
) -> tuple[EngineNames, dict[Measure, str], set[str]]:
    """The engine whose metric names the (selected) series carry, its names resolved, and
    every series name the selection holds (the prefix-cache counters are looked up in it)."""
    names = {s.name for _, sc in timed for s in sc.samples if matches(s.labels, selector)}
    engine = engine_of(names)
    if engine is None:
        raise WindowError(
            "no vLLM (vllm:…) or SGLang (sglang:…) serving metrics"
            + (" match the selector" if selector else "")
        )
    resolved = resolve_names(engine, names)
    for needed in _REQUIRED:
        if needed not in resolved:
            raise WindowError(f"the scrapes have no {engine.names[needed][0]} series")
    return engine, resolved, names


def window_end(times: Sequence[float], start: int, window_s: float) -> int:
    """The index of the scrape that ends the window starting at `times[start]`: the one nearest
    start + window_s when within JITTER·window_s of it (a scrape 1 s early does not stretch a
    300 s window to the next scrape), else the first one later, else the last."""
    t0, slack = times[start], JITTER * window_s
    later = range(start + 1, len(times))
    near = [j for j in later if abs(times[j] - t0 - window_s) <= slack]
    if near:
        return min(near, key=lambda j: abs(times[j] - t0 - window_s))
    return next((j for j in later if times[j] - t0 >= window_s), len(times) - 1)


def time_average(readings: Sequence[tuple[float, float]]) -> float:
    """The time-average of a gauge read at (time, value) pairs, the first and last included:
    the trapezoid between each pair of readings, so unevenly spaced scrapes weigh by the time
    they cover."""
    if len(readings) == 1:
        return readings[0][1]
    area = sum(
        (v0 + v1) / 2 * (t1 - t0)
        for (t0, v0), (t1, v1) in zip(readings, readings[1:], strict=False)
    )
    return area / (readings[-1][0] - readings[0][0])


def _window(
    tables: Sequence[tuple[float, dict[Key, float]]],
    names: Mapping[Measure, str],
    num_gpus: int | None,
    cache: tuple[str, str] | None = None,
) -> WindowPoint | Refused:
    (t0, a), (t1, b) = tables[0], tables[-1]
    notes: list[str] = []
    try:
        hists: dict[Measure, Histogram] = {}
        for measure in HISTOGRAMS:
            if measure in names:
                hists[measure], _ = histogram_increase(names[measure], a, b, notes)
        requests = hists["e2el"].total
        if requests <= 0:
            raise WindowError("no traffic: no request finished in the window")
        output = counter_increase(names["output_tokens"], a, b, notes)
        prompt = (
            counter_increase(names["prompt_tokens"], a, b, notes)
            if "prompt_tokens" in names
            else None
        )
    except WindowError as exc:
        return Refused(t0, t1, str(exc))
    concurrency, reason = None, None
    if "running" in names:
        gauge = names["running"]
        readings = [(t, sum(v for k, v in tb.items() if k[0] == gauge)) for t, tb in tables]
        concurrency = time_average(readings)
    else:
        reason = "the engine exported no running-requests gauge"
    if num_gpus is None:
        notes.append("GPU count unknown: no tok/s per GPU")
    return WindowPoint(
        start_s=t0,
        end_s=t1,
        requests=requests,
        output_tokens=output,
        prompt_tokens=prompt,
        num_gpus=num_gpus,
        concurrency=concurrency,
        concurrency_reason=reason,
        histograms=hists,
        names=dict(names),
        notes=tuple(notes),
        cache=cache_counts(cache, a, b),
    )
