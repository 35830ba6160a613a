"""What a user waits for: one request as a browser makes it, timed at the client.

Each request opens a NEW connection (no keep-alive reuse: a user who clicks a link a minute
later gets no warm connection either), sends the headers a browser sends (`Accept-Encoding:
gzip, deflate, br`, an `Accept` like a browser's), reads the whole body and decodes it as sent
(gzip, deflate, or brotli when the server sends it), and is timed from before the connection
opens to after the body is decoded. The app's own `Server-Timing` is kept beside, as info.

Plain `http.client` on purpose: the client runs on the server's own two cores, and httpx spent
~10 ms of CPU per request there (bench/load_client.py says more); this costs well under 1 ms
plus the decoding a browser does too.
"""

from __future__ import annotations

import http.client
import json
import time
import uuid
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

ACCEPT_HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
ACCEPT_JSON = "application/json, text/plain, */*"
ACCEPT_ENCODING = "gzip, deflate, br"  # what Chrome and Firefox send over plain http
BROWSER_HEADERS = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) paretoscope-bench",
    "Accept-Language": "en-US,en;q=0.9",
    "Accept-Encoding": ACCEPT_ENCODING,
}


@dataclass(frozen=True)
class Fetched:
    status: int
    headers: dict[str, str]  # names lower-case
    body: bytes  # decoded
    wire_bytes: int  # the body as sent (compressed when it was)
    seconds: float  # at the client: connect, send, wait, read, decode

    @property
    def ms(self) -> float:
        return self.seconds * 1000

    @property
    def encoding(self) -> str:
        return self.headers.get("content-encoding", "identity")

    @property
    def server_ms(self) -> float | None:
        """The app's own `Server-Timing: app;dur=…` (info only), None when absent."""
        timing = self.headers.get("server-timing", "")
        return float(timing.split("dur=")[1].split(",")[0]) if "dur=" in timing else None

    def json(self) -> Any:
        return json.loads(self.body)


def path_with(path: str, params: Mapping[str, Any] | None = None) -> str:
    """`path?query`, a list value repeated (sweep=1&sweep=2) as a browser's form sends it."""
    return f"{path}?{urlencode(params, doseq=True)}" if params else path


def fetch(
    base_url: str,
    path: str,
    params: Mapping[str, Any] | None = None,
    *,
    accept: str = ACCEPT_HTML,
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
    body: bytes = b"",
    timeout_s: float = 600,
) -> Fetched:
    """One request on a new connection, its body read whole and decoded, timed at the client."""
    parts = urlsplit(base_url)
    sent = {**BROWSER_HEADERS, "Accept": accept, **(headers or {})}
    target = path_with(path, params)
    start = time.perf_counter()
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout_s)
    try:
        connection.request(method, target, body=body or None, headers=sent)
        response = connection.getresponse()
        raw = response.read()
        got = {name.lower(): value for name, value in response.getheaders()}
        decoded = decode(raw, got.get("content-encoding", "identity"))
        elapsed = time.perf_counter() - start
    finally:
        connection.close()
    return Fetched(response.status, got, decoded, len(raw), elapsed)


def post_files(base_url: str, path: str, files: Sequence[tuple[str, str, bytes, str]]) -> Fetched:
    """A multipart/form-data POST of files (field, filename, content, type), as a browser's
    form sends it. The body is built before the clock starts (a browser reads the file from
    disk as it sends; building 80 MB here is the client's work, not the server's)."""
    boundary = uuid.uuid4().hex
    parts: list[bytes] = []
    for field, filename, content, content_type in files:
        disposition = f'form-data; name="{field}"; filename="{filename}"'
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
        parts += [f"{head}Content-Type: {content_type}\r\n\r\n".encode(), content, b"\r\n"]
    parts.append(f"--{boundary}--\r\n".encode())
    kind = f"multipart/form-data; boundary={boundary}"
    return fetch(
        base_url,
        path,
        accept=ACCEPT_JSON,
        headers={"Content-Type": kind},
        method="POST",
        body=b"".join(parts),
    )


def decode(raw: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return raw
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompress(raw, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompress(raw)
    if encoding == "br":
        import brotli  # present wherever the server sends br (it compresses with it)

        result: bytes = brotli.decompress(raw)
        return result
    raise ValueError(f"a body in an encoding the bench client never asked for: {encoding}")
