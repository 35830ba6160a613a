"""A database served by a real `paretoscope serve` that a bench can restart: every figure taken
through it is bench.wall_client's (a new connection per request, a browser's headers, the
body read whole and decoded, timed at the client)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bench.server import running_server
from bench.wall_client import ACCEPT_JSON, Fetched, fetch, post_files


class Served:
    """One database served by a `paretoscope serve` (one worker) that can be restarted: a
    restart is how a bench makes the app forget what it keeps, as a deployment's would."""

    def __init__(self, url: str, env: dict[str, str] | None = None) -> None:
        self.url = url
        self.env = env or {}
        self.base = ""
        self._stop: Callable[[], object] = lambda: None

    def start(self) -> None:
        """Start the server, or restart it (the process, its caches and its code warmth new)."""
        self._stop()
        context = running_server(self.url, workers=1, env=self.env, keep_log=False)
        self.base = context.__enter__().url
        self._stop = lambda: context.__exit__(None, None, None)

    def close(self) -> None:
        self._stop()
        self._stop = lambda: None

    def upload(self, points: bytes, requests: bytes | None = None) -> list[int]:
        """POST /api/sweeps as a browser's form posts the files; the stored sweeps' ids."""
        files = [("files", "points.csv", points, "text/csv")]
        if requests is not None:
            files.append(("files", "requests.csv", requests, "text/csv"))
        answer = post_files(self.base, "/api/sweeps", files)
        assert answer.status in (200, 201), answer.body[:500]
        return [int(s["id"]) for s in answer.json()["sweeps"]]

    def get_json(self, path: str, params: dict[str, Any]) -> Fetched:
        got = fetch(self.base, path, params, accept=ACCEPT_JSON)
        assert got.status == 200, got.body[:300]
        return got


@contextmanager
def serving(url: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    served = Served(url, env)
    try:
        served.start()
        yield served
    finally:
        served.close()
