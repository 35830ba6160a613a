"""`check`: a candidate whose SLO verdict rests on repeated runs that disagree is not a pass.

Where the candidate meets the SLO nowhere but at a load whose runs disagree (some meet it,
some miss it), its verdict is borderline: the same build, measured again, lands on either side
of the limit. The check then fails with that said ("1 of 2 runs meets the SLO"), even where
the baseline does not meet the SLO either (exit 0 would pass an unsettled build).
"""

from __future__ import annotations

from app.domain.regression import Finding
from app.domain.run_agreement import unsettled
from app.services.analysis import SweepAnalysis

LABEL = "runs agree on the SLO"


def borderline_finding(candidate: SweepAnalysis, baseline_meets: bool | None) -> Finding | None:
    """The finding that fails the check when the candidate is borderline by its runs
    (`baseline_meets`: whether the baseline meets the SLO, shown beside it)."""
    readoff = candidate.readoff
    if readoff.status == "pass" or readoff.shown_status != "borderline":
        return None
    verdict = unsettled(readoff.verdicts)
    if verdict is None or verdict.runs is None:
        return None
    why = candidate.intervals.borderline_reason if candidate.intervals else None
    meeting, runs = verdict.runs
    return Finding(
        "meets_slo",
        LABEL,
        baseline_meets,
        False,
        None,
        True,
        f"the candidate's SLO verdict is borderline: {why or f'{meeting} of {runs} runs'}; "
        "a borderline point is not a pass (measure it again, or with more runs)",
    )
