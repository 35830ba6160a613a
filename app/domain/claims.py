"""Vendor claims: what a claim says, normalised per GPU and per token basis, and what it leaves
unsaid (the open questions). The physics check is in claim_physics.

Pure math: imports only the standard library and app.domain (no web, database or settings).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from app.domain.numbers import fmt_count

Measures = Literal["per_user", "per_gpu", "system"]
TokenBasis = Literal["output", "total"]
Scope = Literal["gpu", "node", "rack"]

DEFAULT_CONTEXT = 1024  # tokens, when the claim states neither ISL nor OSL
DEFAULT_ACCEPTED_LENGTH = 4.0  # most tokens per step we grant unstated speculative decoding
SCOPE_GPUS: dict[str, int] = {"gpu": 1, "node": 8, "rack": 72}
NO_SPEC = {"none", "no", "off", "false", "0", "disabled", "n/a"}
# Substrings of a free-text precision and the format they mean; the earliest match wins.
PRECISION_WORDS = (
    ("nvfp4", "fp4"),
    ("mxfp4", "fp4"),
    ("fp4", "fp4"),
    ("int4", "int4"),
    ("w4a", "int4"),
    ("awq", "int4"),
    ("gptq", "int4"),
    ("fp8", "fp8"),
    ("int8", "int8"),
    ("w8a", "int8"),
    ("bf16", "bf16"),
    ("fp16", "fp16"),
    ("fp32", "fp32"),
)


@dataclass(frozen=True)
class Claim:
    """What a vendor said: a number, what it measures, on what, and how much of the setup."""

    value_tok_s: float
    measures: Measures
    token_basis: TokenBasis
    gpu_scope: Scope = "gpu"
    scope_gpus: int = 1
    model: str | None = None
    precision: str | None = None
    interactivity_tok_s_user: float | None = None
    batch: int | None = None
    isl: int | None = None
    osl: int | None = None
    spec_decode: str | None = None
    source_url: str | None = None
    dated: bool = False
    provenance: str | None = None  # independent | vendor; None: not stated (issue 51)


@dataclass(frozen=True)
class Context:
    """Tokens in the KV cache: mean while decoding (step time) and at the end (capacity)."""

    step_tokens: int
    capacity_tokens: int
    rule: str


def fmt(value: float, digits: int = 6) -> str:
    """A number in formulas: thousands separators, `digits` significant digits."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def weight_precision(text: str | None) -> str | None:
    """The weight format a free-text precision names (NVFP4 → fp4, "FP8 W8A8" → fp8), or None."""
    if not text:
        return None
    lower = text.lower()
    found = [(lower.find(word), name) for word, name in PRECISION_WORDS if word in lower]
    return min(found)[1] if found else None


def spec_decode_state(text: str | None) -> Literal["unknown", "none", "stated"]:
    """Whether the claim says speculative decoding was off, on, or says nothing."""
    if text is None or not text.strip():
        return "unknown"
    return "none" if text.strip().lower() in NO_SPEC else "stated"


def claim_context(isl: int | None, osl: int | None, default: int = DEFAULT_CONTEXT) -> Context:
    """Step time uses the mean context ISL + OSL/2; KV capacity (B_max) the full ISL + OSL."""
    if isl is not None and osl is not None:
        mean, peak = isl + osl // 2, isl + osl
        rule = (
            f"ISL + OSL/2 = {isl:,} + {osl // 2:,} = {mean:,} tokens (mean context while"
            f" decoding); B_max uses ISL + OSL = {peak:,}"
        )
        return Context(mean, peak, rule)
    if isl is not None:
        return Context(isl, isl, f"ISL = {isl:,} tokens (OSL not stated)")
    if osl is not None:
        return Context(osl // 2, osl, f"OSL/2 = {osl // 2:,} tokens (ISL not stated)")
    return Context(default, default, f"not stated: {default:,} tokens assumed")


def output_share(claim: Claim) -> float | None:
    """Share of the claim's tokens that are output tokens; None when it cannot be known."""
    if claim.token_basis == "output":
        return 1.0
    if claim.isl is not None and claim.osl is not None and claim.isl + claim.osl > 0:
        return claim.osl / (claim.isl + claim.osl)
    return None


def per_gpu_tok_s(claim: Claim) -> tuple[float, str]:
    """The claim as tok/s per GPU on its own basis, with how it was derived."""
    gpus = claim.scope_gpus
    if claim.measures == "per_gpu":
        return claim.value_tok_s, "as claimed (per GPU)"
    if claim.measures == "system":
        return (
            claim.value_tok_s / gpus,
            f"{fmt(claim.value_tok_s)} tok/s ÷ {fmt_count(gpus, 'GPU')}",
        )
    batch = claim.batch or 1
    users, on = fmt_count(batch, "user"), fmt_count(gpus, "GPU")
    how = f"{fmt(claim.value_tok_s)} tok/s/user × {users} ÷ {on}"
    if claim.batch is None:
        how += " (no batch stated: batch 1)"
    return claim.value_tok_s * batch / gpus, how


def on_basis(value: float, claim: Claim, basis: str) -> float | None:
    """A claim's number converted to another token basis when ISL/OSL allow it, else None."""
    if basis == claim.token_basis:
        return value
    isl, osl = claim.isl, claim.osl
    if isl is None or osl is None or isl + osl <= 0:
        return None
    output = value if claim.token_basis == "output" else value * osl / (isl + osl)
    if basis == "output":
        return output
    if osl == 0:
        return None
    return output * (isl + osl) / osl if basis == "total" else output * isl / osl


def open_questions(claim: Claim) -> list[str]:
    """What to ask the vendor: everything the claim leaves unsaid or ambiguous."""
    questions: list[str] = []
    aggregate = claim.measures != "per_user"
    if aggregate and claim.interactivity_tok_s_user is None:
        questions.append(
            "At what speed per user (tok/s/user, or TPOT)? An aggregate number without it can sit"
            " anywhere on the curve; the maximum usually comes with a slow experience."
        )
    if not aggregate and claim.batch is None:
        questions.append(
            "At what concurrency? A per-user speed at batch 1 says nothing about throughput per"
            " GPU or cost."
        )
    if aggregate and claim.batch is None:
        questions.append("At what concurrency (batch) was the number measured?")
    if claim.measures == "system":
        whole = {"gpu": "deployment", "node": "node", "rack": "rack"}[claim.gpu_scope]
        questions.append(
            f"Per GPU or for the whole {whole}? Stored as {fmt_count(claim.scope_gpus, 'GPU')}"
            " in total:"
            " do they include every GPU of the deployment (prefill and decode)?"
        )
    elif claim.measures == "per_gpu" and claim.gpu_scope != "gpu":
        questions.append(
            f"Was the {claim.gpu_scope}'s throughput divided by all {claim.scope_gpus} GPUs?"
        )
    if claim.token_basis == "total":
        questions.append(
            "How many of the tokens are output tokens? Totals count prompt tokens, which are much"
            " cheaper to process than generated ones."
        )
    if claim.isl is None or claim.osl is None:
        questions.append(
            "Which input and output lengths (ISL/OSL) and which dataset? Long prompts and long"
            " outputs change both speed and throughput."
        )
    if claim.precision is None:
        questions.append("Which precision for the weights and for the KV cache (BF16, FP8, FP4)?")
    state = spec_decode_state(claim.spec_decode)
    if state == "unknown":
        questions.append(
            "Was speculative decoding (MTP, EAGLE, a draft model) on, and what mean accepted length"
            " did it reach?"
        )
    elif state == "stated":
        questions.append(
            "What mean accepted length did speculative decoding reach, on which text? Acceptance"
            " falls on harder or unfamiliar prompts."
        )
    if aggregate:
        questions.append(
            "Under which latency limits (TTFT and TPOT percentiles)? Throughput without an SLO is"
            " the unconstrained maximum."
        )
    return questions + _record_questions(claim)


def _record_questions(claim: Claim) -> list[str]:
    """What the claim's record leaves out: the model, the date, the source and who measured it."""
    questions: list[str] = []
    if claim.model is None:
        questions.append("Which model, exactly (name, size, version)?")
    if not claim.dated:
        questions.append("When was it measured, with which software versions?")
    if not claim.source_url:
        questions.append("Where was it published? Keep the link with the number.")
    if claim.provenance is None:
        questions.append(
            "Which harness measured it: an independent one (MLPerf, InferenceX) or the vendor's"
            " own setup?"
        )
    return questions
