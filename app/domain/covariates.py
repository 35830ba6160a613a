"""Speculative decoding, prefix caching and the split as covariates of a comparison (issue 37).

Whether speculative decoding or a prefix cache helps depends on the data: acceptance rates
differ by dataset and vendor, and a cache that hits 90 % on a benchmark may hit 10 % in
production. What a file reports per point is kept under these keys in the point's extra fields
(importers write them; a canonical CSV may carry them as columns), and two systems compared are
warned about when they differ in method, in acceptance rate by more than 10 % relative, or in
prefix-cache hit rate by more than 10 points.

Pure: imports only the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from app.domain.accounting import split_label
from app.domain.sweep_meta import SweepMeta

# Per point, in a point's extra fields. Rates are fractions in [0, 1].
ACCEPTANCE_RATE = "spec_acceptance_rate"  # accepted ÷ proposed draft tokens
ACCEPTANCE_LENGTH = "spec_acceptance_length"  # mean tokens per decode step (accepted + 1)
PREFIX_CACHE_HIT_RATE = "prefix_cache_hit_rate"  # cached ÷ queried prompt tokens
# Issue 50: the client's cached (prefix-hit) input tokens, mean per request like input_len,
# and a hit rate a workload generator computes from its shared prefixes (not measured).
CACHED_INPUT_TOKENS = "cached_input_tokens"
# Σ cached ÷ Σ prompt tokens of the point's requests as the client summed their usage (AIPerf's
# total_usage_prompt_cache_read_tokens ÷ total_usage_prompt_tokens, SGLang's cache_report).
CLIENT_CACHE_HIT_RATE = "client_cache_hit_rate"
THEORETICAL_CACHE_HIT_RATE = "theoretical_cache_hit_rate"
GPU_POWER_W = "gpu_power_w"  # measured mean power of all the deployment's GPUs, W
GPU_ENERGY_J = "gpu_energy_j"  # measured energy of all the deployment's GPUs over the run, J
# 1 where the file measured the GPUs' power but marked the measurement invalid (InferenceX's
# power_valid = 0): its power is unknown for that reason, not missing.
GPU_POWER_INVALID = "gpu_power_invalid"
POINT_COVARIATES: tuple[str, ...] = (
    ACCEPTANCE_RATE,
    ACCEPTANCE_LENGTH,
    PREFIX_CACHE_HIT_RATE,
    GPU_POWER_W,
    GPU_ENERGY_J,
    GPU_POWER_INVALID,
    CACHED_INPUT_TOKENS,
    CLIENT_CACHE_HIT_RATE,
    THEORETICAL_CACHE_HIT_RATE,
)
COVARIATE_LABELS: dict[str, str] = {
    ACCEPTANCE_RATE: "acceptance rate",
    ACCEPTANCE_LENGTH: "mean acceptance length",
    PREFIX_CACHE_HIT_RATE: "prefix-cache hit rate",
    GPU_POWER_W: "measured GPU power (W)",
    GPU_ENERGY_J: "measured GPU energy (J)",
    GPU_POWER_INVALID: "GPU power marked invalid",
    CACHED_INPUT_TOKENS: "cached input tokens (mean per request)",
    CLIENT_CACHE_HIT_RATE: "cached share of input (client usage)",
    THEORETICAL_CACHE_HIT_RATE: "theoretical cache hit rate",
}
ACCEPTANCE_RELATIVE = 0.10  # warn above 10 % relative difference
PREFIX_CACHE_POINTS = 0.10  # warn above 10 percentage points
DATA_DEPENDS = "the speed-up depends on the data"
# How files and people write "no speculative decoding" (lower case).
SPEC_OFF: tuple[str, ...] = ("none", "off", "no", "false", "disabled", "0")
_OFF = frozenset(SPEC_OFF)


def point_covariates(extra: Mapping[str, Any]) -> dict[str, float]:
    """The covariates a point's extra fields hold, as finite numbers (text numbers too)."""
    out = {}
    for key in POINT_COVARIATES:
        value = extra.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            continue
        try:
            number = float(value)
        except ValueError:
            continue
        if math.isfinite(number):
            out[key] = number
    return out


def mean_of(values: Iterable[float | None]) -> float | None:
    """Mean of the known values; None when none is known."""
    known = [v for v in values if v is not None and math.isfinite(v)]
    return math.fsum(known) / len(known) if known else None


def spec_method(text: str | None) -> str | None:
    """The speculative method as compared: "none" when off, lower case, None if not stated."""
    if text is None or not text.strip():
        return None
    method = text.strip().lower()
    return "none" if method in _OFF else method


@dataclass(frozen=True)
class Covariates:
    """What of a system changes its frontier beside its hardware: the split, speculative
    decoding and prefix caching (point figures as the mean of the points that report them)."""

    name: str
    num_gpus: int
    num_prefill_gpus: int | None = None
    num_decode_gpus: int | None = None
    spec_decode: str | None = None
    draft_model: str | None = None
    num_spec_tokens: int | None = None
    acceptance_rate: float | None = None
    acceptance_length: float | None = None
    prefix_cache_hit_rate: float | None = None
    workload: str | None = None

    @property
    def split(self) -> str | None:
        return split_label(self.num_prefill_gpus, self.num_decode_gpus)

    def describe(self) -> str:
        """One line for a hover: what of this is known."""
        parts = []
        method = spec_method(self.spec_decode)
        if method and method != "none":
            spec = f"spec {self.spec_decode}"
            if self.draft_model:
                spec += f" (draft {self.draft_model})"
            if self.num_spec_tokens:
                spec += f", {self.num_spec_tokens} tokens/step"
            parts.append(spec)
        if self.acceptance_rate is not None:
            parts.append(f"acceptance {self.acceptance_rate:.0%}")
        if self.acceptance_length is not None:
            parts.append(f"accept length {self.acceptance_length:.2f}")
        if self.prefix_cache_hit_rate is not None:
            parts.append(f"prefix-cache hits {self.prefix_cache_hit_rate:.0%}")
        if self.workload:
            parts.append(f"workload {self.workload}")
        return " · ".join(parts)


def summarise(base: Covariates, points: Iterable[Mapping[str, float]]) -> Covariates:
    """`base` with its point figures as the mean over `points`' covariates."""
    rows = list(points)
    return Covariates(
        base.name,
        base.num_gpus,
        base.num_prefill_gpus,
        base.num_decode_gpus,
        base.spec_decode,
        base.draft_model,
        base.num_spec_tokens,
        mean_of(r.get(ACCEPTANCE_RATE) for r in rows),
        mean_of(r.get(ACCEPTANCE_LENGTH) for r in rows),
        mean_of(r.get(PREFIX_CACHE_HIT_RATE) for r in rows),
        base.workload,
    )


@dataclass(frozen=True)
class Caveat:
    kind: Literal["split", "spec_method", "acceptance", "prefix_cache"]
    text: str


def warnings(a: Covariates, b: Covariates) -> list[Caveat]:
    """What makes A and B unlike beyond their hardware, in words; B is the baseline."""
    out = []
    if a.num_gpus == b.num_gpus and a.split != b.split:
        out.append(
            Caveat(
                "split",
                f"Both have {a.num_gpus} GPUs in total, compared at equal total GPU count: "
                f"{a.name} is {_serving(a)}, {b.name} is {_serving(b)}. Per total GPU hides "
                "the prefill:decode split; count per decode or prefill GPU to see each side.",
            )
        )
    ma, mb = spec_method(a.spec_decode), spec_method(b.spec_decode)
    if ma is not None and mb is not None and ma != mb:
        out.append(
            Caveat(
                "spec_method",
                f"Speculative decoding differs: {a.spec_decode} vs {b.spec_decode}. "
                f"{DATA_DEPENDS.capitalize()}: acceptance rates differ by dataset and vendor.",
            )
        )
    ra, rb = a.acceptance_rate, b.acceptance_rate
    if ra is not None and rb is not None and rb > 0:
        relative = abs(ra - rb) / rb
        if relative > ACCEPTANCE_RELATIVE + 1e-9:  # exactly 10 % is not beyond it
            out.append(
                Caveat(
                    "acceptance",
                    f"Acceptance rates differ by {relative:.0%} relative ({ra:.0%} vs "
                    f"{rb:.0%}): {DATA_DEPENDS}, and on other prompts the gap may not hold.",
                )
            )
    ca, cb = a.prefix_cache_hit_rate, b.prefix_cache_hit_rate
    if ca is not None and cb is not None and abs(ca - cb) > PREFIX_CACHE_POINTS + 1e-9:
        points = abs(ca - cb) * 100
        out.append(
            Caveat(
                "prefix_cache",
                f"Prefix-cache hit rates differ by {points:.0f} points ({ca:.0%} vs {cb:.0%}): "
                f"{DATA_DEPENDS}; a cache that hits often on a benchmark may rarely hit in "
                "production.",
            )
        )
    return out


def _serving(c: Covariates) -> str:
    return f"disaggregated ({c.split})" if c.split else "aggregated"


def of_sweep(
    meta: SweepMeta, points: list[dict[str, float]], means: Covariates | None = None
) -> Covariates:
    """The sweep's covariates: its description (which may be edited) and its points' means
    (`means`, `summarise`d before, when given: the points never change, the description may)."""
    base = Covariates(
        meta.name,
        meta.num_gpus,
        meta.num_prefill_gpus,
        meta.num_decode_gpus,
        meta.spec_decode,
        meta.draft_model,
        meta.num_spec_tokens,
        workload=meta.workload,
    )
    if means is None:
        return summarise(base, points)
    return replace(
        base,
        acceptance_rate=means.acceptance_rate,
        acceptance_length=means.acceptance_length,
        prefix_cache_hit_rate=means.prefix_cache_hit_rate,
    )
