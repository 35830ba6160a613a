"""Upload form fields typed as sweep columns: what the page, the API and the CLI give beside the
files, checked with the same bounds as values from a file."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from app.domain.columns import COLUMNS_BY_NAME, PROVENANCES, SOURCE_KINDS, SWEEP_COLUMN_NAMES
from app.domain.provenance import valid_provenance
from app.domain.sweep_fields import SWEEP_TEXT_LIMITS
from app.ingest import IngestError, RowError
from app.ingest.errors import FIELD_SOURCE
from app.ingest.limits import int_problem, text_problem

# Form fields and CLI options that fill sweep-level values a file leaves out.
FORM_FIELDS: tuple[str, ...] = SWEEP_COLUMN_NAMES


def parse_defaults(fields: Mapping[str, str | None], source: str = FIELD_SOURCE) -> dict[str, Any]:
    """Typed sweep-level defaults from form fields; a bad value names the field (and `source`,
    where the fields came from)."""
    defaults: dict[str, Any] = {}
    errors: list[RowError] = []
    for name in FORM_FIELDS:
        raw = (fields.get(name) or "").strip()
        if not raw:
            continue
        kind = COLUMNS_BY_NAME[name].kind
        try:
            value = _typed(kind, raw)
        except ValueError as exc:
            errors.append(RowError(source, str(exc), column=name, field=name))
            continue
        # The same bounds as values from a file: what SQLite would keep, Postgres must too.
        problem = (
            text_problem(value, SWEEP_TEXT_LIMITS.get(name, 10_000))
            if isinstance(value, str)
            else int_problem(value)
        )
        if problem:
            errors.append(RowError(source, problem, column=name, field=name))
        else:
            defaults[name] = value
    if "num_gpus" in defaults and defaults["num_gpus"] <= 0:
        errors.append(
            RowError(source, "must be greater than 0", column="num_gpus", field="num_gpus")
        )
    if defaults.get("source_kind") not in (None, *SOURCE_KINDS):
        errors.append(
            RowError(
                source, f"must be one of {SOURCE_KINDS}", column="source_kind", field="source_kind"
            )
        )
    if not valid_provenance(defaults.get("provenance")):
        errors.append(
            RowError(
                source, f"must be one of {PROVENANCES}", column="provenance", field="provenance"
            )
        )
    if errors:
        raise IngestError(errors)
    return defaults


def _typed(kind: str, raw: str) -> Any:
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{_shown(raw)} is not a whole number") from None
    if kind == "date":
        try:
            return dt.date.fromisoformat(raw)
        except ValueError:
            raise ValueError(f"{_shown(raw)} is not a date (YYYY-MM-DD)") from None
    return raw


def _shown(raw: str) -> str:
    """A bad value as quoted in a message: long ones cut, so a 5,000-digit "number" is not
    echoed back whole."""
    return repr(raw if len(raw) <= 40 else raw[:40] + "…")
