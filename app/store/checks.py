"""Checks that `paretoscope check` (or POST /api/check) ran, for History's regression marks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import SweepCheck


@dataclass(frozen=True)
class CheckRecord:
    """One check as stored: the two sweeps (id and the reference the user gave), the options
    it ran with, its verdict and the document's headline and summary."""

    candidate_id: int
    baseline_id: int
    candidate_ref: str
    baseline_ref: str
    options: dict[str, Any]
    verdict: str
    headline: str
    summary: str


def save_check(session: Session, record: CheckRecord) -> SweepCheck:
    check = SweepCheck(
        candidate_id=record.candidate_id,
        baseline_id=record.baseline_id,
        candidate_ref=record.candidate_ref[:300],
        baseline_ref=record.baseline_ref[:300],
        options=record.options,
        verdict=record.verdict,
        headline=record.headline[:500],
        summary=record.summary,
    )
    session.add(check)
    session.flush()
    return check


def regressions_by_candidate(
    session: Session, sweep_ids: Iterable[int], verdicts: tuple[str, ...] = ("regression",)
) -> dict[int, list[SweepCheck]]:
    """Checks with one of these verdicts (a regression, unless told), by candidate sweep id,
    oldest first."""
    ids = list(sweep_ids)
    if not ids:
        return {}
    rows = session.scalars(
        select(SweepCheck)
        .where(SweepCheck.candidate_id.in_(ids), SweepCheck.verdict.in_(verdicts))
        .order_by(SweepCheck.created_at, SweepCheck.id)
    )
    out: dict[int, list[SweepCheck]] = {}
    for check in rows:
        out.setdefault(check.candidate_id, []).append(check)
    return out
