"""Uploads parsed as they stream in (app.http.uploads): a body arriving in small pieces stores
what the files parse to, the body cap still stops it, and a malformed or cut-off body is a 400
that says what is wrong, with nothing stored."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.types import Message

from app.http.uploads import CUT_OFF, HeldUpload, HeldUploadRequest
from app.store.models import Sweep
from bench.load_client import run_apart
from tests.factories import MINIMAL, count, sample_count
from tests.helpers import only, parse

REQUESTS = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n"
    b"mini,1,120,3090,100,512,true\nmini,1,,,,512,false\nmini,4,190,190,1,512,true\n"
)
BOUNDARY = "b0undary"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"


def multipart_body(files: list[tuple[str, bytes]], fields: dict[str, str]) -> bytes:
    """A multipart body as a browser writes it: the files under `files`, then the fields."""
    out = b""
    for name, data in files:
        disposition = f'form-data; name="files"; filename="{name}"'
        head = (
            f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\nContent-Type: text/csv\r\n\r\n"
        )
        out += head.encode() + data + b"\r\n"
    for key, value in fields.items():
        out += (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'
        ).encode()
    return out + f"--{BOUNDARY}--\r\n".encode()


def post_streamed(client: TestClient, body: bytes, piece: int) -> httpx.Response:
    """POST /api/sweeps with the body sent `piece` bytes at a time, each its own ASGI message
    (the test client would send it whole)."""

    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(body), piece):
            yield body[start : start + piece]

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            headers = {"content-type": CONTENT_TYPE}
            return await http.post("/api/sweeps", content=pieces(), headers=headers)

    return run_apart(send())


def test_a_body_arriving_seven_bytes_at_a_time_stores_the_sweep_its_files_parse_to(
    client: TestClient, session: Session
) -> None:
    files = [("mini.csv", MINIMAL), ("mini.requests.csv", REQUESTS)]
    body = multipart_body(files, {"model": "llama-3.1-8b", "tags": "stream, fp8"})
    response = post_streamed(client, body, piece=7)
    assert response.status_code == 201, response.text
    [saved] = response.json()["sweeps"]
    stored = session.scalars(select(Sweep)).one()
    # The same content hash as the files parsed in the process, with the same form field.
    assert stored.content_hash == only(parse(*files, model="llama-3.1-8b")).content_hash()
    assert (saved["name"], saved["points"], stored.model) == ("mini", 2, "llama-3.1-8b")
    assert sample_count(session) == 3
    assert client.get(f"/api/sweeps/{saved['id']}").json()["tags"] == ["fp8", "stream"]


def test_the_held_form_has_the_files_and_fields_starlette_reads_from_the_same_body() -> None:
    files = [("a.csv", MINIMAL), ("b.csv", REQUESTS), ("empty.csv", b"")]
    body = multipart_body(files, {"tags": "x", "notes": "line\r\nbreak"})

    Item = tuple[str, str | tuple[str | None, bytes, str]]

    def read(kind: type[Request], piece: int) -> list[Item]:
        async def form() -> list[Item]:
            chunks = [body[i : i + piece] for i in range(0, len(body), piece)]

            async def receive() -> Message:
                chunk = chunks.pop(0)
                return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

            scope = {
                "type": "http",
                "method": "POST",
                "path": "/",
                "query_string": b"",
                "headers": [(b"content-type", CONTENT_TYPE.encode())],
            }
            got = await kind(scope, receive).form()
            return [
                (k, v if isinstance(v, str) else (v.filename, await v.read(), type(v).__name__))
                for k, v in got.multi_items()
            ]

        return run_apart(form())

    theirs = read(Request, 65536)
    assert read(HeldUploadRequest, 5) == [
        (k, v if isinstance(v, str) else (v[0], v[1], HeldUpload.__name__)) for k, v in theirs
    ]
    assert [k for k, _ in theirs] == ["files", "files", "files", "tags", "notes"]
    assert theirs[1][1] == ("b.csv", REQUESTS, "UploadFile")


def test_a_streamed_body_over_the_cap_is_refused_with_413_and_stores_nothing(
    make_client: Callable[..., TestClient], session: Session
) -> None:
    client = make_client(max_upload_mb=0.25)  # the middleware allows 1 MB of envelope on top
    body = multipart_body([("big.csv", MINIMAL + b"#" * (2 * 1024 * 1024))], {})
    response = post_streamed(client, body, piece=65536)
    assert response.status_code == 413
    assert response.json()["detail"] == (
        "the request body exceeds the upload limit of 0.25 MB (PARETOSCOPE_MAX_UPLOAD_MB)"
    )
    assert count(session, Sweep) == 0


def test_a_body_cut_off_inside_a_file_is_a_400_saying_so_and_stores_nothing(
    client: TestClient, session: Session
) -> None:
    body = multipart_body([("mini.csv", MINIMAL)], {})
    cut = body[: body.index(b"mini,H100,1,4")]
    response = post_streamed(client, cut, piece=16)
    assert response.status_code == 400
    assert response.json()["detail"] == CUT_OFF
    assert count(session, Sweep) == 0


@pytest.mark.parametrize(
    ("body", "content_type", "detail"),
    [
        pytest.param(
            b'--b0undary\r\nContent-Disposition: form-data; filename="m.csv"\r\n\r\n'
            + MINIMAL
            + b"\r\n--b0undary--\r\n",
            CONTENT_TYPE,
            'The Content-Disposition header field "name" must be provided.',
            id="part-without-a-name",
        ),
        pytest.param(
            b"--b0undary\r\nBad Header: x\r\n\r\nabc\r\n--b0undary--\r\n",
            CONTENT_TYPE,
            "Invalid multipart data.",
            id="space-in-a-header-name",
        ),
        pytest.param(
            b"no boundary anywhere", CONTENT_TYPE, "Invalid multipart data.", id="not-multipart"
        ),
        pytest.param(
            multipart_body([("mini.csv", MINIMAL)], {}),
            "multipart/form-data",
            "Missing boundary in multipart.",
            id="no-boundary-declared",
        ),
    ],
)
def test_a_malformed_multipart_body_is_a_400_naming_what_is_wrong(
    client: TestClient, session: Session, body: bytes, content_type: str, detail: str
) -> None:
    response = client.post("/api/sweeps", content=body, headers={"content-type": content_type})
    assert response.status_code == 400
    assert response.json()["detail"] == detail
    assert count(session, Sweep) == 0
