"""Tags on sweeps: validated before anything is stored, bounded per sweep."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.domain.tags import MAX_TAGS_PER_SWEEP, split_tags, tag_problem
from app.services.errors import Invalid
from app.store import sweeps as sweep_queries
from app.store import tags as tag_store


def checked_tags(values: list[str], field: str = "tags", split: bool = False) -> list[str]:
    """These tags (with `split`, each value may hold several, comma or space separated); a bad
    one is refused naming `field`."""
    tags = split_tags(values) if split else list(dict.fromkeys(v.strip() for v in values))
    for tag in tags:
        problem = tag_problem(tag)
        if problem:
            raise Invalid(field, problem)
    if len(tags) > MAX_TAGS_PER_SWEEP:
        raise Invalid(field, f"at most {MAX_TAGS_PER_SWEEP} tags per sweep")
    return tags


def add(session: Session, sweep_id: int, values: list[str], field: str = "tag") -> list[str]:
    """Add tags to a sweep; its tags afterwards."""
    sweep_queries.get_sweep(session, sweep_id)  # NotFound for an unknown sweep
    tags = checked_tags(values, field)
    if not tags:
        raise Invalid(field, "give a tag, e.g. nightly or baseline:main")
    _bounded(set(tag_store.tags_of(session, sweep_id)) | set(tags), field)
    tag_store.add_tags(session, sweep_id, tags)
    return tag_store.tags_of(session, sweep_id)


def replace(session: Session, sweep_id: int, values: list[str]) -> list[str]:
    """The sweep carries exactly these tags afterwards."""
    sweep_queries.get_sweep(session, sweep_id)
    tags = checked_tags(values)
    tag_store.set_tags(session, sweep_id, tags)
    return tag_store.tags_of(session, sweep_id)


def remove(session: Session, sweep_id: int, tag: str) -> list[str]:
    """Remove one tag (removing a tag the sweep does not carry changes nothing)."""
    sweep_queries.get_sweep(session, sweep_id)
    if tag_problem(tag) is None:  # a tag that cannot exist is not looked for
        tag_store.remove_tags(session, sweep_id, [tag])
    return tag_store.tags_of(session, sweep_id)


def _bounded(tags: set[str], field: str) -> None:
    if len(tags) > MAX_TAGS_PER_SWEEP:
        raise Invalid(field, f"at most {MAX_TAGS_PER_SWEEP} tags per sweep")
