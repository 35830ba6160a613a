"""How importers name a latency statistic kept beside the standard columns, in ms: "ttft_p99.9_ms" /
"ttft_max_ms" (canonical columns, guidellm, inference-perf, llm-d) and "p99.9_ttft_ms" /
"max_ttft_ms" (vLLM, InferenceX). One reading for the impossible-value checks and the read-off's
stored percentiles. Pure: imports only the standard library."""

from __future__ import annotations

import re

# A statistic of a metric as the importers name it, in ms: "ttft_p99.9_ms" / "ttft_max_ms"
# (columns, guidellm, inference-perf, llm-d) and "p99.9_ttft_ms" / "max_ttft_ms" (vLLM).
_STAT = r"(p[0-9]+(?:\.[0-9]+)?|min|max|mean)"
_METRIC = r"(ttft|tpot|itl|e2el)"
_NAMES = (
    re.compile(rf"^{_METRIC}_{_STAT}_ms$"),
    re.compile(rf"^{_STAT}_{_METRIC}_ms$"),
)


def statistic_field(key: str) -> tuple[str, str] | None:
    """(metric, statistic) a field names, e.g. ("ttft", "p99.9") for "p99.9_ttft_ms"; else None."""
    if not key.endswith("_ms"):
        return None
    for i, pattern in enumerate(_NAMES):
        match = pattern.match(key)
        if match is not None:
            metric, stat = match.groups() if i == 0 else match.groups()[::-1]
            return metric, stat
    return None
