"""Upload glue shared by the API, the web form and the CLI: parse, then store all or nothing."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.domain.columns import COLUMNS_BY_NAME, SOURCE_KINDS, SWEEP_COLUMN_NAMES
from app.ingest import IngestError, Limits, ParsedSweep, RowError, UploadFile, parse_upload
from app.ingest.limits import SWEEP_TEXT_LIMITS, int_problem, text_problem
from app.services.catalog import match_parsed, match_warnings
from app.services.errors import Invalid
from app.services.tags import checked_tags
from app.store import sweeps as q
from app.store import tags as tag_store
from app.store.catalog import HardwareMatch

# Form fields and CLI options that fill sweep-level values a file leaves out.
FORM_FIELDS: tuple[str, ...] = SWEEP_COLUMN_NAMES


def parse_defaults(fields: Mapping[str, str | None], source: str = "(form)") -> dict[str, Any]:
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
            errors.append(RowError(source, str(exc), column=name))
            continue
        # The same bounds as values from a file: what SQLite would keep, Postgres must too.
        problem = (
            text_problem(value, SWEEP_TEXT_LIMITS.get(name, 10_000))
            if isinstance(value, str)
            else int_problem(value)
        )
        if problem:
            errors.append(RowError(source, problem, column=name))
        else:
            defaults[name] = value
    if "num_gpus" in defaults and defaults["num_gpus"] <= 0:
        errors.append(RowError(source, "must be greater than 0", column="num_gpus"))
    if defaults.get("source_kind") not in (None, *SOURCE_KINDS):
        errors.append(RowError(source, f"must be one of {SOURCE_KINDS}", column="source_kind"))
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


def limits_for(max_unpacked_bytes: int) -> Limits:
    """Ingest bounds from the settings (PARETOSCOPE_MAX_UNPACKED_MB; 10× the upload cap)."""
    return Limits(max_unpacked_bytes=max_unpacked_bytes)


def _shown(raw: str) -> str:
    """A bad value as quoted in a message: long ones cut, so a 5,000-digit "number" is not
    echoed back whole."""
    return repr(raw if len(raw) <= 40 else raw[:40] + "…")


@dataclass
class Preview:
    """Parsed sweeps, each with what its hardware name matched in the catalog."""

    sweeps: list[ParsedSweep]
    matches: list[HardwareMatch | None]
    warnings: list[str] = field(default_factory=list)


@dataclass
class Stored:
    saved: list[q.SavedSweep]
    warnings: list[str] = field(default_factory=list)  # hardware matched or left as typed


def preview(
    session: Session,
    files: list[UploadFile],
    fields: Mapping[str, str | None],
    limits: Limits | None = None,
) -> Preview:
    """Parse without requiring sweep name, hardware or GPU count: the preview asks for them."""
    defaults = parse_defaults(fields)
    parsed = parse_upload(files, defaults, require_meta=False, limits=limits or Limits())
    matches = match_parsed(session, parsed)
    return Preview(parsed, matches, match_warnings(matches))


def store(
    session: Session,
    files: list[UploadFile],
    fields: Mapping[str, str | None],
    limits: Limits | None = None,
    tags: list[str] | None = None,
) -> list[q.SavedSweep]:
    """Parse every file and store every sweep in one transaction, or nothing at all."""
    return store_checked(session, files, fields, limits, tags).saved


def store_checked(
    session: Session,
    files: list[UploadFile],
    fields: Mapping[str, str | None],
    limits: Limits | None = None,
    tags: list[str] | None = None,
) -> Stored:
    """`store`, with the warnings of hardware matching (every upload path goes through here).

    `tags` (form values, comma or space separated) go on every sweep of the upload, existing
    ones included, in the same transaction."""
    tag_list = upload_tags(tags or [])
    parsed = parse_upload(files, parse_defaults(fields), limits=limits or Limits())
    warnings = match_warnings(match_parsed(session, parsed))
    try:
        saved = _save(session, parsed, tag_list)
    except IntegrityError as exc:
        session.rollback()
        if not q.is_duplicate_race(exc):
            raise
        # A concurrent upload of the same content won the race: answer with its sweeps.
        saved = _save(session, parsed, tag_list)
    return Stored(saved, warnings)


def upload_tags(values: list[str]) -> list[str]:
    """Tags of an upload, refused like any other bad form field (nothing is stored)."""
    try:
        return checked_tags(values, split=True)
    except Invalid as exc:
        raise IngestError([RowError("(form)", exc.message, column="tags")]) from None


def _save(session: Session, parsed: list[ParsedSweep], tags: list[str]) -> list[q.SavedSweep]:
    saved = q.save_parsed(session, parsed)
    for sweep_id in dict.fromkeys(s.sweep.id for s in saved):
        tag_store.add_tags(session, sweep_id, tags)
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
