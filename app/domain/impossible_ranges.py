"""Values outside the range their meaning allows: a rate that is a fraction above 1 (an
acceptance rate of 5), a percentage above 100, a mean acceptance length below 1, more accepted
draft tokens than proposed, a negative power or energy, and a prefill:decode split whose GPUs
do not add up to the deployment's ("100P + 100D" on 8 GPUs).

Pure: imports only the standard library (and the covariates' names).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.domain.covariates import (
    ACCEPTANCE_LENGTH,
    ACCEPTANCE_RATE,
    CACHED_INPUT_TOKENS,
    CLIENT_CACHE_HIT_RATE,
    GPU_ENERGY_J,
    GPU_POWER_W,
    PREFIX_CACHE_HIT_RATE,
    THEORETICAL_CACHE_HIT_RATE,
)
from app.domain.impossible import Impossible
from app.domain.numbers import finite_number as _number

KIND_RANGE = "out of range"
KIND_SPLIT = "split"
# The GPU count and the split it must equal, as sweep columns (split_problem's arguments).
SPLIT_GPUS: tuple[str, str, str] = ("num_gpus", "num_prefill_gpus", "num_decode_gpus")

# Fractions in [0, 1], as the covariates keep them.
FRACTIONS: tuple[str, ...] = (
    ACCEPTANCE_RATE,
    PREFIX_CACHE_HIT_RATE,
    THEORETICAL_CACHE_HIT_RATE,
    CLIENT_CACHE_HIT_RATE,
)
# Percentages in [0, 100], as vLLM bench serve writes its acceptance rate.
PERCENTS: tuple[str, ...] = ("spec_decode_acceptance_rate",)
NON_NEGATIVE: tuple[str, ...] = (GPU_POWER_W, GPU_ENERGY_J, CACHED_INPUT_TOKENS)


def range_problems(
    extra: Mapping[str, Any], values: Mapping[str, Any] | None = None
) -> list[Impossible]:
    """Each extra field whose value its meaning rules out (`values`: the point's columns, for
    cached input tokens, which are part of its mean input length)."""
    found: list[Impossible] = []
    cached = _number(extra.get(CACHED_INPUT_TOKENS))
    input_len = _number((values or {}).get("input_len"))
    if cached is not None and input_len is not None and cached > input_len:
        found.append(
            Impossible(
                CACHED_INPUT_TOKENS,
                KIND_RANGE,
                f"{CACHED_INPUT_TOKENS} {cached:g} is above input_len {input_len:g} (cached "
                "tokens are part of the input)",
            )
        )
    for key in FRACTIONS:
        value = _number(extra.get(key))
        if value is not None and not 0 <= value <= 1:
            found.append(
                Impossible(key, KIND_RANGE, f"{key} {value:g} is not a fraction between 0 and 1")
            )
    for key in PERCENTS:
        value = _number(extra.get(key))
        if value is not None and not 0 <= value <= 100:
            found.append(
                Impossible(key, KIND_RANGE, f"{key} {value:g} is not a percentage (0 to 100)")
            )
    for key in NON_NEGATIVE:
        value = _number(extra.get(key))
        if value is not None and value < 0:
            found.append(Impossible(key, KIND_RANGE, f"{key} {value:g} is negative"))
    length = _number(extra.get(ACCEPTANCE_LENGTH))
    if length is not None and length < 1:
        found.append(
            Impossible(
                ACCEPTANCE_LENGTH,
                KIND_RANGE,
                f"{ACCEPTANCE_LENGTH} {length:g} is below 1 (each decode step yields at least "
                "the verified token)",
            )
        )
    accepted = _number(extra.get("spec_decode_accepted_tokens"))
    draft = _number(extra.get("spec_decode_draft_tokens"))
    if accepted is not None and draft is not None and not 0 <= accepted <= draft:
        found.append(
            Impossible(
                "spec_decode_accepted_tokens",
                KIND_RANGE,
                f"{accepted:g} accepted draft tokens of {draft:g} proposed",
            )
        )
    return found


def split_problem(num_gpus: Any, prefill: Any, decode: Any) -> Impossible | None:
    """A prefill:decode split whose GPUs are not the deployment's: P + D must be its GPU count
    (a sweep's split, or a point's own where the split changes along a sweep)."""
    total, p, d = _number(num_gpus), _number(prefill), _number(decode)
    if p is not None and p < 0:
        return Impossible("num_prefill_gpus", KIND_SPLIT, f"{p:g} prefill GPUs is negative")
    if d is not None and d < 0:
        return Impossible("num_decode_gpus", KIND_SPLIT, f"{d:g} decode GPUs is negative")
    if total is None or p is None or d is None or p + d == total:
        return None
    return Impossible(
        "num_prefill_gpus",
        KIND_SPLIT,
        f"the split {p:g}P + {d:g}D is {p + d:g} GPUs, but the deployment has {total:g} "
        "(num_gpus): prefill and decode GPUs must add up to it",
    )
