"""Selections by a list of ids or hashes of any length: an IN list binds a parameter per value,
which Postgres (65,535 per statement) and SQLite (32,766 by default) bound."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event, select
from sqlalchemy.orm import Session

from app.ingest import UploadFile
from app.services.upload import save as uploads
from app.store import tags as tag_store
from app.store.db import in_values
from app.store.models import Sweep
from app.views import uploads as upload_json

MANY = 70_000  # past both databases' bounds on parameters


def test_more_ids_or_hashes_than_a_statement_may_bind_select_as_a_short_list_does(
    session: Session,
) -> None:
    data = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\na,H100,8,1,10,100\n"
    [saved] = uploads.store(session, [UploadFile("a.csv", data)], {}, tags=["nightly"])
    ids = [saved.id, *range(10**6, 10**6 + MANY)]
    found = session.scalars(select(Sweep.id).where(in_values(session, Sweep.id, ids))).all()
    assert found == [saved.id]
    digest = saved.sweep.content_hash
    hashes = [f"{i:064x}" for i in range(MANY)] + [digest]
    by_hash = select(Sweep.id).where(in_values(session, Sweep.content_hash, hashes))
    assert session.scalars(by_hash).all() == [saved.id]
    assert tag_store.tags_by_sweep(session, ids) == {saved.id: ["nightly"]}
    for column in (Sweep.id, Sweep.content_hash):  # and none at all selects none
        assert session.scalars(select(Sweep.id).where(in_values(session, column, []))).all() == []


def test_the_saved_summary_asks_the_database_nothing(session: Session, engine: Engine) -> None:
    data = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nb,H100,8,1,10,100\n"
    stored = uploads.store_checked(session, [UploadFile("b.csv", data)], {})
    asked: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        asked.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        rows = upload_json.saved_json(stored.saved)
    finally:
        event.remove(engine, "before_cursor_execute", note)
    saved = {"id": stored.saved[0].id, "name": "b", "points": 1, "created": True, "updated": False}
    assert rows == [saved]
    assert asked == []
