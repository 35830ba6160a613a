"""Like with like, for the services: stored sweeps described for app.domain.likeness.

check, Compare, Plan, History and the frontier leaders all ask `app.domain.likeness` what
differs; this module only reads the descriptions it needs from sweep rows."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.domain import likeness
from app.domain.likeness import Likeness
from app.schemas.answers.typed.common import DifferenceDict
from app.store import sweeps as sweep_queries
from app.store.models import Sweep

DESCRIPTION = (
    "model",
    "hardware",
    "num_gpus",
    "precision",
    "isl",
    "osl",
    "workload",
    "source_kind",
    "engine",
    "scenario",
)


def describe(sweep: Sweep) -> dict[str, Any]:
    """What likeness reads of a sweep row."""
    return {name: getattr(sweep, name) for name in DESCRIPTION}


def of_sweeps(session: Session, sweep_ids: list[int]) -> Likeness:
    """What differs among these stored sweeps, in the order given."""
    sweeps = sweep_queries.sweeps_in_order(session, sweep_ids)
    return likeness.between(*(describe(s) for s in sweeps))


def differences_json(found: Likeness) -> list[DifferenceDict]:
    """Every difference as the answers give it (`differences`), in the likeness's order."""
    return [
        {
            "field": d.field,
            "label": d.label,
            "kind": d.kind,
            "values": list(d.values),
            "differs": d.differs,
            "text": d.text,
        }
        for d in found.differences
    ]
