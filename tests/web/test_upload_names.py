"""File names an upload cannot keep are refused, saying so, before anything is read or stored."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.ingest.limits import SOURCE_FILE_LIMIT
from app.store.models import Sweep
from tests.factories import MINIMAL, count


def named(name: str) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (name, MINIMAL, "text/csv"))]


@pytest.mark.parametrize("route", ["/api/sweeps", "/api/uploads"])
def test_a_10000_character_file_name_is_refused_as_a_name_too_long_not_invalid_multipart(
    client: TestClient, session: Session, route: str
) -> None:
    response = client.post(route, files=named("a" * 10_000 + ".csv"))
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail.startswith("A file of the upload has a name too long to read")
    assert f"at most {SOURCE_FILE_LIMIT} characters" in detail
    assert "Invalid multipart" not in detail
    assert count(session, Sweep) == 0


def test_a_file_name_over_the_limit_is_refused_naming_its_start_and_length(
    client: TestClient, session: Session
) -> None:
    name = "run-" + "x" * 996 + ".csv"  # 1,004 characters: the parser reads it, we refuse it
    response = client.post("/api/sweeps", files=named(name))
    assert response.status_code == 422
    assert response.json()["detail"] == (
        f"{name[:60]}…: a file name of 1,004 characters (at most {SOURCE_FILE_LIMIT}); "
        "nothing was stored. Rename the file."
    )
    assert count(session, Sweep) == 0


def test_the_upload_page_shows_the_long_name_refusal_in_its_result_box(
    hx_client: TestClient,
) -> None:
    response = hx_client.post("/upload/stage", files=named("a" * 10_000 + ".csv"))
    assert response.status_code == 400
    alert = BeautifulSoup(response.text, "html.parser").select_one("[role=alert]")
    assert alert is not None
    assert alert.select_one("strong").get_text() == "File name too long."
