"""Every real result file in shared/fixtures imports through the API, the upload page and CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.cli import main as cli_main
from app.settings import get_settings
from app.store.models import Sweep
from tests.conftest import FIXTURES
from tests.factories import count

FOLDERS = sorted(
    p.name
    for p in FIXTURES.iterdir()
    if p.is_dir() and any(f.suffix != ".md" for f in p.rglob("*.*"))
)
FIELDS = {"hardware": "H100", "num_gpus": "8"}


def files_of(folder: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / folder).rglob("*") if p.is_file() and p.suffix != ".md")


def multipart(folder: str) -> list[tuple[str, tuple[str, bytes, str]]]:
    root = FIXTURES / folder
    return [
        ("files", (str(p.relative_to(root)), p.read_bytes(), "application/octet-stream"))
        for p in files_of(folder)
    ]


def test_every_tool_folder_with_results_is_covered() -> None:
    assert FOLDERS == [
        "aiperf", "genai-perf", "guidellm", "inference-perf", "inferencemax", "llm-d",
        "llmperf", "sglang", "vllm",
    ]  # fmt: skip


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_api_imports_every_fixture(client: TestClient, folder: str) -> None:
    response = client.post("/api/sweeps", files=multipart(folder), data=FIELDS)
    assert response.status_code == 201, response.text
    sweeps = response.json()["sweeps"]
    assert sweeps and all(s["created"] and s["points"] >= 1 for s in sweeps)
    again = client.post("/api/sweeps", files=multipart(folder), data=FIELDS)
    assert [s["created"] for s in again.json()["sweeps"]] == [False] * len(sweeps)


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_upload_page_previews_and_saves_every_fixture(
    client: TestClient, session: Session, folder: str
) -> None:
    preview = client.post("/upload/preview", files=multipart(folder), data=FIELDS)
    assert "Nothing was stored" not in preview.text
    assert "recognised as" in preview.text
    saved = client.post("/upload", files=multipart(folder), data=FIELDS, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    assert count(session, Sweep) >= 1


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_cli_imports_every_fixture(
    database_url: str, monkeypatch: pytest.MonkeyPatch, session: Session, folder: str
) -> None:
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    try:
        paths = [str(p) for p in files_of(folder)]
        assert cli_main(["import", *paths, "--hardware", "H100", "--gpus", "8"]) == 0
    finally:
        get_settings.cache_clear()
    assert count(session, Sweep) >= 1
