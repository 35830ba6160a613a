"""Sweep tags: add, remove, list, and the newest sweep that carries a tag."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.store.db import in_values
from app.store.models import Sweep, SweepTag


def tags_by_sweep(session: Session, sweep_ids: Iterable[int]) -> dict[int, list[str]]:
    """Each sweep's tags, sorted; sweeps without tags are absent."""
    ids = list(sweep_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(SweepTag.sweep_id, SweepTag.tag)
        .where(in_values(session, SweepTag.sweep_id, ids))
        .order_by(SweepTag.tag)
    )
    out: dict[int, list[str]] = {}
    for sweep_id, tag in rows:
        out.setdefault(sweep_id, []).append(tag)
    return out


def tags_of(session: Session, sweep_id: int) -> list[str]:
    return tags_by_sweep(session, [sweep_id]).get(sweep_id, [])


def add_tags(session: Session, sweep_id: int, tags: Iterable[str]) -> None:
    """Add tags the sweep does not carry yet (in the caller's transaction)."""
    add_tags_to_many(session, [sweep_id], tags)


def add_tags_to_many(session: Session, sweep_ids: Iterable[int], tags: Iterable[str]) -> None:
    """Add the tags to every sweep that does not carry them yet: one query for the tags they
    have, one INSERT (nothing at all when there are no tags)."""
    wanted = list(dict.fromkeys(tags))
    ids = list(dict.fromkeys(sweep_ids))
    if not wanted or not ids:
        return
    have = tags_by_sweep(session, ids)
    session.add_all(
        [SweepTag(sweep_id=i, tag=t) for i in ids for t in wanted if t not in have.get(i, ())]
    )
    session.flush()


def remove_tags(session: Session, sweep_id: int, tags: Iterable[str]) -> int:
    """Remove these tags from the sweep; the number removed."""
    wanted = list(tags)
    if not wanted:
        return 0
    result = session.execute(
        delete(SweepTag).where(SweepTag.sweep_id == sweep_id, SweepTag.tag.in_(wanted))
    )
    session.flush()
    return int(getattr(result, "rowcount", 0) or 0)


def set_tags(session: Session, sweep_id: int, tags: list[str]) -> None:
    """The sweep carries exactly these tags afterwards."""
    have = set(tags_of(session, sweep_id))
    remove_tags(session, sweep_id, sorted(have - set(tags)))
    add_tags(session, sweep_id, tags)


def newest_with_tag(session: Session, tag: str) -> Sweep | None:
    """The newest sweep (by upload time, then id) that carries `tag`: it stands for the tag."""
    return session.scalar(
        select(Sweep)
        .join(SweepTag, SweepTag.sweep_id == Sweep.id)
        .where(SweepTag.tag == tag)
        .order_by(Sweep.created_at.desc(), Sweep.id.desc())
        .limit(1)
    )


def sweeps_named(session: Session, name: str, limit: int = 20) -> list[Sweep]:
    return list(
        session.scalars(select(Sweep).where(Sweep.name == name).order_by(Sweep.id).limit(limit))
    )
