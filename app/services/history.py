"""History: sweeps of one configuration over time, and repeated runs of a load as spreads."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.domain.repeats import Spread, spreads
from app.services.analysis import SweepAnalysis
from app.store import checks as check_store

CONFIG_KEYS: tuple[str, ...] = ("hardware", "model", "engine", "precision", "isl", "osl")


@dataclass(frozen=True)
class HistoryRow:
    result: SweepAnalysis
    date: dt.date | None  # the measured date; None when the file did not say
    date_source: str  # "measured" or "unknown"
    uploaded: dt.date | None = None

    @property
    def dated(self) -> bool:
        return self.date is not None


@dataclass(frozen=True)
class ConfigHistory:
    config: dict[str, Any]
    rows: tuple[HistoryRow, ...]  # oldest first

    @property
    def label(self) -> str:
        parts = [str(self.config[k]) for k in CONFIG_KEYS if self.config.get(k) not in (None, "")]
        isl, osl = self.config.get("isl"), self.config.get("osl")
        if isl or osl:
            parts = [p for p in parts if p not in (str(isl), str(osl))] + [f"{isl}/{osl}"]
        return " · ".join(parts)


def config_of(meta: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(meta.get(k) for k in CONFIG_KEYS)


def histories(results: list[SweepAnalysis], created: dict[int, dt.datetime]) -> list[ConfigHistory]:
    """Sweeps grouped by configuration, each group ordered by measured date; undated last.

    An undated sweep keeps "date unknown": its upload date says when it was stored, not
    when it was measured, so plotting it there would invent a trend.
    """
    groups: dict[tuple[Any, ...], list[HistoryRow]] = {}
    for result in results:
        measured = result.meta.get("measured_at")
        stamp = created.get(result.meta["id"])
        uploaded = stamp.date() if stamp else None
        source = "measured" if measured is not None else "unknown"
        row = HistoryRow(result, measured, source, uploaded)
        groups.setdefault(config_of(result.meta), []).append(row)
    out = []
    for key, rows in groups.items():
        ordered = sorted(
            rows, key=lambda r: (r.date is None, r.date or dt.date.min, r.result.meta["id"])
        )
        out.append(ConfigHistory(dict(zip(CONFIG_KEYS, key, strict=True)), tuple(ordered)))
    return sorted(out, key=lambda h: (-len(h.rows), h.label))


def repeated_runs(result: SweepAnalysis) -> list[Spread]:
    """Load levels of a sweep measured more than once, with their min–max spread."""
    loads = [p.concurrency if p.concurrency is not None else p.request_rate for p in result.points]
    return spreads(loads, result.xs, result.ys)


@dataclass(frozen=True)
class RegressionMark:
    """A check that found this sweep (its candidate) a regression from `baseline_id`."""

    check_id: int
    baseline_id: int
    baseline_ref: str
    created_at: dt.datetime | None
    headline: str

    def as_json(self) -> dict[str, Any]:
        return {
            "check_id": self.check_id,
            "baseline_sweep_id": self.baseline_id,
            "baseline_ref": self.baseline_ref,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "headline": self.headline,
        }


def regression_marks(session: Session, sweep_ids: list[int]) -> dict[int, list[RegressionMark]]:
    """Regressions that stored checks found, by candidate sweep id (checks that passed: none)."""
    return {
        sweep_id: [
            RegressionMark(c.id, c.baseline_id, c.baseline_ref, c.created_at, c.headline)
            for c in checks
        ]
        for sweep_id, checks in check_store.regressions_by_candidate(session, sweep_ids).items()
    }
