"""The multipart reader of the upload routes (app.http.uploads.HeldUploadRequest) against
Starlette's own form parser, on the same body: one file of `scale.requests` × ~40 B (80 MB at
full size, as the imports bench's per-request file) fed in 64 KB messages, each file read back
whole as every importer reads it. Starlette spools a file part to a temporary file (a thread
trip per chunk) and reads it back; the held reader keeps the parts in memory. This figure is
why app/http/uploads.py drives python-multipart itself and overrides Starlette's private form
reading (tests/web/test_upload_internals.py names each internal it relies on): it must stay
below Starlette's time, or the route should go back to the public `Request.form()`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from starlette.requests import Request
from starlette.types import Message

from app.http.uploads import HeldUploadRequest
from bench.common import Backend, Result, Scale
from bench.load_client import run_apart

BOUNDARY = "bench0boundary"
CHUNK = 65536
ROW = b"sweep-a,16,123.456,4567.891,256,1024,true\n"  # a canonical request row, ~40 B


def body_of(size_rows: int) -> bytes:
    data = b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n" + ROW * size_rows
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="requests.csv"'
        "\r\nContent-Type: text/csv\r\n\r\n"
    ).encode()
    field = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="tags"\r\n\r\nbench\r\n'
    return head + data + b"\r\n" + field.encode() + f"--{BOUNDARY}--\r\n".encode()


def seconds_to_read(kind: type[Request], body: bytes) -> float:
    """The time to parse the body as `kind` does and read every file back whole."""

    async def read() -> float:
        chunks = [body[i : i + CHUNK] for i in range(0, len(body), CHUNK)]

        async def receive() -> Message:
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/",
            "query_string": b"",
            "headers": [(b"content-type", f"multipart/form-data; boundary={BOUNDARY}".encode())],
        }
        start = time.perf_counter()
        form = await kind(scope, receive).form(max_part_size=1024 * 1024)
        for _, value in form.multi_items():
            if not isinstance(value, str):
                await value.read()
        took = time.perf_counter() - start
        await form.close()
        return took

    return run_apart(read())


def _median(measure: Callable[[], float], repeat: int) -> float:
    return statistics.median(measure() for _ in range(repeat))


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    body = body_of(scale.requests)
    repeat = max(3, min(scale.repeat, 5))
    reads: list[tuple[str, Callable[[], float]]] = [
        ("held", lambda: seconds_to_read(HeldUploadRequest, body)),
        ("starlette", lambda: seconds_to_read(Request, body)),
    ]
    for _, measure in reads:
        measure()  # each side's code runs once before the clock
    held, theirs = (_median(m, repeat) * 1000 for _, m in reads)
    return [
        Result(
            f"multipart body of {len(body) / 1048576:,.1f} MB read by the upload routes",
            "",
            held,
            "ms",
            "Starlette's Request.form()",
            theirs,
            1.0,
        )
    ]
