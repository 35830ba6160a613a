"""Token classes: uncached input, cached (prefix-hit) input and output (issue 50).

A server that serves a prompt's prefix from its cache still counts those tokens as input:
input = uncached + cached, and an API bills each class at its own price, each token once
(never the cached tokens at the input price and again at the cached price). From a point's
measured mix this gives the revenue per GPU-hour at API prices, the blended $/Mtok of the mix
(and its tokens per $1, InferenceX-app#943's "Total Tokens per $1"), and the break-even price of
each class: the given prices scaled until the revenue pays for the GPU-hour.

Pure math: imports only the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from app.domain.cost import SECONDS_PER_HOUR, TOKENS_PER_MTOK
from app.domain.covariates import (
    CACHED_INPUT_TOKENS,
    CLIENT_CACHE_HIT_RATE,
    PREFIX_CACHE_HIT_RATE,
    THEORETICAL_CACHE_HIT_RATE,
)

# Where a cached share comes from: measured by the server (its prefix-cache counters),
# reported by the client (each response's usage), or theoretical (the workload's shared
# prefixes, never measured); `unknown` where the file reports none (never shown as 0).
CachedSource = Literal["measured", "client", "theoretical"]
UNKNOWN_SOURCE: Final = "unknown"
SOURCE_WORDS: dict[str, str] = {
    "measured": "measured by the server (its prefix-cache counters)",
    "client": "reported by the client (per-request usage)",
    "theoretical": "theoretical (the workload's shared prefixes, not measured)",
}
CLASSES: tuple[str, ...] = ("uncached_input", "cached_input", "output")
CLASS_LABELS: dict[str, str] = {
    "uncached_input": "uncached input",
    "cached_input": "cached input",
    "output": "output",
}
SPLIT_RULE = (
    "GPU-hours split across classes in proportion to their revenue at the given API prices: "
    "each break-even price keeps the given prices' ratios"
)
_MTOK_PER_HOUR = SECONDS_PER_HOUR / TOKENS_PER_MTOK  # tok/s → Mtok per hour


@dataclass(frozen=True)
class CachedShare:
    """Cached share of a point's input tokens, in [0, 1], and where it comes from."""

    share: float
    source: CachedSource
    how: str  # what it was computed from, in words

    @property
    def source_words(self) -> str:
        return SOURCE_WORDS[self.source]


def share_of_counts(cached: float, input_tokens: float, how: str) -> CachedShare | None:
    """cached ÷ input tokens reported by the client; None without input tokens or when the
    counts are impossible (more cached than input)."""
    if not input_tokens > 0 or cached < 0 or cached > input_tokens:
        return None
    return CachedShare(cached / input_tokens, "client", how)


def point_share(
    covariates: Mapping[str, float], input_len: float | None, sample_counts: tuple[int, int] | None
) -> CachedShare | None:
    """A point's cached share: the file's own per-point figures reported by the client (its
    Σ cached ÷ Σ prompt tokens, else its mean cached tokens ÷ input_len: a stored figure beats
    one derived from samples), else its requests' counts (Σ cached, Σ input of the requests
    that report both), else the server's prefix-cache hit rate, else a theoretical rate."""
    rate = covariates.get(CLIENT_CACHE_HIT_RATE)
    if rate is not None and 0 <= rate <= 1:
        return CachedShare(rate, "client", CLIENT_CACHE_HIT_RATE)
    mean = covariates.get(CACHED_INPUT_TOKENS)
    if mean is not None and input_len is not None:
        found = share_of_counts(mean, input_len, "the point's cached_input_tokens ÷ input_len")
        if found is not None:
            return found
    if sample_counts is not None:
        cached, total = sample_counts
        found = share_of_counts(cached, total, "Σ cached_input_tokens ÷ Σ input_len of requests")
        if found is not None:
            return found
    rates: tuple[tuple[str, CachedSource], ...] = (
        (PREFIX_CACHE_HIT_RATE, "measured"),
        (THEORETICAL_CACHE_HIT_RATE, "theoretical"),
    )
    for key, source in rates:
        rate = covariates.get(key)
        if rate is not None and 0 <= rate <= 1:
            return CachedShare(rate, source, key)
    return None


@dataclass(frozen=True)
class TokenMix:
    """Tokens per second (per GPU, or per deployment) by class at one point."""

    uncached_input_tok_s: float
    cached_input_tok_s: float
    output_tok_s: float

    @property
    def input_tok_s(self) -> float:
        return self.uncached_input_tok_s + self.cached_input_tok_s

    @property
    def total_tok_s(self) -> float:
        return self.input_tok_s + self.output_tok_s

    def by_class(self) -> dict[str, float]:
        return {
            "uncached_input": self.uncached_input_tok_s,
            "cached_input": self.cached_input_tok_s,
            "output": self.output_tok_s,
        }


def token_mix(input_tok_s: float, output_tok_s: float, cached_share: float) -> TokenMix:
    """Split input into cached (input × share) and uncached (the rest, so that they add up)."""
    if input_tok_s < 0 or output_tok_s < 0 or not 0 <= cached_share <= 1:
        raise ValueError("throughputs must be ≥ 0 and the cached share in [0, 1]")
    cached = input_tok_s * cached_share
    return TokenMix(input_tok_s - cached, cached, output_tok_s)


@dataclass(frozen=True)
class ClassPrices:
    """API prices in $/Mtok by class; None where not given."""

    usd_per_mtok_input: float | None = None  # uncached input
    usd_per_mtok_cached_input: float | None = None
    usd_per_mtok_output: float | None = None

    def given(self) -> bool:
        return any(p is not None for p in self.by_class().values())

    def by_class(self) -> dict[str, float | None]:
        return {
            "uncached_input": self.usd_per_mtok_input,
            "cached_input": self.usd_per_mtok_cached_input,
            "output": self.usd_per_mtok_output,
        }


@dataclass(frozen=True)
class ClassRevenue:
    """Revenue of one GPU's (or the deployment's) hour at API prices, by class."""

    mix: TokenMix
    usd_per_mtok: dict[str, float]  # the price each class is billed at
    usd_per_hour: dict[str, float]  # class tokens in an hour × class price
    total_usd_per_hour: float

    @property
    def blended_usd_per_mtok(self) -> float | None:
        """Revenue ÷ all tokens: the mix's average price per Mtok."""
        mtok = self.mix.total_tok_s * _MTOK_PER_HOUR
        return None if not mtok > 0 else self.total_usd_per_hour / mtok

    @property
    def tokens_per_usd(self) -> float | None:
        """All tokens per $1 of revenue (InferenceX-app#943's Total Tokens per $1)."""
        if not self.total_usd_per_hour > 0:
            return None
        return self.mix.total_tok_s * SECONDS_PER_HOUR / self.total_usd_per_hour


def class_revenue(mix: TokenMix, prices: ClassPrices) -> ClassRevenue | str:
    """Each class's tokens × its price, each token billed once; the reason when a class with
    tokens has no price (cached tokens are never billed at the uncached price)."""
    given = prices.by_class()
    billed: dict[str, float] = {}
    for name, tok_s in mix.by_class().items():
        price = given[name]
        if price is None:
            if tok_s > 0:
                return f"no {CLASS_LABELS[name]} price: give usd_per_mtok_{_PARAM[name]}"
            price = 0.0  # no tokens of the class: nothing to bill
        if price < 0 or not math.isfinite(price):
            raise ValueError(f"{CLASS_LABELS[name]} price must be a finite number ≥ 0")
        billed[name] = price
    per_hour = {
        name: tok_s * _MTOK_PER_HOUR * billed[name] for name, tok_s in mix.by_class().items()
    }
    return ClassRevenue(mix, billed, per_hour, math.fsum(per_hour.values()))


_PARAM = {"uncached_input": "input", "cached_input": "cached_input", "output": "output"}


@dataclass(frozen=True)
class BreakEven:
    """What each class must sell at for the revenue to equal the GPU-hour (SPLIT_RULE)."""

    usd_per_gpu_hour: float
    usd_per_mtok: dict[str, float]  # break-even price by class
    gpu_usd_per_hour: dict[str, float]  # the GPU-hour's share each class pays


def break_even(revenue: ClassRevenue, usd_per_gpu_hour: float) -> BreakEven | None:
    """The given prices scaled by cost ÷ revenue (their ratios kept); None when they earn
    nothing (all zero, or no tokens)."""
    if not revenue.total_usd_per_hour > 0:
        return None
    scale = usd_per_gpu_hour / revenue.total_usd_per_hour
    return BreakEven(
        usd_per_gpu_hour,
        {k: p * scale for k, p in revenue.usd_per_mtok.items()},
        {k: r * scale for k, r in revenue.usd_per_hour.items()},
    )
