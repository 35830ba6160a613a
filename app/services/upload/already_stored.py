"""An upload's sweeps that are stored already: the same content (saving leaves the sweep as it
is), or the same measurements under other details (the page offers to update that sweep's
details instead of storing a second copy of the measurements).

Stored sweeps keep the content hash of the description they were uploaded with, so the
measurements are recognised by hashing the upload's points under a stored sweep's description:
equal to its hash means equal measurements. The candidates are the stored sweeps of the same
file name, at most CANDIDATES of them per file (those of the same name first), and HASHES
descriptions tried per upload. The upload's warnings that went into a sweep's
notes are left off again, as migration 0013 does. A sweep edited since it was stored is not
recognised (its description as uploaded is gone); its file then stores a new sweep.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.ingest import ParsedSweep
from app.ingest.sample_digest import VALUES
from app.store import sweep_save
from app.store import sweeps as q
from app.store.models import Sweep
from app.store.sample_digest_formats import stored_by_hash

CANDIDATES = 20
NOTE_LINES_TRIED = 8  # trailing note lines an upload's warnings may have added
HASHES = 2_000  # descriptions tried per upload at most: a preview stays quick


@dataclass(frozen=True)
class StoredAs:
    """The stored sweep an upload's sweep is: same details too (`same`) or other details."""

    sweep_id: int
    name: str
    same: bool
    # The description the stored sweep was uploaded with (found by its measurements only).
    details: dict[str, Any] = field(default_factory=dict, compare=False)


def find(session: Session, parsed: list[ParsedSweep]) -> list[StoredAs | None]:
    """For each sweep (details applied, hardware matched), the stored sweep it already is."""
    digests = [item.content_hash() for item in parsed]
    exact = stored_by_hash(session, parsed, digests, move=False)
    out: list[StoredAs | None] = [
        StoredAs(exact[d].id, exact[d].name, True) if d in exact else None for d in digests
    ]
    files = sorted({p.source_file for p, o in zip(parsed, out, strict=True) if o is None})
    if not files:
        return out
    by_file: dict[str, list[Sweep]] = {}
    query = select(Sweep).where(Sweep.source_file.in_(files)).order_by(Sweep.id.desc())
    for sweep in session.scalars(query.limit(CANDIDATES * len(files) + 1)):
        by_file.setdefault(sweep.source_file or "", []).append(sweep)
    budget = HASHES
    for i, item in enumerate(parsed):
        candidates = by_file.get(item.source_file, [])[:CANDIDATES]
        if out[i] is not None or not candidates:
            continue
        candidates.sort(key=lambda s: s.name != item.name)
        tries = [(s, meta) for s in candidates for meta in _as_uploaded(s)]
        if len(tries) > budget:
            break
        budget -= len(tries)
        found = _same_measurements(item, tries)
        if found is not None:
            out[i] = StoredAs(found[0].id, found[0].name, False, found[1])
    return out


def _same_measurements(
    item: ParsedSweep, tries: list[tuple[Sweep, dict[str, Any]]]
) -> tuple[Sweep, dict[str, Any]] | None:
    """The first (stored sweep, description) under which the upload's measurements hash as the
    sweep's stored hash, its samples digested in the sweep's format (format 1 for a sweep
    stored before migration 20261208_values: app.store.sample_digest_formats)."""

    samples = item.has_samples  # without samples, both formats hash alike

    def digest_format(sweep: Sweep) -> int:
        return sweep.sample_digest if samples else VALUES

    hashes: dict[int, str] = {}
    for kind in {digest_format(s) for s, _ in tries}:
        at = [i for i, (s, _) in enumerate(tries) if digest_format(s) == kind]
        found = item.content_hashes([tries[i][1] for i in at], kind)
        hashes.update(zip(at, found, strict=True))
    return next((t for i, t in enumerate(tries) if hashes[i] == t[0].content_hash), None)


def updates(
    session: Session, parsed: list[ParsedSweep], store_new: frozenset[int] | None
) -> dict[int, int]:
    """The stored sweep (id) each sweep updates (by index): every sweep whose measurements are
    stored under other details, but those in `store_new`; None (the API, the CLI): none."""
    out: dict[int, int] = {}
    if store_new is None:
        return out
    for i, found in enumerate(find(session, parsed)):
        # One sweep of the upload updates a stored one; another of the same is stored anew.
        if found and not found.same and i not in store_new and found.sweep_id not in out.values():
            out[i] = found.sweep_id
    return out


def _as_uploaded(sweep: Sweep) -> list[dict[str, Any]]:
    """The descriptions the sweep may have been uploaded with: its notes as stored, then with
    trailing lines left off (an upload's warnings are added to the notes)."""
    meta: dict[str, Any] = {k: getattr(sweep, k) for k in q.SWEEP_FIELDS}
    meta["sweep"] = sweep.name
    lines = sweep.notes.split("\n") if sweep.notes else []
    out = [meta]
    for cut in range(1, min(len(lines), NOTE_LINES_TRIED) + 1):
        out.append({**meta, "notes": "\n".join(lines[:-cut]) or None})
    return out


def update(session: Session, sweep_id: int, item: ParsedSweep) -> sweep_save.SavedSweep:
    """Give the stored sweep this upload's details (and its content hash, so uploading the same
    again finds it unchanged); its points stay as they are, being the same."""
    sweep = q.get_sweep(session, sweep_id)
    row = sweep_save.sweep_values(item)
    for key, value in row.items():
        setattr(sweep, key, value)
    sweep.content_hash, sweep.sample_digest = item.content_hash(), VALUES
    session.flush()
    return sweep_save.SavedSweep(
        sweep.id, sweep.name, item.point_count, False, session, updated=True
    )
