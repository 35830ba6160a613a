"""Sweeps stored before their request samples were digested as typed values (format 2 of
app.ingest.sample_digest) keep a content hash made of format-1 digests (the samples' CSV text),
marked by `sweep.sample_digest` (migration 20261208_values). An upload that does not find its
content under format 2 tries format 1 against the marked sweeps of its names: only these can
hold it (the name is hashed), so an upload pays for format 1 only where one of them may be the
same sweep. A sweep an upload finds so moves to its format-2 hash, by which it is found next.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from app.ingest.parsed import ParsedSweep
from app.ingest.sample_digest import CSV, VALUES
from app.store.db import in_values
from app.store.models import Sweep


def with_hashes(session: Session, digests: Sequence[str]) -> Select[Sweep]:
    """The sweeps with these content hashes (one parameter for all of them, not thousands)."""
    return select(Sweep).where(in_values(session, Sweep.content_hash, sorted(set(digests))))


def stored_by_hash(
    session: Session,
    parsed: Sequence[ParsedSweep],
    digests: Sequence[str],
    move: bool = True,
    format_1: bool = True,
) -> dict[str, Sweep]:
    """The stored sweeps these sweeps are (their format-2 `digests` given), by format-2 hash,
    those stored under format 1 included. `move`: a sweep found under format 1 takes its
    format-2 hash in the caller's transaction (not for a preview, which stores nothing).
    `format_1=False` when the caller found no stored sweep of these names: none is of format 1
    then (no sweep is stored under format 1 any more), and its query is spared."""
    found = {s.content_hash: s for s in session.scalars(with_hashes(session, digests))}
    missing = [
        (item, digest)
        for item, digest in zip(parsed, digests, strict=True)
        if format_1 and digest not in found and item.has_samples
    ]
    if not missing:
        return found
    names = sorted({item.name for item, _ in missing})
    marked = select(Sweep).where(Sweep.sample_digest == CSV, in_values(session, Sweep.name, names))
    older = {s.content_hash: s for s in session.scalars(marked)}
    older_names = {s.name for s in older.values()}
    for item, digest in missing:
        if item.name not in older_names or digest in found:
            continue
        # Popped: two sweeps of an upload with one content find it once, as under format 2.
        sweep = older.pop(item.content_hash(CSV), None)
        if sweep is None:
            continue
        found[digest] = sweep
        if move:
            sweep.content_hash, sweep.sample_digest = digest, VALUES
    if move:
        session.flush()
    return found
