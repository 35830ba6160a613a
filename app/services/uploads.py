"""Upload glue shared by the API, the web form and the CLI: parse, then store all or nothing."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.domain.columns import COLUMNS_BY_NAME, SOURCE_KINDS, SWEEP_COLUMN_NAMES
from app.ingest import IngestError, ParsedSweep, RowError, UploadFile, parse_upload
from app.schemas.bounds import DB_INT_MAX
from app.store import sweeps as q

# Form fields and CLI options that fill sweep-level values a file leaves out.
FORM_FIELDS: tuple[str, ...] = SWEEP_COLUMN_NAMES


def parse_defaults(fields: Mapping[str, str | None]) -> dict[str, Any]:
    """Typed sweep-level defaults from form fields; a bad value names the field."""
    defaults: dict[str, Any] = {}
    errors: list[RowError] = []
    for name in FORM_FIELDS:
        raw = (fields.get(name) or "").strip()
        if not raw:
            continue
        kind = COLUMNS_BY_NAME[name].kind
        try:
            defaults[name] = _typed(kind, raw)
            if kind == "int" and abs(defaults[name]) > DB_INT_MAX:
                raise ValueError(f"must be at most {DB_INT_MAX}")
        except ValueError as exc:
            errors.append(RowError("(form)", str(exc), column=name))
    if "num_gpus" in defaults and defaults["num_gpus"] <= 0:
        errors.append(RowError("(form)", "must be greater than 0", column="num_gpus"))
    if defaults.get("source_kind") not in (None, *SOURCE_KINDS):
        errors.append(RowError("(form)", f"must be one of {SOURCE_KINDS}", column="source_kind"))
    if errors:
        raise IngestError(errors)
    return defaults


def _typed(kind: str, raw: str) -> Any:
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{raw!r} is not a whole number") from None
    if kind == "date":
        try:
            return dt.date.fromisoformat(raw)
        except ValueError:
            raise ValueError(f"{raw!r} is not a date (YYYY-MM-DD)") from None
    return raw


def preview(files: list[UploadFile], fields: Mapping[str, str | None]) -> list[ParsedSweep]:
    """Parse without requiring sweep name, hardware or GPU count: the preview asks for them."""
    return parse_upload(files, parse_defaults(fields), require_meta=False)


def store(
    session: Session, files: list[UploadFile], fields: Mapping[str, str | None]
) -> list[q.SavedSweep]:
    """Parse every file and store every sweep in one transaction, or nothing at all."""
    parsed = parse_upload(files, parse_defaults(fields))
    try:
        saved = q.save_parsed(session, parsed)
        session.commit()
    except IntegrityError as exc:
        session.rollback()
        if not q.is_duplicate_race(exc):
            raise
        # A concurrent upload of the same content won the race: answer with its sweeps.
        saved = q.save_parsed(session, parsed)
        session.commit()
    return saved


def saved_json(saved: list[q.SavedSweep], session: Session) -> list[dict[str, Any]]:
    counts = q.point_counts(session, [s.sweep.id for s in saved])
    return [
        {
            "id": s.sweep.id,
            "name": s.sweep.name,
            "points": counts.get(s.sweep.id, 0),
            "created": s.created,
        }
        for s in saved
    ]
