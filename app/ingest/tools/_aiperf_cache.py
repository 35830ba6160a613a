"""AIPerf's cached (prefix-hit) input tokens (issue 50), as the client reads them from each
response's usage (`usage.prompt_tokens_details.cached_tokens`, Anthropic's
`cache_read_input_tokens`), and its theoretical prefix-cache hit rate of a trace replay.

Names (ai-dynamo/aiperf `src/aiperf/metrics/base_usage_record_metric.py` @ f3fac690 and
`cache_reporting_hint.py` @ 7fd078fb; the 2025 usage metrics): per record
`usage_prompt_cache_read_tokens` (earlier `usage_prompt_cached_tokens`) and
`usage_prompt_tokens`; in the summary their statistics and the sums
`total_usage_prompt_cache_read_tokens` (earlier `total_usage_prompt_cached_tokens`) and
`total_usage_prompt_tokens`; `theoretical_prefix_cache_hit` (percent,
`metrics/types/theoretical_prefix_cache_metric.py` @ 78c42cc3: an infinite cache's hit rate
over the trace, never measured).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.domain.covariates import CACHED_INPUT_TOKENS, THEORETICAL_CACHE_HIT_RATE
from app.ingest.cached_tokens import client_rate
from app.ingest.errors import IngestError
from app.ingest.tools._genai_common import avg, metric

CACHED_KEYS = ("usage_prompt_cache_read_tokens", "usage_prompt_cached_tokens")
THEORETICAL_KEY = "theoretical_prefix_cache_hit"
PERCENT_UNITS = ("%", "percent")


def cache_figures(stats: Mapping[str, Any], file: str) -> dict[str, float]:
    """A run's cached input as covariates: the mean cached tokens per request and Σ cached ÷
    Σ prompt tokens (both reported by the client), the theoretical hit rate as a fraction."""
    out: dict[str, float] = {}
    key = next((k for k in CACHED_KEYS if stats.get(k) is not None), None)
    mean = None if key is None else avg(stats, key, file)
    if mean is not None:
        out[CACHED_INPUT_TOKENS] = mean
    total = next((f"total_{k}" for k in CACHED_KEYS if stats.get(f"total_{k}") is not None), None)
    if total is not None:
        prompt = avg(stats, "total_usage_prompt_tokens", file)
        out |= client_rate(file, avg(stats, total, file), prompt, None, total)
    theory = metric(stats, THEORETICAL_KEY, file)
    rate = None if theory is None else avg(stats, THEORETICAL_KEY, file)
    if theory is not None and rate is not None:
        unit = str(theory.get("unit") or "%").lower()
        if unit not in PERCENT_UNITS:
            raise IngestError.one(file, f"key {THEORETICAL_KEY}.unit: {unit!r} is not a percent")
        out[THEORETICAL_CACHE_HIT_RATE] = rate / 100
    return out
