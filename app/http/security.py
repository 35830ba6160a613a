"""Shared-host safety: a Host allow-list, cross-site writes refused, CSP and other headers.

It wraps the whole app (outside Starlette's error middleware), so rejections and even a 500 carry
the headers. A route may set its own Content-Security-Policy (the offline report, /docs); every
other header is only added when the response has none.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("paretoscope")

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# Pages load only their own scripts (static/app.js and static/vendor/*): no inline script, no
# eval. Plotly writes inline styles, so styles may be inline; scripts may not.
APP_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    # For browsers that predate frame-ancestors.
    "x-frame-options": "DENY",
}

_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def script_hash(text: str) -> str:
    """The CSP source that allows exactly this inline script."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def inline_script_hashes(html: str) -> list[str]:
    """Hashes of the inline scripts of a page we generated ourselves (never of user content)."""
    return [script_hash(body) for body in _SCRIPT.findall(html)]


def normalise_host(name: str) -> str:
    name = name.strip().lower().rstrip(".")
    if ":" in name and not name.startswith("["):
        return f"[{name}]"  # a bare IPv6 literal, as it appears in a Host header
    return name


def host_name(header: str) -> str | None:
    """The name part of a Host header (no port), bracketed for IPv6; None when malformed."""
    try:
        parts = urlsplit(f"//{header}")
        parts.port  # noqa: B018  (raises ValueError on a non-numeric port)
    except ValueError:
        return None
    if not parts.hostname or "@" in header:
        return None
    return normalise_host(parts.hostname)


class HostPolicy:
    """`*` allows any host; `*.example.com` allows its subdomains; other entries match exactly."""

    def __init__(self, allowed: Iterable[str]) -> None:
        entries = [normalise_host(h) for h in allowed if h.strip()]
        self.any = "*" in entries
        self.exact = frozenset(e for e in entries if not e.startswith("*"))
        self.suffixes = tuple(e[1:] for e in entries if e.startswith("*."))

    def allows(self, header: str | None) -> bool:
        if self.any:
            return True
        name = host_name(header) if header else None
        if name is None:
            return False
        return name in self.exact or name.endswith(self.suffixes)


def _default_port(scheme: str) -> int | None:
    return {"http": 80, "https": 443}.get(scheme)


def same_origin(origin: str, host_header: str, scheme: str) -> bool:
    """Whether an Origin header names this server as the request reached it.

    Names must match; ports must match when either side states one. The scheme is not compared
    on its own: behind a TLS-terminating proxy the browser says https while we see http.
    """
    try:
        o = urlsplit(origin)
        h = urlsplit(f"//{host_header}")
        o_port, h_port = o.port, h.port
    except ValueError:
        return False
    if o.scheme not in ("http", "https") or not o.hostname or not h.hostname:
        return False
    if normalise_host(o.hostname) != normalise_host(h.hostname):
        return False
    if o_port is None and h_port is None:
        return True
    return (o_port or _default_port(o.scheme)) == (h_port or _default_port(scheme))


def cross_site_reason(method: str, headers: Headers, scheme: str) -> str | None:
    """Why a write must be refused as cross-site, or None. No Origin (CLI, curl, CI) is fine."""
    if method not in WRITE_METHODS:
        return None
    if headers.get("sec-fetch-site", "").lower() == "cross-site":
        return "the browser marked this request as sent from another site (Sec-Fetch-Site)"
    origin = headers.get("origin")
    if origin is None:
        return None
    if not same_origin(origin, headers.get("host", ""), scheme):
        return f"it came from a page on {origin}, not from this server"
    return None


class SecurityMiddleware:
    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = HostPolicy(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("content-security-policy", APP_CSP)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        headers = Headers(scope=scope)
        host = headers.get("host")
        if not self.hosts.allows(host):
            log.warning("refused Host %r on %s", host, scope["path"])
            response = _refusal(
                scope,
                400,
                "Unknown host",
                f"This server does not answer to the host name {host!r}. If it should, add the "
                "name to PARETOSCOPE_ALLOWED_HOSTS.",
            )
            await response(scope, receive, send_with_headers)
            return
        reason = cross_site_reason(scope["method"], headers, scope.get("scheme", "http"))
        if reason:
            log.warning("refused cross-site %s %s: %s", scope["method"], scope["path"], reason)
            response = _refusal(
                scope,
                403,
                "Cross-site write refused",
                f"Writes are accepted only from this server's own pages or from clients that "
                f"send no Origin (the CLI, curl); this one was refused because {reason}.",
            )
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def _refusal(scope: Scope, status: int, title: str, message: str) -> Response:
    """JSON under /api (or when asked for), else the error page: the app's usual error shape."""
    headers = Headers(scope=scope)
    if scope["path"].startswith("/api/") or "application/json" in headers.get("accept", ""):
        return JSONResponse({"detail": message, "errors": []}, status_code=status)
    from app.http.errors import AppError
    from app.http.templating import templates

    name = "errors/_inline.html" if headers.get("hx-request") == "true" else "errors/page.html"
    error = AppError(status, title, message)
    return templates.TemplateResponse(Request(scope), name, {"error": error}, status_code=status)
