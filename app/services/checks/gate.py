"""`paretoscope check` and POST /api/check: is a candidate sweep a regression from its baseline?

Both sweeps are read off at the same SLO and prices (exactly as /api/readoff does), compared by
the rules in app.domain.regression, and the check is stored so that History can mark it.

Like with like (app.domain.likeness): only two sweeps of one configuration can regress. A
different model, workload, ISL/OSL or a demo/mock source against a measured one is refused
unless `allow_different`; a different hardware, GPU count or precision (or an allowed
difference) makes the check a "comparison": its changes are reported, never as a regression.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import urlencode

from sqlalchemy.orm import Session

from app.domain import regression
from app.domain.covariates import warnings
from app.domain.gate_ratio import GateRatio
from app.domain.likeness import Likeness
from app.domain.regression import Interval, Outcome, Side
from app.schemas.answers.typed.check import (
    CaveatOutDict,
    CheckAnswerDict,
    CheckDocumentDict,
    CheckedSweepDict,
    FindingDict,
    FindingIntervalDict,
    GateRatioOutDict,
)
from app.schemas.answers.typed.readoff import ReadoffRowDict
from app.schemas.bounds import MAX_ID
from app.schemas.check import CheckQuery
from app.services.analysis import Params, SweepAnalysis
from app.services.checks import matched as check_matched
from app.services.checks import report as check_report
from app.services.checks import runs as check_runs
from app.services.checks.frontier import NO_SHARED, frontier_finding
from app.services.checks.ratio import goodput_ratio
from app.services.errors import Invalid
from app.services.readoff import price_columns
from app.services.readoff.document import price_cells_json, result_json, run_query, slo_json
from app.services.sweeps import likeness
from app.services.sweeps.likeness import differences_json
from app.store import checks as check_store
from app.store import tags as tag_store
from app.store.models import Sweep

# Fields of the check itself; every other field is a read-off option (SLO, prices).
CHECK_FIELDS = (
    "candidate", "baseline", "tolerance", "base_url", "allow_different", "scope", "share",
)  # fmt: skip


@dataclass(frozen=True)
class Resolved:
    ref: str  # as given
    sweep_id: int
    name: str
    via: Literal["id", "tag", "name"]


@dataclass(frozen=True)
class CheckReport:
    query: CheckQuery
    candidate: Resolved
    baseline: Resolved
    outcome: Outcome
    document: CheckDocumentDict  # the JSON answer, summary and headline included
    likeness: Likeness | None = None
    check_id: int | None = None  # once stored (`run`)

    @property
    def answer(self) -> CheckAnswerDict:
        """The stored check's answer: its document and its id."""
        if self.check_id is None:
            raise ValueError("the check is not stored: evaluate() answers its document alone")
        return {**self.document, "check_id": self.check_id}

    @property
    def verdict(self) -> str:
        """pass, regression, or comparison (the two are not one configuration)."""
        return self.document["verdict"]

    @property
    def exit_code(self) -> int:
        return 1 if self.verdict == "regression" else 0


class NothingToCompare(Invalid):
    """The check has nothing to compare (no shared interactivity range, or neither sweep meets
    the SLO): its verdict is unknown, never a pass (exit 2, 422)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(field, f"unknown: {reason}")
        self.reason = reason


class DifferentWork(Invalid):
    """The candidate and baseline measure different work (or a demo/mock against a measured
    sweep) and `allow_different` was not given; `likeness` lists every difference."""

    def __init__(self, reason: str, found: Likeness) -> None:
        super().__init__("allow_different", f"{reason}; set allow_different to compare them")
        self.reason = reason
        self.likeness = found


def resolve(session: Session, ref: str, field: str) -> Resolved:
    """A sweep named by id (digits), by tag (the newest sweep carrying it), or by its name."""
    text = ref.strip()
    if text.isascii() and text.isdigit():  # not '³', which isdigit() but int() refuses
        sweep_id = int(text) if len(text) <= 10 else 0
        sweep = session.get(Sweep, sweep_id) if 1 <= sweep_id <= MAX_ID else None
        if sweep is None:
            raise Invalid(field, f"no sweep {text[:20]}")
        return Resolved(ref, sweep.id, sweep.name, "id")
    tagged = tag_store.newest_with_tag(session, text)
    if tagged is not None:
        return Resolved(ref, tagged.id, tagged.name, "tag")
    named = tag_store.sweeps_named(session, text)
    if len(named) == 1:
        return Resolved(ref, named[0].id, named[0].name, "name")
    shown = repr(text if len(text) <= 60 else text[:60] + "…")
    if named:
        ids = ", ".join(str(s.id) for s in named)
        raise Invalid(field, f"{shown} names several sweeps ({ids}): give an id or a tag")
    raise Invalid(field, f"no sweep has the id, tag or name {shown}")


def interval_of(entry: Mapping[str, Any] | None) -> Interval | None:
    """The one place that reads an interval, in helper "ci"'s layout: `ci_low`, `ci_high`,
    `ci_level`, `ci_method` on a figure's entry. A missing entry, a null end or a null level
    is no interval."""
    if not entry:
        return None
    low, high, level = entry.get("ci_low"), entry.get("ci_high"), entry.get("ci_level")
    if low is None or high is None or level is None:  # the figures always give all three
        return None
    return Interval(float(low), float(high), float(level), entry.get("ci_method"))


def side_of(result: Mapping[str, Any]) -> Side:
    """The figures the rules compare, from a read-off result as /api/readoff gives it."""
    cells = result.get("price_cells") or []
    return Side(
        meets_slo=result.get("meets_slo"),
        goodput_tok_s_per_gpu=result.get("goodput_tok_s_per_gpu"),
        goodput_interval=interval_of((result.get("intervals") or {}).get("goodput_tok_s_per_gpu")),
        usd_per_mtok={c["label"]: c.get("usd_per_mtok") for c in cells},
        usd_per_mtok_interval={c["label"]: interval_of(c) for c in cells},
        usd_per_mtok_reason={c["label"]: c.get("reason") for c in cells},
    )


def run(session: Session, query: CheckQuery, base_url: str | None = None) -> CheckReport:
    """Resolve, read off, compare and store the check (in the caller's transaction); its
    answer carries the stored `check_id`. Raises as `evaluate` does."""
    report = evaluate(session, query, base_url)
    document = report.document
    record = check_store.CheckRecord(
        candidate_id=report.candidate.sweep_id,
        baseline_id=report.baseline.sweep_id,
        candidate_ref=report.candidate.ref,
        baseline_ref=report.baseline.ref,
        options=query.model_dump(mode="json", exclude={"candidate", "baseline", "base_url"}),
        verdict=report.verdict,
        headline=document["headline"],
        summary=document["summary"],
    )
    return replace(report, check_id=check_store.save_check(session, record).id)


def evaluate(session: Session, query: CheckQuery, base_url: str | None = None) -> CheckReport:
    """Resolve, read off and compare, storing nothing (the MCP `check` tool reads only).

    Raises Invalid (naming `candidate` or `baseline`) when a sweep is unknown, or when its SLO
    status is unknown at this SLO: the data cannot answer, which is not a pass."""
    baseline = resolve(session, query.baseline, "baseline")
    candidate = resolve(session, query.candidate, "candidate")
    found = likeness.of_sweeps(session, [candidate.sweep_id, baseline.sweep_id])
    if found.different_work and not query.allow_different:
        raise DifferentWork(
            f"sweep {candidate.sweep_id} ({candidate.name}) and sweep {baseline.sweep_id} "
            f"({baseline.name}) do not measure the same work ({found.text}): a change "
            "between them is not a regression",
            found,
        )
    ids = list(dict.fromkeys([baseline.sweep_id, candidate.sweep_id]))
    params, results, columns = run_query(session, ids, query)
    docs: dict[int, ReadoffRowDict] = {
        int(r.meta.id): {
            # A check's rows leave out the read-off's optional TTFT-by-prompt-length and
            # histogram figures (mypy asks every optional key of a target in some ** item).
            **result_json(r),  # type: ignore[typeddict-item]
            "price_cells": price_cells_json(price_columns.price_cells(r, columns), r),
        }
        for r in results
    }
    pair = _Pair(baseline, candidate, docs[baseline.sweep_id], docs[candidate.sweep_id])
    by_id = {int(r.meta.id): r for r in results}
    b, c = by_id[baseline.sweep_id], by_id[candidate.sweep_id]
    outcome = _settled(pair, _outcome(session, query, pair, (b, c), params), c)
    findings = outcome.findings
    if not found.same_configuration:
        # Two configurations: what moved is a comparison between systems, not a regression.
        findings = tuple(replace(f, regression=False) for f in findings)
    document: CheckDocumentDict = {
        "verdict": _verdict(outcome, found.same_configuration),
        "same_configuration": found.same_configuration,
        "differences": differences_json(found),
        "caveats": _caveats(results, candidate.sweep_id, baseline.sweep_id),
        "allow_different": query.allow_different,
        "scope": query.scope,
        "tolerance": query.tolerance,
        "share": query.share,
        "slo": slo_json(query, params),
        "price_columns": [c.label for c in columns],
        "candidate": _side_json(candidate, pair.cand_doc),
        "baseline": _side_json(baseline, pair.base_doc),
        "findings": [finding_json(f) for f in findings],
        "regressions": [f.label for f in findings if f.regression],
        "compare_url": compare_url(query, baseline.sweep_id, candidate.sweep_id, base_url),
        "headline": "",  # from the rest of the document, next
        "summary": "",
    }
    document["headline"] = check_report.headline(document)
    document["summary"] = check_report.markdown(document)
    return CheckReport(query, candidate, baseline, outcome, document, found)


@dataclass(frozen=True)
class _Pair:
    """The two sweeps of a check and their read-off documents."""

    baseline: Resolved
    candidate: Resolved
    base_doc: ReadoffRowDict
    cand_doc: ReadoffRowDict


def _outcome(
    session: Session,
    query: CheckQuery,
    pair: _Pair,
    analysed: tuple[SweepAnalysis, SweepAnalysis],
    params: Params,
) -> Outcome:
    """The comparison by the check's scope: the frontiers, or the figures at the SLO."""
    b, c = analysed
    if query.scope == "frontier":
        finding = frontier_finding(session, b, c, params, query.tolerance, query.share)
        if finding.baseline is None or finding.candidate is None:
            raise NothingToCompare(
                "scope",
                f"{finding.note or NO_SHARED} between {_both(pair.baseline, pair.candidate)}",
            )
        return Outcome("regression" if finding.regression else "pass", (finding,))
    noise, at_load = check_matched.matched(b, c, params)
    b_side, c_side = side_of(pair.base_doc), side_of(pair.cand_doc)
    shown = (b_side.goodput_tok_s_per_gpu, c_side.goodput_tok_s_per_gpu)
    ratio = goodput_ratio(b, c, params, shown)
    return regression.compare(b_side, c_side, query.tolerance, noise, at_load, ratio)


def _settled(pair: _Pair, outcome: Outcome, candidate: SweepAnalysis) -> Outcome:
    """The outcome with a borderline candidate as a regression; raises when it is unknown."""
    baseline, base_doc = pair.baseline, pair.base_doc
    unsettled = check_runs.borderline_finding(candidate, base_doc.get("meets_slo"))
    if outcome.verdict == "unknown" and outcome.reason == regression.NEITHER:
        # Unknown, never a pass; a candidate borderline by its runs says so.
        runs = f"; {unsettled.note}" if unsettled is not None else ""
        raise NothingToCompare(
            "candidate", f"{outcome.reason} ({_both(baseline, pair.candidate)}){runs}"
        )
    if outcome.verdict == "unknown":
        field, who, doc = (
            ("baseline", baseline, base_doc)
            if base_doc.get("meets_slo") is None
            else ("candidate", pair.candidate, pair.cand_doc)
        )
        raise Invalid(
            field,
            f"sweep {who.sweep_id} ({who.name}) cannot be checked at this SLO: its status is "
            f"unknown ({doc.get('reason') or 'not measured'})",
        )
    if unsettled is not None:  # a borderline candidate is not a pass (app.services.checks.runs)
        outcome = replace(outcome, verdict="regression", findings=(*outcome.findings, unsettled))
    return outcome


def _both(baseline: Resolved, candidate: Resolved) -> str:
    return (
        f"sweep {candidate.sweep_id} ({candidate.name}) and sweep {baseline.sweep_id} "
        f"({baseline.name})"
    )


def compare_url(
    query: CheckQuery, baseline_id: int, candidate_id: int, base_url: str | None
) -> str:
    """Compare with the baseline first, at the check's SLO and prices."""
    options = query.model_dump(
        exclude_none=True, exclude_defaults=True, exclude={*CHECK_FIELDS, "points"}
    )
    pairs: list[tuple[str, Any]] = [
        ("sweep", i) for i in dict.fromkeys([baseline_id, candidate_id])
    ]
    pairs += [("picked", 1), ("preset", "custom")]
    for key, value in options.items():
        values = value if isinstance(value, list) else [value]
        pairs.extend((key, v) for v in values)
    root = (query.base_url or base_url or "").rstrip("/")
    return f"{root}/compare?{urlencode(pairs)}"


def _side_json(who: Resolved, doc: ReadoffRowDict) -> CheckedSweepDict:
    return {"ref": who.ref, "resolved_by": who.via, **doc}


def _verdict(
    outcome: Outcome, same_configuration: bool
) -> Literal["pass", "regression", "comparison"]:
    """Two configurations make a comparison; one is judged pass or regression (an unknown
    outcome was refused before: `_settled`)."""
    if not same_configuration:
        return "comparison"
    if outcome.verdict == "unknown":
        raise ValueError("an unknown outcome is refused before its document is written")
    return outcome.verdict


def _interval_json(iv: Interval | None) -> FindingIntervalDict | None:
    if iv is None:
        return None
    found: FindingIntervalDict = {
        "ci_low": iv.low,
        "ci_high": iv.high,
        "ci_level": iv.level,
        "ci_method": iv.method,
    }
    return found


def finding_json(f: regression.Finding) -> FindingDict:
    return {
        "figure": f.figure,
        "label": f.label,
        "baseline": f.baseline,
        "candidate": f.candidate,
        "change": f.change,
        "regression": f.regression,
        "note": f.note,
        "baseline_interval": _interval_json(f.baseline_interval),
        "candidate_interval": _interval_json(f.candidate_interval),
        "ratio": _ratio_json(f.ratio),
    }


def _ratio_json(ratio: GateRatio | None) -> GateRatioOutDict | None:
    """The goodput's candidate ÷ baseline and its own interval: what the gate judges."""
    if ratio is None:
        return None
    return {
        "value": ratio.value,
        "ci_low": ratio.low,
        "ci_high": ratio.high,
        "ci_level": ratio.level,
        "ci_method": ratio.method,
        "ci_reason": ratio.reason,
        "paired": ratio.paired,
        "n_baseline": ratio.n_baseline,
        "n_candidate": ratio.n_candidate,
    }


def _caveats(results: list[SweepAnalysis], candidate: int, baseline: int) -> list[CaveatOutDict]:
    """Split, speculative method, acceptance or prefix-cache differences, candidate first."""
    by_id = {int(r.meta.id): r.covariates for r in results}
    a, b = by_id.get(candidate), by_id.get(baseline)
    if a is None or b is None or candidate == baseline:
        return []
    return [{"kind": c.kind, "text": c.text} for c in warnings(a, b)]
