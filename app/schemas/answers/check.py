"""POST /api/check's answer: the verdict, what moved, and the stored check's id."""

from __future__ import annotations

from typing import Literal

from app.domain.intervals import Method
from app.schemas.answers.common import Answer, Difference
from app.schemas.answers.readoff import ReadoffRow, SloOut


class CheckedSweep(ReadoffRow):
    """A side of the check: how its reference resolved, then its read-off row."""

    ref: str
    resolved_by: Literal["id", "tag", "name"]


class FindingInterval(Answer):
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    ci_method: Method | None


class GateRatioOut(Answer):
    """The goodput's candidate ÷ baseline with its own interval: what the gate judges (a
    regression needs it wholly below 1×); without ends, `ci_reason` says why."""

    value: float
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    ci_method: Literal["ratio-bootstrap", "ratio-t-log", "ratio-log-normal"] | None
    ci_reason: str | None
    paired: bool  # both runs replayed the same prompts in the same order
    n_baseline: int | None = None  # the requests or runs each side's figure rests on
    n_candidate: int | None = None


class Finding(Answer):
    figure: Literal["meets_slo", "goodput_tok_s_per_gpu", "usd_per_mtok", "frontier"]
    label: str
    baseline: bool | float | None
    candidate: bool | float | None
    change: float | None
    regression: bool
    note: str
    baseline_interval: FindingInterval | None
    candidate_interval: FindingInterval | None
    ratio: GateRatioOut | None = None


class CaveatOut(Answer):
    """A way the two differ that the data decides: split, spec method, acceptance, cache."""

    kind: Literal["split", "spec_method", "acceptance", "prefix_cache"]
    text: str


class CheckDocument(Answer):
    """A check as `evaluate` judges it (the MCP `check` tool's answer: nothing stored)."""

    verdict: Literal["pass", "regression", "comparison"]
    same_configuration: bool
    differences: list[Difference]
    caveats: list[CaveatOut]  # split, speculative decoding, prefix caching that differ
    allow_different: bool
    scope: Literal["slo", "frontier"]
    tolerance: float
    share: float
    slo: SloOut
    price_columns: list[str]
    candidate: CheckedSweep
    baseline: CheckedSweep
    findings: list[Finding]
    regressions: list[str]
    compare_url: str
    headline: str
    summary: str


# The check as stored: its document and the id History marks it by (no docstring: it would
# become the schema's description).
class CheckAnswer(CheckDocument):
    check_id: int
