"""TTFT against prompt length (issue 50): one TTFT percentile per load hides that TTFT grows
with the prompt. From a point's request samples: TTFT by input-length bucket, and a least-squares
line TTFT = intercept + input tokens ÷ prefill rate, whose slope gives the prefill rate
(`prefill_tok_s`, with a t interval) and the prompt length at which the fitted TTFT reaches a
limit.

Pure math: imports only the standard library and app.domain.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.intervals import DEFAULT_LEVEL, check_level, t_quantile

# Bucket edges in input tokens: powers of two from 256 to 128k (the last bucket is open).
BUCKET_EDGES: tuple[int, ...] = tuple(2**k for k in range(8, 18))
MIN_REQUESTS = 3  # a line and its residual need at least three requests


@dataclass(frozen=True)
class PrefillFit:
    """TTFT_ms = intercept_ms + ms_per_token × input tokens, over `n` requests."""

    n: int
    intercept_ms: float
    ms_per_token: float
    slope_low: float | None  # the slope's interval at `level` (None with n = 3 exact fits too)
    slope_high: float | None
    level: float

    @property
    def prefill_tok_s(self) -> float | None:
        """Prompt tokens per second the slope implies, 1000 ÷ ms per token; None unless > 0."""
        return 1000.0 / self.ms_per_token if self.ms_per_token > 0 else None

    @property
    def prefill_interval(self) -> tuple[float | None, float | None]:
        """The prefill rate's interval: 1000 ÷ the slope's ends (an end ≤ 0 is unbounded: None)."""
        if self.slope_low is None or self.slope_high is None:
            return None, None
        low = 1000.0 / self.slope_high if self.slope_high > 0 else None
        high = 1000.0 / self.slope_low if self.slope_low > 0 else None
        return low, high

    def crossing_tokens(self, limit_ms: float) -> float | None:
        """The prompt length at which the fitted TTFT reaches `limit_ms`; None when TTFT does
        not grow with the prompt, or when it is above the limit already at zero tokens."""
        if not self.ms_per_token > 0 or limit_ms < self.intercept_ms:
            return None
        return (limit_ms - self.intercept_ms) / self.ms_per_token


def fit_prefill(
    input_tokens: Sequence[float], ttft_ms: Sequence[float], level: float = DEFAULT_LEVEL
) -> PrefillFit | str:
    """Ordinary least squares of TTFT on input tokens; the slope's interval from its standard
    error and Student's t with n − 2 degrees of freedom. The reason when there is no fit."""
    check_level(level)
    xs, ys = _finite_pairs(input_tokens, ttft_ms)
    n = len(xs)
    if n < MIN_REQUESTS:
        return f"{n} requests with an input length and a TTFT; a fit needs {MIN_REQUESTS}"
    mean_x = math.fsum(xs) / n
    mean_y = math.fsum(ys) / n
    dx = [x - mean_x for x in xs]
    sxx = math.fsum([d * d for d in dx])
    if not sxx > 0:
        return "every request has the same input length: TTFT cannot be read against it"
    sxy = math.fsum([d * (y - mean_y) for d, y in zip(dx, ys, strict=True)])
    slope = sxy / sxx
    intercept = mean_y - slope * mean_x
    residual = math.fsum([(y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True)])
    se = math.sqrt(residual / (n - 2) / sxx)
    half = t_quantile((1 + level) / 2, n - 2) * se
    return PrefillFit(n, intercept, slope, slope - half, slope + half, level)


def _finite_pairs(
    input_tokens: Sequence[float], ttft_ms: Sequence[float]
) -> tuple[list[float], list[float]]:
    """The pairs where both are finite, as two lists of floats (one pass where all are: a
    sum of finite floats is finite unless it overflows, which only the slow path can tell)."""
    xs = [float(x) for x in input_tokens]
    ys = [float(y) for y in ttft_ms]
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} input lengths but {len(ys)} TTFTs")
    try:
        if math.isfinite(math.fsum(xs)) and math.isfinite(math.fsum(ys)):
            return xs, ys
    except (ValueError, OverflowError):  # inf and -inf among them
        pass
    kept = [(x, y) for x, y in zip(xs, ys, strict=True) if math.isfinite(x) and math.isfinite(y)]
    return [x for x, _ in kept], [y for _, y in kept]


@dataclass(frozen=True)
class Bucket:
    """Requests whose input length is in [low, high) (high None: no upper edge)."""

    low: int
    high: int | None
    n: int
    median_ttft_ms: float
    max_ttft_ms: float


def buckets(input_tokens: Sequence[float], ttft_ms: Sequence[float]) -> list[Bucket]:
    """TTFT by input-length bucket (BUCKET_EDGES), the buckets that hold requests, in order."""
    edges = (0, *BUCKET_EDGES)
    found: dict[int, list[float]] = {}
    for x, y in zip(*_finite_pairs(input_tokens, ttft_ms), strict=True):
        at = bisect_right(edges, x) - 1  # the last edge ≤ x
        if at >= 0:  # a negative length is in no bucket
            found.setdefault(at, []).append(y)
    out = []
    for at in sorted(found):
        values = sorted(found[at])
        high = edges[at + 1] if at + 1 < len(edges) else None
        out.append(Bucket(edges[at], high, len(values), _median(values), values[-1]))
    return out


def _median(values: list[float]) -> float:
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
