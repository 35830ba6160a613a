"""The TypedDicts of app.schemas.answers.check: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from app.schemas.answers.typed.readoff import ReadoffRowDict

if TYPE_CHECKING:
    from app.schemas.answers.typed.common import DifferenceDict
    from app.schemas.answers.typed.readoff import SloOutDict


class CheckedSweepDict(ReadoffRowDict):
    """app.schemas.answers.check.CheckedSweep"""

    ref: str
    resolved_by: Literal["id", "tag", "name"]


class FindingIntervalDict(TypedDict):
    """app.schemas.answers.check.FindingInterval"""

    ci_low: float | None
    ci_high: float | None
    ci_level: float
    ci_method: (
        Literal["wilson", "bootstrap", "t", "t-log", "ratio-bootstrap", "ratio-log-normal"] | None
    )


class GateRatioOutDict(TypedDict):
    """app.schemas.answers.check.GateRatioOut"""

    value: float
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    ci_method: Literal["ratio-bootstrap", "ratio-t-log", "ratio-log-normal"] | None
    ci_reason: str | None
    paired: bool
    n_baseline: NotRequired[int | None]
    n_candidate: NotRequired[int | None]


class FindingDict(TypedDict):
    """app.schemas.answers.check.Finding"""

    figure: Literal["meets_slo", "goodput_tok_s_per_gpu", "usd_per_mtok", "frontier"]
    label: str
    baseline: bool | float | None
    candidate: bool | float | None
    change: float | None
    regression: bool
    note: str
    baseline_interval: FindingIntervalDict | None
    candidate_interval: FindingIntervalDict | None
    ratio: NotRequired[GateRatioOutDict | None]


class CaveatOutDict(TypedDict):
    """app.schemas.answers.check.CaveatOut"""

    kind: Literal["split", "spec_method", "acceptance", "prefix_cache"]
    text: str


class CheckDocumentDict(TypedDict):
    """app.schemas.answers.check.CheckDocument"""

    verdict: Literal["pass", "regression", "comparison"]
    same_configuration: bool
    differences: list[DifferenceDict]
    caveats: list[CaveatOutDict]
    allow_different: bool
    scope: Literal["slo", "frontier"]
    tolerance: float
    share: float
    slo: SloOutDict
    price_columns: list[str]
    candidate: CheckedSweepDict
    baseline: CheckedSweepDict
    findings: list[FindingDict]
    regressions: list[str]
    compare_url: str
    headline: str
    summary: str


class CheckAnswerDict(CheckDocumentDict):
    """app.schemas.answers.check.CheckAnswer"""

    check_id: int
