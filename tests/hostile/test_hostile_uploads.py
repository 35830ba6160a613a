"""Every file of the hostile corpus is refused through the API and the CLI, on both databases:
a 4xx (or exit status 2) whose message names the file, no traceback, and nothing stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.cli import main
from app.settings import get_settings
from app.store.models import SampleBlock, Sweep
from tests.factories import count, point_count, sample_count
from tests.hostile.corpus import CASES, MB, Case, write

ROOT = Path(__file__).resolve().parents[2]
CLI_OPTIONS = {
    "hardware": "--hardware",
    "num_gpus": "--num-gpus",
    "model": "--model",
    "engine": "--engine",
    "num_prefill_gpus": "--num-prefill-gpus",
    "num_decode_gpus": "--num-decode-gpus",
}


def stored(session: Session) -> tuple[int, int, int]:
    session.expire_all()
    # Blocks and the samples in them: nothing of a refused upload may be stored.
    return (
        count(session, Sweep),
        point_count(session),
        count(session, SampleBlock) + sample_count(session),
    )


def test_the_corpus_holds_at_least_60_distinct_hostile_files() -> None:
    assert len(CASES) >= 60
    assert len({c.filename for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_hostile_upload_gets_a_4xx_naming_the_file_and_stores_nothing(
    make_client: Callable[..., TestClient], session: Session, case: Case
) -> None:
    client = make_client(**case.settings)
    before = stored(session)
    response = client.post(
        "/api/sweeps",
        files=[("files", (case.filename, case.payload(), "application/octet-stream"))],
        data=case.fields,
    )
    assert 400 <= response.status_code < 500, response.text[:500]
    assert case.must_name in response.json()["detail"], response.text[:500]
    assert len(response.content) < 16_384  # the reason, not the hostile input echoed back
    assert stored(session) == before == (0, 0, 0)


# On the seeded database: an import into an empty one seeds the catalogs first, in its own
# transaction, which a refusal rolls back (test_cli_readoff.py checks that once); here it
# would cost every case ~0.1 s before the file is even read. On SQLite alone: the CLI reads
# the files itself and then stores them through the API's own `store_checked`, whose every
# case the test above runs on Postgres too.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_cli_refuses_a_hostile_file_with_status_2_and_no_traceback(
    database_url: str,
    seeded: None,
    session: Session,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: Case,
) -> None:
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    for name, value in case.settings.items():
        monkeypatch.setenv(f"PARETOSCOPE_{name.upper()}", str(value))
    get_settings.cache_clear()
    options = [part for k, v in case.fields.items() for part in (CLI_OPTIONS[k], v)]
    before = stored(session)
    try:
        status = main(["import", str(write(case, tmp_path)), *options])
    finally:
        get_settings.cache_clear()
    captured = capsys.readouterr()
    assert status == 2, captured.err
    assert "Traceback" not in captured.err + captured.out
    # A form field's problem is named by the field or by its CLI option (--num-gpus for num_gpus).
    names = {case.must_name, CLI_OPTIONS.get(case.must_name, case.must_name)}
    assert any(name in captured.err for name in names), captured.err
    assert stored(session) == before


# The peak is the probe process's own (VmHWM): what runs beside it does not move it, so it
# runs in the parallel pass, first among the long ones.
@pytest.mark.slow
def test_every_hostile_file_of_at_most_1_mb_is_refused_within_64_mb_of_peak_memory(
    database_url: str, seeded: None, tmp_path: Path
) -> None:
    """Measured in a process of its own (tests/hostile/memory_probe.py): the peak resident
    memory (VmHWM) over the resident size before each answer, through the API and, on SQLite,
    the CLI (it parses as the server does). Times are recorded, not asserted. On the seeded
    database, so that the CLI does not seed the catalogs (and roll them back) for every file."""
    from tests.hostile.memory_probe import SMALL

    out = tmp_path / "memory.json"
    with_cli = database_url.startswith("sqlite")
    subprocess.run(
        [sys.executable, "-m", "tests.hostile.memory_probe", database_url, str(out)]
        + (["cli"] if with_cli else []),
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
        capture_output=True,
        timeout=600,
    )
    found = json.loads(out.read_text())
    records, sizes = found["records"], found["sizes"]
    assert list(sizes) == [c.id for c in CASES]
    assert [r["id"] for r in records] == [i for i, size in sizes.items() if size <= SMALL]
    assert len(records) >= 80
    assert {r["id"]: r["api_status"] for r in records if not 400 <= r["api_status"] < 500} == {}
    assert {r["id"]: r.get("cli_status", 2) for r in records if r.get("cli_status", 2) != 2} == {}
    growth = {
        (r["id"], way): r[f"{way}_growth"] / MB
        for r in records
        for way in ("api", "cli")
        if f"{way}_growth" in r
    }
    assert {key: mb for key, mb in growth.items() if mb > 64} == {}
    slowest = max(records, key=lambda r: r["api_s"])
    print(f"slowest answer: {slowest['id']} in {slowest['api_s']:.2f} s")
