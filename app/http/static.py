"""Static files with versioned URLs: `static_url` adds a content hash, so a file whose URL carries
its current hash can be cached for a year; any other request for it must revalidate."""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Scope

from app.settings import bundled

STATIC_DIR = bundled("static")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
PLOTLY_JS = "vendor/plotly-basic-4.1.1.min.js"  # loaded by base.html, inlined by reports


@cache
def content_hash(relative: str) -> str:
    """First 12 hex digits of the file's SHA-256; read once per process (files ship with it)."""
    digest = hashlib.sha256((STATIC_DIR / relative).read_bytes()).hexdigest()
    return digest[:12]


# The page scripts, one per concern, in load order: main.js wires the others to page events.
SCRIPTS = ("js/charts.js", "js/tables.js", "js/forms.js", "js/upload.js", "js/main.js")


def static_url(relative: str) -> str:
    """`/static/<path>?v=<hash>`: the URL changes whenever the file does."""
    return f"/static/{relative}?v={content_hash(relative)}"


class VersionedStatic(StaticFiles):
    """Long-lived caching only for the URL that names the current content."""

    def file_response(
        self,
        full_path: PathLike,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        version = _query_value(scope, b"v")
        relative = Path(full_path).resolve().relative_to(STATIC_DIR.resolve()).as_posix()
        fresh = version is not None and version == content_hash(relative)
        response.headers["Cache-Control"] = IMMUTABLE if fresh else REVALIDATE
        return response


def _query_value(scope: Scope, key: bytes) -> str | None:
    query: bytes = scope.get("query_string", b"")
    for part in query.split(b"&"):
        name, _, value = part.partition(b"=")
        if name == key:
            return value.decode("ascii", "replace")
    return None
