"""Rendered pages kept per process, under the version tokens read before they were rendered.

A team looking at one dashboard asks for the same address again and again; the page is the same
while no sweep, tag or catalog row changes, and triggers renew a token in the transaction of
any such change, from any process (app.store.versions). So a page rendered after reading the
tokens is kept under them and the address, and a later request that reads the same tokens gets
it back for the cost of one query. What is kept is never older than its tokens (they are read
first), and a page rendered in a transaction that saw an uncommitted change carries a token a
rollback takes back, so nobody asks for it again.

Only 200 answers are kept, each whole (body and the headers a page sets), least recently used
first out once their bodies pass the byte budget.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from weakref import WeakSet

from cachetools import LRUCache
from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.store import versions as version_tokens
from app.store.versions import Versions

Key = tuple[str, ...]
# Headers a page's handler sets that belong to the page (the middleware adds the rest).
KEPT_HEADERS = ("content-type", "hx-push-url")


@dataclass(frozen=True)
class Page:
    body: bytes
    headers: tuple[tuple[str, str], ...]

    def response(self) -> Response:
        return Response(self.body, headers=dict(self.headers))


def _body_size(page: Page) -> int:
    return len(page.body)


class PageCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._pages: LRUCache[Key, Page] = LRUCache(max_bytes, getsizeof=_body_size)
        self._lock = threading.Lock()  # an LRUCache reorders itself on every read
        _every.add(self)

    def get(self, key: Key | None) -> Page | None:
        if key is None:
            return None
        with self._lock:
            return self._pages.get(key)

    def put(self, key: Key | None, response: Response) -> None:
        if key is None or response.status_code != 200 or len(response.body) > self.max_bytes:
            return
        headers = tuple((k, v) for k, v in response.headers.items() if k in KEPT_HEADERS)
        page = Page(bytes(response.body), headers)
        with self._lock:
            self._pages[key] = page

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
    if versions.catalog is None or versions.sweeps is None:
        return None
    headers = request.headers
    return (
        page,
        request.url.query,
        headers.get("hx-request") or "",
        headers.get("hx-history-restore-request") or "",
        versions.catalog,
        versions.sweeps,
    )


def answer(
    request: Request, session: Session, page: str, render: Callable[[Versions], Response]
) -> Response:
    """The kept page for this request when its tokens still hold; else `render(versions)`,
    kept when it is a 200."""
    versions = version_tokens.read(session)
    key = page_key(request, page, versions)
    pages: PageCache = request.app.state.page_cache
    kept = pages.get(key)
    if kept is not None:
        return kept.response()
    response = render(versions)
    pages.put(key, response)
    return response
