"""Which Prometheus series of a serving engine hold which measure (vLLM V1 and older, SGLang).

Each measure lists its names newest first; the first one a scrape holds is read, and the
window says which. Histograms are in seconds; counters are cumulative since the engine started.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Measure = Literal["ttft", "tpot", "e2el", "output_tokens", "prompt_tokens", "running"]
HISTOGRAMS: tuple[Measure, ...] = ("ttft", "tpot", "e2el")


@dataclass(frozen=True)
class EngineNames:
    engine: str
    prefix: str
    names: dict[Measure, tuple[str, ...]]
    # Labels that name the model a series belongs to: two values in one window mix models.
    model_labels: tuple[str, ...] = ("model_name",)


VLLM = EngineNames(
    engine="vllm",
    prefix="vllm:",
    names={
        "ttft": ("vllm:time_to_first_token_seconds",),
        # Per-request TPOT where the engine has it (newer V1); otherwise the per-token
        # inter-token latency (V1 renamed time_per_output_token to inter_token_latency).
        "tpot": (
            "vllm:request_time_per_output_token_seconds",
            "vllm:inter_token_latency_seconds",
            "vllm:time_per_output_token_seconds",
        ),
        "e2el": ("vllm:e2e_request_latency_seconds",),
        "output_tokens": ("vllm:generation_tokens_total", "vllm:generation_tokens"),
        "prompt_tokens": ("vllm:prompt_tokens_total", "vllm:prompt_tokens"),
        "running": ("vllm:num_requests_running",),
    },
)

SGLANG = EngineNames(
    engine="sglang",
    prefix="sglang:",
    names={
        "ttft": ("sglang:time_to_first_token_seconds",),
        "tpot": ("sglang:time_per_output_token_seconds", "sglang:inter_token_latency_seconds"),
        "e2el": ("sglang:e2e_request_latency_seconds",),
        "output_tokens": ("sglang:generation_tokens_total",),
        "prompt_tokens": ("sglang:prompt_tokens_total",),
        "running": ("sglang:num_running_reqs",),
    },
    model_labels=("model_name",),
)

_SIGNS: tuple[Measure, ...] = ("ttft", "e2el", "output_tokens")
ENGINES: tuple[EngineNames, ...] = (VLLM, SGLANG)
# Names read per token, not per request: a TPOT attainment from them counts tokens.
PER_TOKEN = frozenset(
    {
        "vllm:inter_token_latency_seconds",
        "vllm:time_per_output_token_seconds",
        "sglang:inter_token_latency_seconds",
    }
)


def engine_of(names: set[str]) -> EngineNames | None:
    """The engine whose histogram or token names appear among the series names, or None."""
    for engine in ENGINES:
        wanted = {n for key in _SIGNS for n in engine.names[key]}
        buckets = {f"{n}_bucket" for n in wanted}
        if names & (wanted | buckets):
            return engine
    return None
