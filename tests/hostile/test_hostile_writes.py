"""Every hostile write beyond file uploads (tests/hostile/writes.py) gets the answer it must
give, on both databases, and stores nothing: not a row of any table changes, so every page that
served before still serves (the reads themselves: test_write_bounds_property.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.hostile.writes import WRITES, Write, seed_targets, snapshot


@pytest.mark.parametrize("write", WRITES, ids=[w.id for w in WRITES])
def test_a_hostile_write_gets_its_answer_and_changes_no_stored_row(
    make_client: Callable[..., TestClient], session: Session, catalog: None, write: Write
) -> None:
    client = make_client()
    targets = seed_targets(client)
    before = snapshot(session)
    answer = write.request(make_client(**write.settings), targets)
    assert answer.status_code == write.status, answer.text[:500]
    assert write.names in answer.json()["detail"], answer.text[:500]
    assert len(answer.content) < 16_384
    assert snapshot(session) == before
