"""The server's own prefix-cache counters in a window of scrapes (issue 50): cached input
*measured* by the server.

vLLM V1 counts `vllm:prefix_cache_queries_total` (prompt tokens looked up in the prefix cache)
and `vllm:prefix_cache_hits_total` (those found); SGLang counts `sglang:cached_tokens_total`
(by `cache_source`) against `sglang:prompt_tokens_total`. A window's share is Σ increase of the
cached counter ÷ Σ increase of the queried one over every label set; a series first seen in the
window's last scrape counts from zero, a reset one from zero after the reset (as rate() does).
More cached than queried is impossible: no share, with the reason.

Pure: imports only the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

# (cached counter names, queried counter names) per engine, newest first.
CACHE_NAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "vllm": (
        ("vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits"),
        ("vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries"),
    ),
    "sglang": (("sglang:cached_tokens_total",), ("sglang:prompt_tokens_total",)),
}
NOT_EXPORTED = "the engine exported no prefix-cache counters"


@dataclass(frozen=True)
class CacheCounts:
    """Increases over a window of the cached and the queried prompt tokens."""

    cached_tokens: float
    queried_tokens: float

    @property
    def share(self) -> float | None:
        ok = self.queried_tokens > 0 and 0 <= self.cached_tokens <= self.queried_tokens
        return self.cached_tokens / self.queried_tokens if ok else None


def cache_names(engine: str, names: Iterable[str]) -> tuple[str, str] | None:
    """The (cached, queried) counter names the scrapes hold for this engine, or None."""
    present = set(names)
    pair = CACHE_NAMES.get(engine)
    if pair is None:
        return None
    cached = next((n for n in pair[0] if n in present), None)
    queried = next((n for n in pair[1] if n in present), None)
    return None if cached is None or queried is None else (cached, queried)


def _increase(name: str, a: Mapping[Any, float], b: Mapping[Any, float]) -> float:
    total = 0.0
    for key, after in b.items():
        if key[0] == name:
            before = a.get(key, 0.0)
            total += after if after < before else after - before
    return total


def cache_counts(
    names: tuple[str, str] | None, a: Mapping[Any, float], b: Mapping[Any, float]
) -> CacheCounts | None:
    """The window's counts between scrape tables `a` and `b` ({(name, labels): value})."""
    if names is None:
        return None
    return CacheCounts(_increase(names[0], a, b), _increase(names[1], a, b))


@dataclass(frozen=True)
class CachedInput:
    """A window's cached share of prompt tokens, measured by the server ("measured"), or
    "unknown" with why."""

    share: float | None
    source: Literal["measured", "unknown"]
    cached_tokens: float | None
    queried_tokens: float | None
    reason: str | None


def cached_input(counts: CacheCounts | None, live: bool) -> CachedInput:
    """A window's cached share of prompt tokens, measured by the server, or unknown with why
    (`live`: a window of a live pull, which does not ask for these counters)."""
    share = None if counts is None else counts.share
    reason = None
    if counts is None:
        reason = "a live pull does not read the prefix-cache counters" if live else NOT_EXPORTED
    elif share is None:
        reason = (
            "no prompt tokens looked up in the window"
            if not counts.queried_tokens > 0
            else "more cached than queried tokens: the counters are inconsistent"
        )
    return CachedInput(
        share,
        "unknown" if share is None else "measured",
        None if counts is None else counts.cached_tokens,
        None if counts is None else counts.queried_tokens,
        reason,
    )
