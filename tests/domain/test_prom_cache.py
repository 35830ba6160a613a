"""The server's prefix-cache counters read per window of scrapes (issue 50): the cached share
of prompt tokens measured by the server, vLLM's and SGLang's names."""

from __future__ import annotations

from app.domain.prom_cache import CacheCounts, CachedInput, cache_names, cached_input
from app.domain.prom_text import Scrape, parse_exposition
from app.domain.prom_window import windows
from tests.helpers import prefix_cache_lines
from tests.prom_stream import make_stream

STREAM = make_stream(n=1200, duration_s=600)
ORIGIN = 1_780_000_000


def cache_scrapes(with_cache: bool) -> list[Scrape]:
    return [
        parse_exposition(
            STREAM.exposition(t, scraped_at=ORIGIN + t)
            + (prefix_cache_lines(t) if with_cache else ""),
            scraped_at_s=ORIGIN + t,
        )
        for t in (0, 300, 600)
    ]


def test_each_window_counts_the_servers_cached_and_queried_prompt_tokens() -> None:
    made = windows(cache_scrapes(True), num_gpus=4, window_s=300)
    first, second = made.points
    assert first.cache == CacheCounts(62_000.0, 100_000.0)
    assert second.cache == CacheCounts(48_000.0, 80_000.0)
    assert first.cache.share == 0.62 and second.cache.share == 0.6
    assert cached_input(first.cache, live=False) == CachedInput(
        share=0.62, source="measured", cached_tokens=62_000.0, queried_tokens=100_000.0, reason=None
    )


def test_without_the_counters_the_share_is_unknown_with_the_reason() -> None:
    first = windows(cache_scrapes(False), num_gpus=4, window_s=300).points[0]
    assert first.cache is None
    found = cached_input(first.cache, live=False)
    assert (found.share, found.source) == (None, "unknown")
    assert found.reason == "the engine exported no prefix-cache counters"
    assert cached_input(None, live=True).reason == (
        "a live pull does not read the prefix-cache counters"
    )
    impossible = cached_input(CacheCounts(5.0, 4.0), live=False)
    assert (impossible.share, impossible.source) == (None, "unknown")
    assert (impossible.cached_tokens, impossible.queried_tokens) == (5.0, 4.0)
    assert impossible.reason == "more cached than queried tokens: the counters are inconsistent"


def test_sglang_counts_its_cached_tokens_against_its_prompt_tokens() -> None:
    names = {"sglang:cached_tokens_total", "sglang:prompt_tokens_total", "sglang:num_running_reqs"}
    assert cache_names("sglang", names) == (
        "sglang:cached_tokens_total",
        "sglang:prompt_tokens_total",
    )
    assert cache_names("vllm", {"vllm:prefix_cache_hits", "vllm:prefix_cache_queries"}) == (
        "vllm:prefix_cache_hits",
        "vllm:prefix_cache_queries",
    )
    assert cache_names("vllm", {"vllm:prefix_cache_hits_total"}) is None
