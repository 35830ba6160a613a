"""Sweeps stored before request samples were digested as typed values (migration
20261208_values marks them `sample_digest` 1) are still found by an upload of their files: the
save finds them under format 1 and moves them to format 2; the upload page's check finds them
too, changing nothing, also under other details. Each test stores the seeded demo (six sweeps;
the 8×H100 one has request samples) and then turns that one into such a sweep: its hash made
again with format-1 digests, and marked."""

from __future__ import annotations

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.ingest import UploadFile, parse_upload
from app.ingest.sample_digest import CSV, VALUES
from app.services.upload import already_stored
from app.services.upload import save as uploads
from app.settings import PROJECT_ROOT
from app.store.models import Sweep

SEED = PROJECT_ROOT / "seed_data" / "sweeps"
DEMO = [SEED / "demo_llama70b_1k1k.csv", SEED / "demo_llama70b_1k1k.requests.csv"]
FIELDS: dict[str, str | None] = {}


def _demo_files() -> list[UploadFile]:
    return [UploadFile(p.name, p.read_bytes()) for p in DEMO]


def _stored_before_values(session: Session) -> tuple[int, str, str]:
    """The demo's sweep with samples stored as a sweep of before: (its id, its format-1 hash,
    its format-2 hash)."""
    saved = uploads.store(session, _demo_files(), FIELDS)
    items = parse_upload(_demo_files(), FIELDS)
    assert [i.has_samples for i in items] == [True, False, False, False, False, False]
    item = items[0]
    [saved] = [s for s in saved if s.name == item.name]
    old, new = item.content_hash(CSV), item.content_hash()
    assert old != new and session.get_one(Sweep, saved.id).content_hash == new
    marked = update(Sweep).where(Sweep.id == saved.id).values(content_hash=old, sample_digest=CSV)
    session.execute(marked)
    session.commit()
    session.expire_all()
    return saved.id, old, new


@pytest.mark.postgres_twin  # the save's lookup and update are SQL
def test_uploading_a_sweep_stored_before_finds_it_and_moves_it_to_format_2(
    session: Session,
) -> None:
    sweep_id, _, new = _stored_before_values(session)
    again = uploads.store(session, _demo_files(), FIELDS)
    session.commit()
    assert again[0].id == sweep_id and not any(s.created for s in again)
    stored = session.get_one(Sweep, sweep_id)
    assert (stored.content_hash, stored.sample_digest) == (new, VALUES)
    third = uploads.store(session, _demo_files(), FIELDS)  # found by format 2 now
    assert third[0].id == sweep_id and not any(s.created for s in third)
    assert session.query(Sweep).count() == 6


def test_the_upload_pages_check_finds_a_sweep_stored_before_and_changes_nothing(
    session: Session,
) -> None:
    sweep_id, old, _ = _stored_before_values(session)
    found = already_stored.find(session, parse_upload(_demo_files(), FIELDS))[0]
    assert found is not None and (found.sweep_id, found.same) == (sweep_id, True)
    other = parse_upload(_demo_files(), {"engine_version": "0.9.1"})  # other details
    elsewhere = already_stored.find(session, other)[0]
    assert elsewhere is not None and (elsewhere.sweep_id, elsewhere.same) == (sweep_id, False)
    session.rollback()
    stored = session.get_one(Sweep, sweep_id)
    assert (stored.content_hash, stored.sample_digest) == (old, CSV)


def test_a_sweep_without_samples_is_never_hashed_in_format_1() -> None:
    item = parse_upload([_demo_files()[0]], FIELDS)[0]
    assert not item.has_samples
    assert item.content_hash(CSV) == item.content_hash(VALUES)
