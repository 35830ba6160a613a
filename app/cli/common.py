"""What the CLI's commands share: option types and migrating first."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from app.settings import get_settings

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

MAX_ID = 2**31 - 1  # sweep ids are 32-bit on Postgres


def whole(text: str) -> int:
    """An integer option; a 5,000-digit one is refused without echoing it (int() would raise
    an unhelpful ValueError past 4,300 digits)."""
    if len(text.strip()) > 20:
        raise argparse.ArgumentTypeError(f"{text[:20]}… is not a whole number of sensible size")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def sweep_id(text: str) -> int:
    """A sweep id: a whole number from 1 to 2^31 - 1 (the database's INTEGER keys)."""
    value = whole(text)
    if not 1 <= value <= MAX_ID:
        raise argparse.ArgumentTypeError(f"no sweep {value} (ids run from 1 to {MAX_ID})")
    return value


def upgrade() -> None:
    from app.store.migrate import upgrade_to_head

    upgrade_to_head(get_settings().database_url)


@contextmanager
def migrated() -> Iterator[sessionmaker[Session]]:
    """The configured database, migrated first, and sessions on it: one engine for the schema
    check and the command (each engine connects and learns the server anew), closed at the
    end so that a command run in-process leaves no connection open."""
    from app.store.db import make_engine, make_sessionmaker
    from app.store.migrate import upgrade_to_head

    url = get_settings().database_url
    engine = make_engine(url)
    try:
        upgrade_to_head(url, engine)
        yield make_sessionmaker(engine)
    finally:
        engine.dispose()
