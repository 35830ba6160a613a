"""Confidence intervals: Wilson for an attainment, a seeded bootstrap over requests, a t interval
over repeated runs, the interval of a ratio and how many more requests or runs would separate two
values.

Pure math: imports only the standard library and polars (no web, database or settings modules).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from statistics import NormalDist
from typing import Literal

import polars as pl

Method = Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"]

DEFAULT_LEVEL = 0.95
MIN_LEVEL, MAX_LEVEL = 0.5, 0.999
POWER = 0.8  # the power estimate's chance of separating the two values
ONE_RUN = "one run: no interval"


@dataclass(frozen=True)
class Interval:
    """A figure and its interval at `level`; low/high None (with `reason`) when there is none.

    `n` counts what the interval rests on (`unit`: requests or runs), for the power estimate;
    `replicates` are the bootstrap's resampled values (a ratio of two bootstraps pairs them),
    kept as a polars Series: a read-off makes two per sweep and rarely reads one.
    """

    value: float | None
    low: float | None
    high: float | None
    level: float
    method: Method | None
    reason: str | None = None
    n: int | None = None
    unit: str = "requests"
    replicates: pl.Series | None = field(default=None, repr=False, compare=False)

    @property
    def known(self) -> bool:
        return self.low is not None and self.high is not None

    def contains(self, x: float) -> bool:
        return self.low is not None and self.high is not None and self.low <= x <= self.high

    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2


def none(value: float | None, level: float, reason: str, n: int | None = None) -> Interval:
    """No interval, with the reason in words."""
    return Interval(value, None, None, level, None, reason, n)


def check_level(level: float) -> float:
    """The interval level, a share in [0.5, 0.999]; ValueError otherwise."""
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise ValueError(f"interval level must be in [{MIN_LEVEL}, {MAX_LEVEL}], got {level}")
    return level


@lru_cache(maxsize=64)
def z_value(level: float) -> float:
    """Two-sided normal quantile: 1.959964 at 0.95."""
    return NormalDist().inv_cdf((1 + check_level(level)) / 2)


def wilson(good: int, n: int, level: float = DEFAULT_LEVEL) -> Interval:
    """Wilson score interval of good ÷ n:
    (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) ÷ (1 + z²/n)."""
    if n <= 0:
        return none(None, level, "no requests", 0)
    if not 0 <= good <= n:
        raise ValueError(f"good must be in [0, {n}], got {good}")
    low, high = wilson_bounds(good, n, level)
    return Interval(good / n, low, high, level, "wilson", None, n)


def wilson_bounds(good: int, n: int, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """The ends of `wilson` (n > 0, 0 ≤ good ≤ n), without the Interval: a read-off asks this
    for every point of every sweep."""
    z = z_value(level)
    p = good / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # Exact at p̂ = 0 or 1, where rounding would leave an end a hair off 0 or 1.
    low = 0.0 if good == 0 else max(0.0, centre - half)
    high = 1.0 if good == n else min(1.0, centre + half)
    return low, high


def wilson_bounds_expr(
    good: pl.Expr, n: pl.Expr, level: float = DEFAULT_LEVEL
) -> tuple[pl.Expr, pl.Expr]:
    """`wilson_bounds` of integer columns (n > 0), operation for operation, so each end is the
    very float the scalar version gives (tested on every good ≤ n ≤ 400)."""
    z = z_value(level)
    z2 = z * z
    n_f = n.cast(pl.Float64)  # as Python turns an int into a float, exactly (n < 2**53)
    p = good.cast(pl.Float64) / n_f
    denom = 1 + z2 / n_f
    centre = (p + z2 / (2 * n_f)) / denom
    half = z * (p * (1 - p) / n_f + z2 / (4 * n_f * n_f)).sqrt() / denom
    low = pl.when(good == 0).then(0.0).otherwise(pl.max_horizontal(pl.lit(0.0), centre - half))
    high = pl.when(good == n).then(1.0).otherwise(pl.min_horizontal(pl.lit(1.0), centre + half))
    return low, high


def percentile_interval(
    value: float | None,
    replicates: Sequence[float] | pl.Series,
    level: float,
    n: int,
    unit: str = "requests",
) -> Interval:
    """The bootstrap percentile interval: the (1−level)/2 and (1+level)/2 quantiles."""
    check_level(level)
    if len(replicates) == 0:
        return none(value, level, "no requests", n)
    s = (
        replicates.cast(pl.Float64)
        if isinstance(replicates, pl.Series)
        else pl.Series(replicates, dtype=pl.Float64)
    )
    low = s.quantile((1 - level) / 2, "linear")
    high = s.quantile((1 + level) / 2, "linear")
    return Interval(
        value,
        None if low is None else float(low),
        None if high is None else float(high),
        level,
        "bootstrap",
        None,
        n,
        unit,
        s,
    )


def log_t_interval(
    values: Sequence[float], level: float = DEFAULT_LEVEL, value: float | None = None
) -> Interval:
    """Student t interval on the log scale (method "t-log"): exp(m ± t(1+level)/2, n−1 · s/√n),
    m and s the mean and standard deviation of ln x over the runs: the interval of the runs'
    geometric mean.

    For a quantity that is positive by nature (tok/s, req/s): both ends stay positive, where
    the plain t interval over two very different runs falls below zero. `value` is the figure
    shown beside it (default the geometric mean). One run: no interval; a run at or below 0:
    no interval, with that reason.
    """
    n = len(values)
    positive = n > 0 and all(v > 0 for v in values)
    logs = [math.log(v) for v in values] if positive else []
    shown = value if value is not None else (math.exp(sum(logs) / n) if logs else None)
    if n == 0:
        return none(shown, level, "no runs", 0)
    if n == 1:
        return Interval(shown, None, None, level, None, ONE_RUN, 1, "runs")
    if not positive:
        reason = f"a run is at {min(values):g}: no interval on the log scale, which needs all > 0"
        return Interval(shown, None, None, level, None, reason, n, "runs")
    mean = sum(logs) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in logs) / (n - 1))
    half = t_quantile((1 + check_level(level)) / 2, n - 1) * sd / math.sqrt(n)
    return Interval(
        shown, math.exp(mean - half), math.exp(mean + half), level, "t-log", None, n, "runs"
    )


def reciprocal(interval: Interval, numerator: float) -> Interval:
    """The interval of numerator ÷ the figure (numerator > 0), e.g. $/Mtok from goodput.

    A decreasing map, so the ends swap; a low end of 0 makes the high end unbounded (None)."""

    def inv(x: float | None) -> float | None:
        return None if x is None or not x > 0 else numerator / x

    if not interval.known:
        return replace(
            interval, value=inv(interval.value), low=None, high=None, method=None, replicates=None
        )
    reps = interval.replicates
    return replace(
        interval,
        value=inv(interval.value),
        low=inv(interval.high),
        high=inv(interval.low),
        reason=None if inv(interval.low) is not None else "the interval reaches 0: no upper end",
        replicates=None
        if reps is None
        else reps.to_frame("r")
        .select(pl.when(pl.col("r") > 0).then(numerator / pl.col("r")).otherwise(math.inf))
        .to_series(),
    )


def _log_se(interval: Interval) -> float | None:
    """Standard error of ln(figure) implied by a two-sided interval: (ln high − ln low) / 2z."""
    low, high = interval.low, interval.high
    if low is None or high is None or not low > 0 or not high > 0:
        return None
    return (math.log(high) - math.log(low)) / (2 * z_value(interval.level))


def _power_se(interval: Interval) -> float | None:
    """The standard error of ln(figure) the power estimate scales: `_log_se`, but a t interval
    over n runs is t(1+level)/2, n−1 standard errors wide, not z (with 3 runs, 2.2 times z):
    read as z it asks for about 5 times the runs that reach the power (bench/calibration.py)."""
    se = _log_se(interval)
    n = interval.n or 0
    if se is None or interval.method not in ("t", "t-log") or n < 2:
        return se
    return se * z_value(interval.level) / t_quantile((1 + interval.level) / 2, n - 1)


def _no_log_se(interval: Interval) -> str:
    """Why an interval gives no standard error on the log scale (it has no reason of its own)."""
    if interval.known:
        return "an interval end is at or below 0: no ratio interval on the log scale"
    return "no interval"


def ratio_interval(a: Interval, b: Interval) -> Interval:
    """Interval of A ÷ B for independent A and B, at A's level.

    Two bootstraps: the percentile interval of the ratios of paired resamples. Otherwise the
    normal approximation on the log scale: ln(a/b) ± z·√(se_a² + se_b²), each se from its interval.
    """
    level = a.level
    if a.value is None or b.value is None or not b.value > 0:
        return none(None, level, "no ratio: a figure is missing")
    value = a.value / b.value
    ra, rb = a.replicates, b.replicates
    if ra is not None and rb is not None and len(ra) == len(rb) and (rb > 0).all():
        iv = percentile_interval(value, ra / rb, level, min(a.n or 0, b.n or 0))
        return Interval(value, iv.low, iv.high, level, "ratio-bootstrap", None, iv.n)
    sa, sb = _log_se(a), _log_se(b)
    if sa is None or sb is None or not value > 0:
        missing = a if sa is None else b
        return none(value, level, missing.reason or _no_log_se(missing))
    half = z_value(level) * math.sqrt(sa * sa + sb * sb)
    log_ratio = math.log(value)
    return Interval(
        value, math.exp(log_ratio - half), math.exp(log_ratio + half), level, "ratio-log-normal"
    )


@dataclass(frozen=True)
class Separation:
    """How many more requests (or runs) each side needs for the two values to separate.

    None when the values are equal (no amount of data separates them) or an interval is missing.
    """

    more_a: int | None
    more_b: int | None
    unit_a: str
    unit_b: str
    power: float = POWER


def separation(a: Interval, b: Interval, power: float = POWER) -> Separation:
    """Two-sample power estimate on the log scale, each side's standard error ∝ 1/√n:

    n' = n · ((z(1+level)/2 + z_power) · √(se_a² + se_b²) / |ln(a/b)|)², more = ⌈n'⌉ − n per side;
    a t interval's standard error is its half-width ÷ its t quantile (`_power_se`).
    """
    sa, sb = _power_se(a), _power_se(b)
    none_ = Separation(None, None, a.unit, b.unit, power)
    if sa is None or sb is None or not a.n or not b.n or not a.value or not b.value:
        return none_
    if not a.value > 0 or not b.value > 0:
        return none_
    diff = abs(math.log(a.value / b.value))
    if diff == 0:
        return none_
    z_power = NormalDist().inv_cdf(power)
    factor = ((z_value(a.level) + z_power) * math.sqrt(sa * sa + sb * sb) / diff) ** 2
    if a.unit == "runs" or b.unit == "runs":
        # Runs are few: the interval they will give is t wide, with n' − 1 degrees of freedom,
        # so n' is where t(1+level)/2, n'−1 + z_power standard errors span the difference.
        base = (math.sqrt(sa * sa + sb * sb) / diff) ** 2
        for _ in range(20):
            runs = max(2, math.ceil(factor * min(a.n, b.n)))
            wider = (t_quantile((1 + a.level) / 2, runs - 1) + z_power) ** 2 * base
            if wider == factor:
                break
            factor = wider
    more_a = max(0, math.ceil(factor * a.n) - a.n)
    more_b = max(0, math.ceil(factor * b.n) - b.n)
    return Separation(more_a, more_b, a.unit, b.unit, power)


@lru_cache(maxsize=512)
def t_quantile(p: float, df: int) -> float:
    """Inverse CDF of Student's t with df degrees of freedom (bisection on the exact CDF);
    kept, as a band asks the same few quantiles at every grid point."""
    if not 0 < p < 1 or df < 1:
        raise ValueError("t_quantile needs 0 < p < 1 and df ≥ 1")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def t_cdf(t: float, df: int) -> float:
    """Student t CDF: 1 − ½·I_{df/(df+t²)}(df/2, ½) for t ≥ 0, symmetric below."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2, 0.5, x)
    return 1 - tail if t >= 0 else tail


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) by its continued fraction (Lentz's method)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _betainc(b, a, 1 - x)
    tiny = 1e-300
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1.0 + num * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        f *= c * d
        if abs(1.0 - c * d) < 1e-15:
            break
    return math.exp(log_front) * (f - 1.0) / a
