"""A claim's verdict: the claim read at its own interactivity against measured sweeps of the same
model architecture, said in one sentence ("holds", "does not hold: …", "cannot say: …").

Pure: standard library and app.domain only. Only sweeps on the claim's own hardware judge it (a
faster or slower GPU says nothing about this one); the others are read and listed, marked as
other hardware, and named in the sentence only when the claim's hardware cannot say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.domain.claims import Claim
from app.domain.numbers import fmt_number

State = Literal["holds", "does_not_hold", "cannot_say"]


@dataclass(frozen=True)
class SweepRead:
    """One sweep read at the claim's interactivity: the most tok/s per GPU of its measured
    points that reach it (interactivity ≥ the claim's), or None with the reason."""

    sweep_id: int
    name: str
    hardware: str | None
    model: str | None
    same_hardware: bool
    same_model: bool  # False: another model of the same architecture (e.g. Llama 3.3 vs 3.1)
    tok_s_per_gpu: float | None
    interactivity_tok_s_user: float | None  # of the point read
    reason: str | None = None
    has_throughput: bool = True  # False: no tok/s per GPU on the basis at any point


@dataclass(frozen=True)
class ClaimVerdict:
    state: State
    sentence: str
    at_tok_s_user: float | None
    claim_tok_s_per_gpu: float | None
    best: SweepRead | None = None
    ratio: float | None = None  # claim ÷ best measured


def claim_interactivity(claim: Claim) -> float | None:
    """The tok/s/user the claim is made at: stated, or the per-user speed it claims."""
    if claim.interactivity_tok_s_user is not None:
        return claim.interactivity_tok_s_user
    return claim.value_tok_s if claim.measures == "per_user" else None


def best_reaching(
    xs: Sequence[float | None], ys: Sequence[float | None], at_tok_s_user: float
) -> tuple[float | None, float | None]:
    """(tok/s per GPU, its interactivity) of the measured point with the most throughput among
    those at or above `at_tok_s_user`; (None, None) when none reaches it. Measured points only:
    no interpolation between them, no extrapolation past them."""
    reaching = [
        (y, x)
        for x, y in zip(xs, ys, strict=True)
        if x is not None and y is not None and x >= at_tok_s_user
    ]
    if not reaching:
        return None, None
    y, x = max(reaching)
    return y, x


def _where(read: SweepRead) -> str:
    return f"{read.name}, {read.hardware or 'hardware not given'}"


def _none_reaches(reads: Sequence[SweepRead], hardware: str, at: str) -> str:
    """Why no sweep on the claim's hardware answers, with the best on other hardware."""
    others = [r for r in reads if not r.same_hardware and r.tok_s_per_gpu is not None]
    mine = [r for r in reads if r.same_hardware]
    if not mine:
        sentence = f"cannot say: no sweep of this model architecture on {hardware} is stored"
    elif not any(r.has_throughput for r in mine):
        sentence = f"cannot say: no {hardware} sweep has throughput on the claim's basis"
    else:
        sentence = f"cannot say: no {hardware} sweep reaches {at}"
    if others:
        best_other = max(others, key=lambda r: r.tok_s_per_gpu or 0.0)
        sentence += (
            f" (on other hardware the best is {fmt_number(best_other.tok_s_per_gpu)} "
            f"tok/s/GPU: {_where(best_other)})"
        )
    return sentence


def verdict(
    claim_tok_s_per_gpu: float | None,
    at_tok_s_user: float | None,
    hardware: str,
    reads: Sequence[SweepRead],
    basis_reason: str | None = None,
) -> ClaimVerdict:
    """The claim against the best measured on its own hardware at its own interactivity."""
    if claim_tok_s_per_gpu is None:
        why = basis_reason or "the claim cannot be put per GPU"
        return ClaimVerdict("cannot_say", f"cannot say: {why}", at_tok_s_user, None)
    if at_tok_s_user is None:
        return ClaimVerdict(
            "cannot_say",
            "cannot say: the claim names no interactivity (tok/s/user) to read the sweeps at",
            None,
            claim_tok_s_per_gpu,
        )
    at = f"{fmt_number(at_tok_s_user)} tok/s/user"
    own = [r for r in reads if r.same_hardware and r.tok_s_per_gpu is not None]
    if not own:
        sentence = _none_reaches(reads, hardware, at)
        return ClaimVerdict("cannot_say", sentence, at_tok_s_user, claim_tok_s_per_gpu)
    best = max(own, key=lambda r: r.tok_s_per_gpu or 0.0)
    measured = best.tok_s_per_gpu or 0.0
    ratio = claim_tok_s_per_gpu / measured if measured > 0 else None
    said = f"the best measured at {at} is {fmt_number(measured)} tok/s/GPU ({_where(best)})"
    if measured >= claim_tok_s_per_gpu:
        share = "" if ratio is None else f", {fmt_number(1 / ratio)}× the claim"
        return ClaimVerdict(
            "holds", f"holds: {said}{share}", at_tok_s_user, claim_tok_s_per_gpu, best, ratio
        )
    below = "" if ratio is None else f", {fmt_number(ratio)}× below"
    return ClaimVerdict(
        "does_not_hold",
        f"does not hold: {said}{below}",
        at_tok_s_user,
        claim_tok_s_per_gpu,
        best,
        ratio,
    )
