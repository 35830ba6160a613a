"""The internals app/http/uploads.py relies on, each by name, so that an upgrade that moves one
fails here rather than in an upload (bench/multipart.py gives the figure that keeps them:
the held reader at 0.40x Starlette's form parser on an 80 MB body). starlette and
python-multipart are pinned below their next minor version in pyproject.toml for the same
reason."""

from __future__ import annotations

import inspect

import pytest
from python_multipart.multipart import MultipartParser, MultipartState
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException
from starlette.requests import Request

from app.http.uploads import HeldUpload, HeldUploadRequest
from bench.multipart import BOUNDARY, body_of, seconds_to_read
from tests.web.test_upload_stream import multipart_body


def test_python_multiparts_parser_still_tells_a_finished_body_by_its_state() -> None:
    # uploads._HeldParts.parse: a parser left in any other state was cut off inside a part.
    parser = MultipartParser(BOUNDARY.encode(), {})
    assert parser.state == MultipartState.START
    parser.write(body_of(1))
    parser.finalize()
    assert parser.state == MultipartState.END
    assert {"START", "END"} <= set(MultipartState.__members__)


def test_starlettes_private_form_hook_and_in_memory_flag_are_where_uploads_overrides_them() -> None:
    # HeldUploadRequest overrides Request._get_form and sets Request._form; HeldUpload answers
    # UploadFile._in_memory (read without a thread).
    hook = inspect.signature(Request._get_form)
    assert [p for p in hook.parameters if p != "self"] == [
        "max_files",
        "max_fields",
        "max_part_size",
    ]
    assert all(p.kind is p.KEYWORD_ONLY for n, p in hook.parameters.items() if n != "self")
    assert isinstance(inspect.getattr_static(UploadFile, "_in_memory"), property)
    assert "_form" in inspect.getsource(Request.__init__)
    assert HeldUpload(b"x", "a.csv", UploadFile(None).headers)._in_memory  # type: ignore[arg-type]
    assert MultiPartException("m").message == "m"


def _refusal(kind: type[Request], body: bytes, content_type: str, **limits: int) -> str:
    """The 400's words when `kind` reads this body's form (Starlette's MultiPartException)."""

    async def read() -> str:
        chunks = [body]

        async def receive() -> dict[str, object]:
            return {"type": "http.request", "body": chunks.pop(0), "more_body": False}

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/",
            "query_string": b"",
            "headers": [(b"content-type", content_type.encode())],
        }
        try:
            await kind(scope, receive).form(**limits)  # type: ignore[arg-type]
        except Exception as exc:  # Starlette raises HTTPException(400, detail=the words)
            return str(getattr(exc, "detail", exc))
        raise AssertionError("read without a refusal")

    from bench.load_client import run_apart

    return run_apart(read())


CONTENT_TYPE = "multipart/form-data; boundary=b0undary"
NAMELESS = (
    b'--b0undary\r\nContent-Disposition: form-data; filename="a.csv"\r\n\r\nx\r\n--b0undary--\r\n'
)


@pytest.mark.parametrize(
    ("body", "content_type", "limits"),
    [
        (NAMELESS, CONTENT_TYPE, {}),
        (multipart_body([("a.csv", b"x"), ("b.csv", b"y")], {}), CONTENT_TYPE, {"max_files": 1}),
        (multipart_body([], {"a": "1", "b": "2"}), CONTENT_TYPE, {"max_fields": 1}),
        (multipart_body([], {"a": "x" * 2048}), CONTENT_TYPE, {"max_part_size": 1024}),
        (b"--b0undary\r\n", "multipart/form-data", {}),
    ],
    ids=["no name", "too many files", "too many fields", "field too large", "no boundary"],
)
def test_the_held_reader_refuses_a_bad_body_in_starlettes_own_words(
    body: bytes, content_type: str, limits: dict[str, int]
) -> None:
    theirs = _refusal(Request, body, content_type, **limits)
    assert _refusal(HeldUploadRequest, body, content_type, **limits) == theirs


def test_the_bench_figure_reads_the_same_body_both_ways() -> None:
    body = body_of(100)
    assert seconds_to_read(HeldUploadRequest, body) >= 0
    assert seconds_to_read(Request, body) >= 0
