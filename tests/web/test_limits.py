"""Bounded input: the body cap holds while the body streams in, the preview needs the write token,
and ids, pages and counts out of the database's range answer 404 or 422, never 500."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import httpx
import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.store.migrate import upgrade_to_head
from app.store.models import Sweep
from bench.server import Server, running_server
from tests.factories import MINIMAL, count

MIB = 1024 * 1024
ABOVE_INT32 = 2**31
ABOVE_INT64 = 2**63 + 7


@pytest.fixture(scope="module")
def capped_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real server (uvicorn on loopback) with a 1 MB upload cap."""
    path = tmp_path_factory.mktemp("limits") / "limits.db"
    url = f"sqlite:///{path}"
    upgrade_to_head(url)
    with running_server(url, env={"PARETOSCOPE_MAX_UPLOAD_MB": "1"}) as server:
        yield server


def test_a_body_far_above_the_cap_is_refused_with_413_before_it_is_all_read(
    capped_server: Server,
) -> None:
    sent = 0
    total = 300 * MIB

    def body() -> Iterator[bytes]:
        """One well-formed file part whose content never ends within the cap."""
        nonlocal sent
        head = b'--x\r\nContent-Disposition: form-data; name="files"; filename="big.csv"\r\n\r\n'
        chunk = b"a" * MIB
        yield head
        while sent < total:
            sent += len(chunk)
            yield chunk

    rss_before = capped_server.rss_bytes()
    headers = {"content-type": "multipart/form-data; boundary=x"}
    try:
        response = httpx.post(
            f"{capped_server.url}/api/sweeps", content=body(), headers=headers, timeout=30
        )
    except httpx.TransportError:
        response = None  # the server hung up mid-body: also a refusal
    if response is not None:
        assert response.status_code == 413
        assert "PARETOSCOPE_MAX_UPLOAD_MB" in response.json()["detail"]
    # The server stopped reading near the cap; the rest of the 300 MiB never left the client.
    assert sent < 64 * MIB
    assert capped_server.rss_bytes() - rss_before < 64 * MIB
    assert httpx.get(f"{capped_server.url}/healthz").status_code == 200


def test_a_declared_length_above_the_cap_is_refused_before_any_body_is_sent(
    capped_server: Server,
) -> None:
    host, port = capped_server.url.removeprefix("http://").split(":")
    request = (
        "POST /api/sweeps HTTP/1.1\r\n"
        f"Host: {host}:{port}\r\n"
        "Content-Type: multipart/form-data; boundary=x\r\n"
        f"Content-Length: {600 * MIB}\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)  # headers only: not one byte of the 600 MB body
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 413 ")


def test_the_upload_page_shows_the_413_as_a_page(capped_server: Server) -> None:
    files = {"files": ("big.csv", b"x" * (3 * MIB), "text/csv")}
    response = httpx.post(f"{capped_server.url}/upload", files=files, timeout=30)
    assert response.status_code == 413
    text = BeautifulSoup(response.text, "html.parser").get_text(" ", strip=True)
    assert "exceeds the upload limit of 1 MB" in text


def test_an_upload_just_under_the_cap_is_still_read(capped_server: Server) -> None:
    padding = b"#" * (MIB - len(MINIMAL) - 64) + b"\n"
    files = {"files": ("mini.csv", MINIMAL + padding, "text/csv")}
    response = httpx.post(f"{capped_server.url}/api/sweeps", files=files, timeout=30)
    # Not the body cap: the CSV reader has its say (a comment line is not a row) and refuses
    # the padding's row by name, a 4xx (a 500 would pass a bare `!= 413`).
    assert response.status_code == 422, response.text
    assert "mini.csv, row 4, column 'hardware': required value is empty" in response.text


def test_the_preview_needs_the_write_token_when_one_is_set(
    make_client: Callable[..., TestClient], session: Session
) -> None:
    client = make_client(write_token="s3cret")
    client.headers["HX-Request"] = "true"
    files = [("files", ("mini.csv", MINIMAL, "text/csv"))]
    refused = client.post("/upload/preview", files=files)
    assert refused.status_code == 401
    assert "mini.csv" not in refused.text  # nothing was parsed
    wrong = client.post("/upload/preview", files=files, data={"write_token": "guess"})
    assert wrong.status_code == 401
    ok = client.post("/upload/preview", files=files, data={"write_token": "s3cret"})
    assert ok.status_code == 200
    assert "mini.csv" in BeautifulSoup(ok.text, "html.parser").get_text()
    assert count(session, Sweep) == 0


def test_the_preview_needs_no_token_when_none_is_set(hx_client: TestClient) -> None:
    files = [("files", ("mini.csv", MINIMAL, "text/csv"))]
    assert hx_client.post("/upload/preview", files=files).status_code == 200


OUT_OF_RANGE_GETS = [f"/api/sweeps/{n}" for n in (ABOVE_INT32, ABOVE_INT64, 0, -1)] + [
    f"/sweeps/{ABOVE_INT32}",
    f"/sweeps/{ABOVE_INT64}",
    f"/api/pricing/{ABOVE_INT32}",
    f"/api/pricing/{ABOVE_INT64}",
    f"/api/pricing/{ABOVE_INT32}/break-even?output_tok_s_per_gpu=100",
    f"/api/claims/{ABOVE_INT32}",
    f"/api/claims/{ABOVE_INT64}",
    f"/api/claims/{ABOVE_INT64}/audit",
    f"/claims/{ABOVE_INT32}",
    f"/claims?edit={ABOVE_INT64}",
    f"/api/sweeps?page={ABOVE_INT32}",
    f"/api/sweeps?page={ABOVE_INT64}",
    f"/api/sweeps?per_page={ABOVE_INT64}",
    f"/api/sweeps?isl={ABOVE_INT32}",
    f"/api/sweeps?osl={ABOVE_INT64}",
    f"/sweeps?page={ABOVE_INT64}",
    f"/api/readoff?sweep={ABOVE_INT32}",
    f"/api/readoff?sweep={ABOVE_INT64}",
    f"/api/frontier?sweep={ABOVE_INT64}",
    f"/api/export/sweeps.csv?sweep={ABOVE_INT32}",
    f"/api/export/readoff.csv?sweep={ABOVE_INT64}",
    f"/api/roofline?sweep={ABOVE_INT64}",
    f"/?sweep={ABOVE_INT32}",
    f"/?sweep={ABOVE_INT64}&picked=true",
    f"/?pricing={ABOVE_INT64}",
    f"/?isl={ABOVE_INT32}",
    f"/api/explore?sweep={ABOVE_INT64}",
    f"/compare?sweep={ABOVE_INT32}&sweep={ABOVE_INT64}",
    f"/api/compare?sweep={ABOVE_INT64}",
    f"/history?sweep={ABOVE_INT64}",
    f"/api/history?isl={ABOVE_INT64}",
]


@pytest.mark.parametrize("path", OUT_OF_RANGE_GETS)
def test_ids_pages_and_counts_out_of_range_answer_404_or_422_never_500(
    client: TestClient, path: str
) -> None:
    response = client.get(path)
    assert response.status_code in (200, 404, 422), response.text[:300]
    if response.status_code == 200:
        # Pages that ignore an unknown id must not show it either.
        assert str(ABOVE_INT64) not in response.text


def test_the_largest_valid_id_is_simply_not_found(client: TestClient) -> None:
    assert client.get(f"/api/sweeps/{2**31 - 1}").status_code == 404
    assert client.get(f"/api/pricing/{2**31 - 1}").status_code == 404
    assert client.get(f"/api/claims/{2**31 - 1}").status_code == 404


@pytest.mark.parametrize("number", [ABOVE_INT32, ABOVE_INT64])
def test_writes_to_ids_out_of_range_answer_404_or_422(client: TestClient, number: int) -> None:
    answers = [
        client.patch(f"/api/sweeps/{number}", json={"name": "x"}),
        client.delete(f"/api/sweeps/{number}"),
        client.delete(f"/api/pricing/{number}"),
        client.delete(f"/api/claims/{number}"),
        client.post(f"/sweeps/{number}/edit", data={"name": "x"}),
        client.post(f"/sweeps/{number}/delete"),
        client.post(f"/pricing/{number}/delete"),
        client.post(f"/claims/{number}/delete"),
    ]
    assert [a.status_code for a in answers if a.status_code not in (404, 422)] == []


@pytest.mark.parametrize("field", ["num_gpus", "isl", "osl"])
def test_a_gpu_count_or_length_above_the_integer_range_is_refused_naming_the_field(
    client: TestClient, session: Session, field: str
) -> None:
    files = [("files", ("mini.csv", MINIMAL, "text/csv"))]
    response = client.post("/api/sweeps", files=files, data={field: str(ABOVE_INT32)})
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["column"] == field
    assert count(session, Sweep) == 0
