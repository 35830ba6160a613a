"""Every file of the hostile corpus is refused through the API and the CLI, on both databases:
a 4xx (or exit status 2) whose message names the file, no traceback, and nothing stored."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.cli import main
from app.settings import get_settings
from app.store.models import SampleBlock, Sweep
from tests.factories import count, point_count, sample_count
from tests.hostile.corpus import CASES, Case, write

CLI_OPTIONS = {
    "hardware": "--hardware",
    "num_gpus": "--num-gpus",
    "model": "--model",
    "engine": "--engine",
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


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_cli_refuses_a_hostile_file_with_status_2_and_no_traceback(
    database_url: str,
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
    assert stored(session) == (0, 0, 0)
