"""An upload's commit on SQLite leaves its write-ahead log to a checkpoint after the answer
(app.store.db.defer_checkpoint, then checkpoint): the commit does not copy the log into the
database file, the pooled connection checkpoints at 1,000 pages again once back in the pool,
and the checkpoint after the answer copies it."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import text

from app.store.db import checkpoint, defer_checkpoint, make_engine, make_sessionmaker

BLOB = 6_000_000  # bytes: ~1,465 pages of 4 KiB, past the 1,000 pages that checkpoint a commit


def _file_with_table(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'wal.sqlite'}"
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE blob (data BLOB)")
    engine.dispose()
    return url


def _write(url: str, defer: bool) -> tuple[int, int, int]:
    """Database file size after the commit, the connection's autocheckpoint once back in the
    pool, and the file size after `checkpoint`."""
    engine = make_engine(url, pool_size=1)
    try:
        with make_sessionmaker(engine)() as session:
            session.execute(text("INSERT INTO blob VALUES (:d)"), {"d": os.urandom(BLOB)})
            if defer:
                defer_checkpoint(session)
            session.commit()
        after_commit = Path(engine.url.database or "").stat().st_size
        with engine.connect() as connection:  # the same pooled connection (pool of one)
            pages = connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one()
        checkpoint(engine)
        return after_commit, pages, Path(engine.url.database or "").stat().st_size
    finally:
        engine.dispose()


def test_a_deferred_commit_leaves_6_mb_in_the_log_until_the_checkpoint_after_it(
    tmp_path: Path,
) -> None:
    after_commit, pages, after_checkpoint = _write(_file_with_table(tmp_path), defer=True)
    assert after_commit < 100_000
    assert pages == 1000
    assert after_checkpoint > BLOB


def test_a_commit_not_deferred_checkpoints_the_6_mb_itself(tmp_path: Path) -> None:
    after_commit, pages, after_checkpoint = _write(_file_with_table(tmp_path), defer=False)
    assert after_commit > BLOB
    assert pages == 1000
    assert after_checkpoint > BLOB
