"""Shared-host safety: a Host allow-list, cross-site writes refused, CSP and other headers.

It wraps the whole app (outside Starlette's error middleware), so rejections and even a 500 carry
the headers. A route may set its own Content-Security-Policy (the offline report, /docs); every
other header is only added when the response has none.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import logging
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("paretoscope")

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def style_hash(text: str) -> str:
    """The CSP source that allows exactly this inline style (element body or attribute value)."""
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode('utf-8')).digest()).decode()}'"


# What Plotly needs, and no more (checked in Chromium by tests/browser/test_csp.py):
# - one empty <style> element, which it then fills through CSSOM (insertRule), which CSP allows;
# - the style attributes its text renderer writes for <b>, <i>, <a>, <sup> … in labels and
#   hovers (svg_text_utils TAG_STYLES in the vendored bundle), and `style=""` on colour bars.
#   Every other style Plotly and static/js/*.js set goes through element.style, which CSP allows.
PLOTLY_STYLE_ELEMENT = style_hash("")
PLOTLY_STYLE_ATTRIBUTES = (
    "",
    "font-size:70%",
    "text-decoration:line-through",
    "text-decoration:underline",
    "font-weight:bold",
    "font-style:italic",
    "cursor:pointer",
    "font-style:italic;font-weight:bold",
)


def style_policy(*elements: str) -> str:
    """style-src directives: stylesheets from `elements`, and only Plotly's fixed inline styles.

    `style-src` alone is what browsers without style-src-elem/-attr (before 2022) apply: they get
    the stylesheets and Plotly draws, some of its small rules (the mode bar's) left out.
    """
    attributes = " ".join(style_hash(text) for text in PLOTLY_STYLE_ATTRIBUTES)
    sources = " ".join(elements)
    return (
        f"style-src {sources}; style-src-elem {sources} {PLOTLY_STYLE_ELEMENT}; "
        f"style-src-attr 'unsafe-hashes' {attributes}"
    )


# Pages load only their own scripts (static/js/*.js and static/vendor/*): no inline script, no
# eval; stylesheets only from the app, and inline styles only the few Plotly writes.
APP_CSP = (
    "default-src 'self'; script-src 'self'; " + style_policy("'self'") + "; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    # For browsers that predate frame-ancestors.
    "x-frame-options": "DENY",
}


def script_hash(text: str) -> str:
    """The CSP source that allows exactly this inline script."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


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


def origin_key(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) origin or URL, the port filled in; None otherwise."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    default = _default_port(scheme)
    if default is None or not parts.hostname or "@" in parts.netloc:
        return None
    return scheme, normalise_host(parts.hostname), port or default


def cross_site_reason(method: str, headers: Headers, own: Iterable[str]) -> str | None:
    """Why a write must be refused as cross-site, or None. No Origin (CLI, curl, CI) is fine.

    `own` lists this server's origins: as the request reached it, and the public URL if set.
    """
    if method not in WRITE_METHODS:
        return None
    if headers.get("sec-fetch-site", "").lower() == "cross-site":
        return "the browser marked this request as sent from another site (Sec-Fetch-Site)"
    origin, named_by = headers.get("origin"), "Origin"
    if origin is None:
        # Browsers old enough to send no Origin still send a Referer (ours: same-origin only).
        origin, named_by = headers.get("referer"), "Referer"
    if origin is None:
        return None
    key = origin_key(origin)
    if key is None or key not in {origin_key(url) for url in own}:
        shown = origin if named_by == "Origin" else f"{origin} (Referer)"
        return f"it came from a page on {shown}, not from this server ({', '.join(own)})"
    return None


class ProxyPolicy:
    """Which peers may tell us the scheme and host the browser used (X-Forwarded-Proto/-Host)."""

    def __init__(self, trusted: Iterable[str]) -> None:
        self.networks = [
            ipaddress.ip_network(t.strip(), strict=False) for t in trusted if t.strip()
        ]

    def trusts(self, scope: Scope) -> bool:
        client = scope.get("client")
        if not self.networks or not client:
            return False
        try:
            peer = ipaddress.ip_address(client[0])
        except ValueError:
            return False
        return any(peer in network for network in self.networks)


def _first(value: str | None) -> str | None:
    """The client-facing proxy's entry of a comma-separated forwarded header."""
    if not value:
        return None
    first = value.split(",")[0].strip()
    return first or None


class SecurityMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        allowed_hosts: Iterable[str],
        *,
        public_url: str | None = None,
        trusted_proxies: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.hosts = HostPolicy(allowed_hosts)
        self.public_origin = public_url
        self.proxies = ProxyPolicy(trusted_proxies)

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

        scope, refusal = self._checked(scope)
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _checked(self, scope: Scope) -> tuple[Scope, Response | None]:
        """The scope (with the scheme a trusted proxy forwarded), or a refusal: more than one
        Host, a host not allowed, a cross-site write."""
        headers = Headers(scope=scope)
        if len(headers.getlist("host")) > 1:
            # Which one a proxy, the allow-list and the app's links read would be chance.
            log.warning(
                "refused %d Host headers on %s", len(headers.getlist("host")), scope["path"]
            )
            return scope, _refusal(
                scope, 400, "Two Host headers", "A request names one host; this one named several."
            )
        host = headers.get("host")
        if not self.hosts.allows(host):
            log.warning("refused Host %r on %s", host, scope["path"])
            return scope, _refusal(
                scope,
                400,
                "Unknown host",
                f"This server does not answer to the host name {host!r}. If it should, add the "
                "name to PARETOSCOPE_ALLOWED_HOSTS.",
            )
        scope, (scheme, host), refusal = self._forwarded(scope, headers, host or "")
        if refusal is not None:
            return scope, refusal
        reason = cross_site_reason(scope["method"], headers, self._own(scheme, host))
        if reason:
            log.warning("refused cross-site %s %s: %s", scope["method"], scope["path"], reason)
            return scope, _refusal(
                scope,
                403,
                "Cross-site write refused",
                f"Writes are accepted only from this server's own pages or from clients that "
                f"send no Origin (the CLI, curl); this one was refused because {reason}. "
                "Behind a proxy that ends TLS, set PARETOSCOPE_PUBLIC_URL (or "
                "PARETOSCOPE_TRUSTED_PROXIES) so the server knows its public address.",
            )
        return scope, None

    def _forwarded(
        self, scope: Scope, headers: Headers, host: str
    ) -> tuple[Scope, tuple[str, str], Response | None]:
        """The scheme and host a trusted proxy forwarded (the host allow-listed), else the
        request's own; the scope with the forwarded scheme."""
        scheme = scope.get("scheme", "http")
        if not self.proxies.trusts(scope):
            return scope, (scheme, host), None
        proto = (_first(headers.get("x-forwarded-proto")) or "").lower()
        if proto in ("http", "https"):
            # request.url and links follow the scheme the browser used.
            scope = {**scope, "scheme": proto}
            scheme = proto
        forwarded_host = _first(headers.get("x-forwarded-host"))
        if forwarded_host is None:
            return scope, (scheme, host), None
        if not self.hosts.allows(forwarded_host):
            log.warning("refused X-Forwarded-Host %r on %s", forwarded_host, scope["path"])
            return (
                scope,
                (scheme, host),
                _refusal(
                    scope,
                    400,
                    "Unknown host",
                    f"This server does not answer to the host name {forwarded_host!r} "
                    "(X-Forwarded-Host). If it should, add the name to "
                    "PARETOSCOPE_ALLOWED_HOSTS.",
                ),
            )
        return scope, (scheme, forwarded_host), None

    def _own(self, scheme: str, host: str) -> list[str]:
        """The origins of this server's own pages."""
        own = [f"{scheme}://{host}"]
        if self.public_origin:
            # On the public name only the public scheme and port count (http://perf.example.com
            # is not https://perf.example.com); other names (localhost) keep their own origin.
            public, seen = origin_key(self.public_origin), origin_key(own[0])
            if seen is None or public is None or seen[1] == public[1]:
                own = [self.public_origin]
            else:
                own.append(self.public_origin)
        return own


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
