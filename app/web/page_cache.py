"""Rendered pages kept per process, under the version tokens read before they were rendered.

A team looking at one dashboard asks for the same address again and again; the page is the same
while no sweep, tag or catalog row changes, and triggers renew a token in the transaction of
any such change, from any process (app.store.versions). So a page rendered after reading the
tokens is kept under them and the address, and a later request that reads the same tokens gets
it back for the cost of one query. What is kept is never older than its tokens (they are read
first), and a page rendered in a transaction that saw an uncommitted change carries a token a
rollback takes back, so nobody asks for it again.

Only 200 answers are kept, each whole (body and the headers a page sets), least recently used
first out once their bodies pass the byte budget. A body is kept gzipped, compressed once as it
is kept: a client that accepts gzip (every browser) gets those bytes as they are, with
Content-Encoding and Vary set, so GZipMiddleware passes them on without compressing again; a
client that does not gets them unzipped. The budget counts compressed bytes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs
from weakref import WeakSet

from cachetools import LRUCache
from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.http.encoding import GZIP, GZIP_MINIMUM, accepts_gzip, gunzip_bytes, gzip_bytes
from app.store import versions as version_tokens
from app.store.versions import Versions

Key = tuple[str, ...]
# Headers a page's handler sets that belong to the page (the middleware adds the rest).
KEPT_HEADERS = ("content-type", "hx-push-url")


@dataclass(frozen=True)
class Page:
    body: bytes  # gzipped when `encoding` says so
    headers: tuple[tuple[str, str], ...]
    encoding: str | None = None

    def response(self, accept_encoding: str | None) -> Response:
        """The page as this client accepts it: the kept bytes, or unzipped for a client that
        does not take gzip. Vary tells caches the answer depends on Accept-Encoding."""
        headers = dict(self.headers)
        if self.encoding is None:
            return Response(self.body, headers=headers)
        if accepts_gzip(accept_encoding):
            headers["content-encoding"] = self.encoding
            headers["vary"] = "Accept-Encoding"
            return Response(self.body, headers=headers)
        # GZipMiddleware adds Vary to a plain body of its minimum size, as a kept gzipped one is.
        return Response(gunzip_bytes(self.body), headers=headers)


def _body_size(page: Page) -> int:
    return len(page.body)


class PageCache:
    def __init__(self, max_bytes: int, gzip_level: int = 4) -> None:
        self.max_bytes = max_bytes
        self.gzip_level = gzip_level
        self._pages: LRUCache[Key, Page] = LRUCache(max_bytes, getsizeof=_body_size)
        self._lock = threading.Lock()  # an LRUCache reorders itself on every read
        _every.add(self)

    def get(self, key: Key | None) -> Page | None:
        if key is None:
            return None
        with self._lock:
            return self._pages.get(key)

    def put(self, key: Key | None, response: Response) -> Page | None:
        """Keep a 200 answer under `key`, gzipped once here; the page kept, or None."""
        if key is None or response.status_code != 200 or "content-encoding" in response.headers:
            return None
        body = bytes(response.body)
        if len(body) > self.max_bytes:  # past the whole budget: not compressed to find out
            return None
        headers = tuple((k, v) for k, v in response.headers.items() if k in KEPT_HEADERS)
        if len(body) >= GZIP_MINIMUM:  # smaller ones are kept and sent plain
            page = Page(gzip_bytes(body, self.gzip_level), headers, GZIP)
        else:
            page = Page(body, headers)
        if _body_size(page) > self.max_bytes:
            return None
        with self._lock:
            self._pages[key] = page
        return page

    def clear(self) -> None:
        with self._lock:
            self._pages.clear()

    @property
    def size_bytes(self) -> int:
        return int(self._pages.currsize)


_every: WeakSet[PageCache] = WeakSet()


def clear_all() -> None:
    """Forget every kept page of this process, as a restart would (for benchmarks)."""
    for pages in list(_every):
        pages.clear()


def page_key(request: Request, page: str, versions: Versions) -> Key | None:
    """The page, its query as sent, what kind of htmx request asks (a swap gets only the view)
    and both tokens; None when a token is missing (nothing may be kept then)."""
    headers = request.headers
    return key_for(
        page,
        request.url.query,
        versions,
        headers.get("hx-request") or "",
        headers.get("hx-history-restore-request") or "",
    )


def key_for(
    page: str, query: str, versions: Versions, hx_request: str = "", hx_restore: str = ""
) -> Key | None:
    """page_key for a request not yet made: one a page's script will make (no htmx headers)."""
    if versions.catalog is None or versions.sweeps is None:
        return None
    if "deployment" in parse_qs(query):
        return None  # production windows change without renewing either token
    return (page, query, hx_request, hx_restore, versions.catalog, versions.sweeps)


def version_text(versions: Versions) -> str | None:
    """Both tokens as one text, for a page and the answer its script asks for to agree on."""
    if versions.catalog is None or versions.sweeps is None:
        return None
    return f"{versions.catalog}/{versions.sweeps}"


def answer(
    request: Request, session: Session, page: str, render: Callable[[Versions], Response]
) -> Response:
    """The kept page for this request when its tokens still hold; else `render(versions)`,
    kept when it is a 200."""
    versions = version_tokens.read(session)
    key = page_key(request, page, versions)
    pages: PageCache = request.app.state.page_cache
    accept_encoding = request.headers.get("accept-encoding")
    kept = pages.get(key)
    if kept is not None:
        return kept.response(accept_encoding)
    response = render(versions)
    fresh = pages.put(key, response)
    if fresh is None or fresh.encoding is None or not accepts_gzip(accept_encoding):
        return response  # (GZipMiddleware compresses it if the client asks)
    return fresh.response(accept_encoding)  # the bytes just compressed, not compressed again
