"""Sweep-list filters and metadata edits, shared by the sweep pages and their JSON twins."""

from __future__ import annotations

from typing import Any

from app.domain.bounds import text_problem
from app.domain.sweep_fields import EDITABLE, REQUIRED_META
from app.ingest import IngestError, RowError
from app.schemas.sweeps import SweepQuery
from app.services.upload.fields import parse_defaults
from app.store.sweep_search import SweepFilters


def sweep_filters(query: SweepQuery) -> SweepFilters:
    """The store's filters for a sweep-list query (an empty field filters nothing)."""
    return SweepFilters(
        model=query.model or None,
        hardware=query.hardware or None,
        engine=query.engine or None,
        precision=query.precision or None,
        source_kind=query.source_kind or None,
        isl=query.isl,
        osl=query.osl,
        q=query.q or None,
    )


def sweep_changes(body: dict[str, Any]) -> dict[str, Any]:
    """Validated metadata edits; `name` is accepted for `sweep`. Empty clears optional fields."""
    body = {("sweep" if k == "name" else k): v for k, v in body.items()}
    # A key or value no database can store (a lone surrogate, a NUL) is refused by name first:
    # it would otherwise reach the database, or an error message that cannot be written.
    bad = [
        RowError("(request)", problem, column=_shown(k))
        for k, v in body.items()
        for problem in [text_problem(k) or (text_problem(v) if isinstance(v, str) else None)]
        if problem
    ]
    if bad:
        raise IngestError(bad)
    unknown = sorted(set(body) - set(EDITABLE))
    if unknown:
        raise IngestError(
            [RowError("(request)", "not an editable sweep field", column=k) for k in unknown]
        )
    typed = parse_defaults(
        {k: None if v is None else str(v) for k, v in body.items()}, source="(request)"
    )
    changes: dict[str, Any] = {}
    errors: list[RowError] = []
    for key in body:
        if key in typed:
            changes[key] = typed[key]
        elif key in REQUIRED_META:
            errors.append(RowError("(request)", "is required and cannot be empty", column=key))
        else:
            changes[key] = None
    if errors:
        raise IngestError(errors)
    return changes


def _shown(key: str) -> str:
    return key[:100].encode("utf-8", "backslashreplace").decode()
