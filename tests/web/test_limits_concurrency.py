"""Concurrent uploads of the same content store it once: one 201, every other answer names the
same sweep with created: false, on both databases."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.store.models import Sweep
from tests.factories import MINIMAL, count, point_count

UPLOADERS = 6


def test_the_same_content_uploaded_at_once_is_stored_exactly_once(
    client: TestClient, session: Session
) -> None:
    start = threading.Barrier(UPLOADERS)

    def upload(_: int) -> tuple[int, dict[str, object]]:
        start.wait()
        response = client.post("/api/sweeps", files=[("files", ("same.csv", MINIMAL, "text/csv"))])
        return response.status_code, response.json()

    with ThreadPoolExecutor(UPLOADERS) as pool:
        answers = list(pool.map(upload, range(UPLOADERS)))

    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] * (UPLOADERS - 1) + [201], answers
    sweeps = [body["sweeps"][0] for _, body in answers]  # type: ignore[index]
    assert len({s["id"] for s in sweeps}) == 1
    assert sorted(s["created"] for s in sweeps) == [False] * (UPLOADERS - 1) + [True]
    assert count(session, Sweep) == 1
    assert point_count(session) == 2
