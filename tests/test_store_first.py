"""A large upload of new names is stored before it is hashed (app.store.sweep_save): under a
provisional hash, its sample blocks encoded alone and inserted while the digests run, the hash
set last. It stores what hashing first stores; a stored name hashes first; content found stored
after all (a sweep renamed since) or twice in the upload leaves no row behind; concurrent
uploads store it once."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.ingest import ParsedSweep, UploadFile, parse_upload
from app.ingest.sample_digest import VALUES
from app.services.upload import save as uploads
from app.store import sweep_save
from app.store import sweeps as q
from app.store.models import PointBlock, SampleBlock, Sweep
from app.store.samples import decode
from tests.ingest.test_canonical_bulk import as_bytes, request_rows
from tests.test_sample_digest_formats import _demo_files, _stored_before_values

POINTS = (
    "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    "s,H100,8,1,10,900\ns,H100,8,2,11,1700\ns,H100,8,3,12,2400\n"
)
LARGE = sweep_save.STORE_FIRST_MIN_SAMPLES + 5_000


def large_files(name: str = "s", n: int = LARGE) -> list[UploadFile]:
    points = POINTS.replace("\ns,", f"\n{name},")
    rows = [f"{name}{r[1:]}" for r in request_rows(n, 3)]  # each row starts "s,"
    return [UploadFile(f"{name}.csv", points.encode()), UploadFile("r.csv", as_bytes(rows))]


def large_sweep(name: str = "s") -> ParsedSweep:
    [sweep] = parse_upload(large_files(name), {})
    return sweep


@pytest.fixture
def stored_first(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each save tried storing first, and stored so (True) or hashed first after."""
    calls: list[bool] = []
    original = sweep_save._store_then_hash

    def spy(*args: Any) -> list[sweep_save.SavedSweep] | None:
        answer = original(*args)
        calls.append(answer is not None)
        return answer

    monkeypatch.setattr(sweep_save, "_store_then_hash", spy)
    return calls


def what_is_stored(session: Session, sweep_id: int) -> dict[str, Any]:
    session.expire_all()
    sweep = session.get_one(Sweep, sweep_id)
    blocks = session.execute(
        select(SampleBlock.seq, SampleBlock.rows, SampleBlock.counts, SampleBlock.data)
        .where(SampleBlock.sweep_id == sweep_id)
        .order_by(SampleBlock.seq)
    ).all()
    points = session.execute(
        select(PointBlock.points, PointBlock.data).where(PointBlock.sweep_id == sweep_id)
    ).one()
    return {
        "hash": sweep.content_hash,
        "format": sweep.sample_digest,
        "row": (sweep.name, sweep.hardware, sweep.num_gpus, sweep.source_file, sweep.notes),
        "points": tuple(points),
        "blocks": [
            (seq, rows, counts, decode(data).to_dicts()) for seq, rows, counts, data in blocks
        ],
    }


def counts(session: Session) -> tuple[int, int, int, int]:
    pending = select(func.count()).where(Sweep.content_hash.startswith(sweep_save.PENDING))
    return (
        session.scalar(select(func.count()).select_from(Sweep)) or 0,
        session.scalar(select(func.count()).select_from(PointBlock)) or 0,
        session.scalar(select(func.count()).select_from(SampleBlock)) or 0,
        session.scalar(pending) or 0,
    )


@pytest.mark.postgres_twin  # provisional rows, their blocks and the hash set last are SQL
def test_a_large_upload_stored_first_stores_the_rows_and_hash_that_hashing_first_stores(
    session: Session, stored_first: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    [saved] = sweep_save.save_parsed(session, [large_sweep()])
    session.commit()
    assert stored_first == [True] and saved.created
    first = what_is_stored(session, saved.id)
    assert first["hash"] == large_sweep().content_hash() and first["format"] == VALUES
    assert [(seq, rows) for seq, rows, _, _ in first["blocks"]] == [(0, LARGE)]
    assert counts(session) == (1, 1, 1, 0)
    session.execute(delete(Sweep).where(Sweep.id == saved.id))
    session.commit()
    monkeypatch.setattr(sweep_save, "STORE_FIRST_MIN_SAMPLES", 10**9)  # hash first, as before
    [again] = sweep_save.save_parsed(session, [large_sweep()])
    session.commit()
    assert stored_first == [True] and again.created
    assert what_is_stored(session, again.id) == first


@pytest.mark.postgres_twin
@pytest.mark.parametrize(
    ("renamed", "tried"),
    [(False, [True]), (True, [True, False])],
    ids=["its name stored: hashed first", "renamed since: found after storing"],
)
def test_a_large_file_stored_before_answers_with_that_sweep_and_leaves_no_row_behind(
    session: Session, stored_first: list[bool], renamed: bool, tried: list[bool]
) -> None:
    [saved] = sweep_save.save_parsed(session, [large_sweep()])
    if renamed:
        q.update_sweep(session, saved.id, {"sweep": "renamed"})  # a rename keeps the hash
    session.commit()
    before = what_is_stored(session, saved.id)
    [again] = sweep_save.save_parsed(session, [large_sweep()])
    session.commit()
    # A stored name hashes first: only such a sweep can hold the same content. With no sweep
    # of its name, the file is stored first, then found by its hash and its rows deleted.
    assert stored_first == tried
    assert (again.id, again.created) == (saved.id, False)
    assert counts(session) == (1, 1, 1, 0)
    assert what_is_stored(session, saved.id) == before


@pytest.mark.postgres_twin
def test_one_large_content_twice_in_an_upload_is_stored_once(
    session: Session, stored_first: list[bool]
) -> None:
    saved = sweep_save.save_parsed(session, [large_sweep(), large_sweep(), large_sweep("t")])
    session.commit()
    assert stored_first == [False]  # found twice: hashed first, once
    assert [s.created for s in saved] == [True, False, True]
    assert saved[0].id == saved[1].id != saved[2].id
    assert counts(session) == (2, 2, 2, 0)


@pytest.mark.postgres_twin
def test_a_large_file_of_a_sweep_under_the_older_digests_moves_it_and_adds_nothing(
    session: Session, stored_first: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep_id, _, new = _stored_before_values(session)
    before = counts(session)
    monkeypatch.setattr(sweep_save, "STORE_FIRST_MIN_SAMPLES", 1)  # the demo's few requests
    again = uploads.store(session, _demo_files(), {})
    session.commit()
    assert stored_first == []  # its names are stored: hashed first, found under format 1
    assert again[0].id == sweep_id and not any(s.created for s in again)
    stored = session.get_one(Sweep, sweep_id)
    assert (stored.content_hash, stored.sample_digest) == (new, VALUES)
    assert counts(session) == before


@pytest.mark.postgres_twin
def test_a_large_upload_sent_six_times_at_once_is_stored_exactly_once(
    client: TestClient, session: Session, stored_first: list[bool]
) -> None:
    uploaders = 6
    start = threading.Barrier(uploaders)
    sent = [("files", (f.name, f.data, "text/csv")) for f in large_files()]

    def upload(_: int) -> tuple[int, Any]:
        start.wait()
        response = client.post("/api/sweeps", files=sent)
        return response.status_code, response.json()

    with ThreadPoolExecutor(uploaders) as pool:
        answers = list(pool.map(upload, range(uploaders)))
    assert sorted(status for status, _ in answers) == [200] * (uploaders - 1) + [201], answers
    assert len({body["sweeps"][0]["id"] for _, body in answers}) == 1
    assert counts(session) == (1, 1, 1, 0)
    assert True in stored_first  # the one stored, stored first


@pytest.mark.postgres_twin
def test_a_large_file_staged_then_saved_as_the_upload_page_does_is_stored_first(
    client: TestClient, session: Session, stored_first: list[bool]
) -> None:
    sent = [("files", (f.name, f.data, "text/csv")) for f in large_files()]
    staged = client.post("/api/uploads", files=sent)
    assert staged.status_code == 201, staged.text[:300]
    saved = client.post(f"/api/uploads/{staged.json()['staging']}")
    assert saved.status_code == 201, saved.text[:300]
    [sweep] = saved.json()["sweeps"]
    assert sweep["created"] and stored_first == [True]
    assert what_is_stored(session, sweep["id"])["hash"] == large_sweep().content_hash()
    assert counts(session) == (1, 1, 1, 0)
