"""History: sweeps of one configuration over time, and repeated runs of a load as spreads."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.orm import Session

from app.domain.likeness import Likeness, between
from app.domain.repeats import Spread, spreads
from app.domain.sweep_meta import SweepMeta
from app.schemas.answers.typed.history import CheckMarkDict
from app.services.analysis import SweepAnalysis
from app.services.sweeps.likeness import describe, differences_json
from app.services.sweeps.sessions import is_multi_turn
from app.store import checks as check_store
from app.store import sweeps as sweep_queries

# One line per configuration: what app.domain.likeness compares (model, hardware, GPU count,
# precision, ISL/OSL, workload) plus the engine, whose changes a trend shows.
CONFIG_KEYS: tuple[str, ...] = (
    "hardware",
    "num_gpus",
    "model",
    "engine",
    "precision",
    "isl",
    "osl",
    "workload",
)
# A multi-turn run (agentic replay, chat) and a fixed-length one are never one line (issue 49),
# unless the query allows different scenarios: then they share one, its scenario "mixed".
SCENARIO = "scenario"
MIXED = "mixed"


@dataclass(frozen=True)
class HistoryRow:
    result: SweepAnalysis
    date: dt.date | None  # the measured date; None when the file did not say
    date_source: Literal["measured", "unknown"]
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
        """`8×H100 · llama-70b · vllm · fp8 · 1024/1024 · random`."""
        given = {k: v for k, v in self.config.items() if v not in (None, "")}
        gpus = given.pop("num_gpus", None)
        if "hardware" in given and gpus is not None:
            given["hardware"] = f"{gpus}×{given['hardware']}"
        isl, osl = given.pop("isl", None), given.pop("osl", None)
        parts = [str(given[k]) for k in ("hardware", "model", "engine", "precision") if k in given]
        if isl or osl:
            parts.append(f"{isl}/{osl}")
        if "workload" in given:
            parts.append(str(given["workload"]))
        if SCENARIO in given:
            mixed = given[SCENARIO] == MIXED
            parts.append("multi-turn and fixed-length mixed" if mixed else str(given[SCENARIO]))
        return " · ".join(parts)

    @property
    def multi_turn(self) -> bool:
        """Any of its sweeps is a multi-turn run: History shows its sessions and E2E speed."""
        return any(is_multi_turn(r.result.meta.scenario) for r in self.rows)


def scenario_of(meta: SweepMeta) -> str | None:
    """A multi-turn run's scenario; None for a fixed-length run (said or not)."""
    return meta.scenario if is_multi_turn(meta.scenario) else None


def config_of(meta: SweepMeta, mix_scenarios: bool = False) -> tuple[Any, ...]:
    scenario = () if mix_scenarios else (scenario_of(meta),)
    return (*(getattr(meta, k) for k in CONFIG_KEYS), *scenario)


def histories(
    results: list[SweepAnalysis], created: dict[int, dt.datetime], mix_scenarios: bool = False
) -> list[ConfigHistory]:
    """Sweeps grouped by configuration and scenario (multi-turn runs apart from fixed-length
    ones, unless `mix_scenarios`), each group ordered by measured date; undated last.

    An undated sweep keeps "date unknown": its upload date says when it was stored, not
    when it was measured, so plotting it there would invent a trend.
    """
    groups: dict[tuple[Any, ...], list[HistoryRow]] = {}
    for result in results:
        measured = result.meta.measured_at
        stamp = created.get(result.meta.id)
        uploaded = stamp.date() if stamp else None
        row = HistoryRow(
            result, measured, "measured" if measured is not None else "unknown", uploaded
        )
        groups.setdefault(config_of(result.meta, mix_scenarios), []).append(row)
    out = []
    for key, rows in groups.items():
        ordered = sorted(
            rows, key=lambda r: (r.date is None, r.date or dt.date.min, r.result.meta.id)
        )
        config = dict(zip(CONFIG_KEYS, key, strict=False))
        found = {scenario_of(r.result.meta) for r in rows}
        config[SCENARIO] = found.pop() if len(found) == 1 else MIXED
        out.append(ConfigHistory(config, tuple(ordered)))
    return sorted(out, key=lambda h: (-len(h.rows), h.label))


def repeated_runs(result: SweepAnalysis) -> list[Spread]:
    """Load levels of a sweep measured more than once, with their min–max spread."""
    loads = [p.concurrency if p.concurrency is not None else p.request_rate for p in result.points]
    return spreads(loads, result.xs, result.ys)


@dataclass(frozen=True)
class RegressionMark:
    """A check that found this sweep (its candidate) a regression from `baseline_id`, or (when
    `likeness` shows two configurations) one that compared it with another system."""

    check_id: int
    baseline_id: int
    baseline_ref: str
    created_at: dt.datetime | None
    headline: str
    likeness: Likeness = Likeness(())

    @property
    def regression(self) -> bool:
        return self.likeness.same_configuration

    def as_json(self) -> CheckMarkDict:
        return {
            "check_id": self.check_id,
            "baseline_sweep_id": self.baseline_id,
            "baseline_ref": self.baseline_ref,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "headline": self.headline,
            "same_configuration": self.likeness.same_configuration,
            "differences": differences_json(self.likeness),
        }


def check_marks(session: Session, sweep_ids: list[int]) -> dict[int, list[RegressionMark]]:
    """Stored checks that found a regression or made a comparison, by candidate sweep id,
    each with what differs between its candidate and baseline as they are described now."""
    found = check_store.regressions_by_candidate(
        session, sweep_ids, verdicts=("regression", "comparison")
    )
    baselines = {c.baseline_id for checks in found.values() for c in checks}
    described = {
        s.id: describe(s)
        for s in sweep_queries.sweeps_in_order(session, sorted(baselines | set(found)))
    }
    out: dict[int, list[RegressionMark]] = {}
    for sweep_id, checks in found.items():
        for c in checks:
            if c.baseline_id not in described or sweep_id not in described:
                continue
            likeness = between(described[sweep_id], described[c.baseline_id])
            if c.verdict == "regression" or not likeness.same_configuration:
                mark = RegressionMark(
                    c.id, c.baseline_id, c.baseline_ref, c.created_at, c.headline, likeness
                )
                out.setdefault(sweep_id, []).append(mark)
    return out


def regression_marks(
    marks: dict[int, list[RegressionMark]], regression: bool = True
) -> dict[int, list[RegressionMark]]:
    """Only the regressions (one configuration), or only the comparisons (two)."""
    kept = {i: [m for m in found if m.regression == regression] for i, found in marks.items()}
    return {i: found for i, found in kept.items() if found}
