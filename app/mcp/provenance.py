"""Where an MCP answer came from: the sweeps (ids, names, content hashes), the SLO, prices and
method used, the app version, and the dashboard view and API request that show the same."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app import __version__
from app.mcp.tools import FIGURES, Answered, Tool
from app.settings import WILDCARD_BIND, Settings


def of(
    tool: Tool,
    query: BaseModel,
    answered: Answered,
    sweeps: list[dict[str, Any]],
    root: str,
    figures: bool = False,
) -> dict[str, Any]:
    arguments = query.model_dump(mode="json", exclude_unset=True)
    if figures:
        arguments[FIGURES] = True
    shown = {
        "tool": tool.name,
        "arguments": arguments,
        "sweeps": sweeps,
        "slo": answered.slo,
        "prices": answered.prices,
        "method": answered.method,
        "app_version": __version__,
        "dashboard_url": absolute(root, answered.view),
        "api": answered.api,
        "read_only": True,
    }
    if tool.figures:
        # Said once, so an assistant knows the figures exist and how to ask for them.
        keys = ", ".join(tool.figures)
        shown["figures"] = (
            f"included ({keys})"
            if figures
            else f"left out ({keys}: what the charts draw; the API's body has them); "
            "call again with figures: true for them"
        )
    return shown


def absolute(root: str, view: str) -> str:
    """A view's URL under the dashboard's root (a view already absolute stays as it is)."""
    if "://" in view.split("?", 1)[0]:
        return view
    return root.rstrip("/") + view


def root_of(settings: Settings, request: Any = None) -> str:
    """The dashboard's address: PARETOSCOPE_BASE_URL; else, for a call over HTTP, the address
    it came to (as POST /api/check's Compare link); else the public URL, else where `serve`
    listens with these settings."""
    if settings.base_url:
        return settings.base_url.rstrip("/")
    base = getattr(request, "base_url", None)
    if base is not None:
        return str(base).rstrip("/")
    if settings.public_url:
        return settings.public_url
    host = settings.host.strip()
    host = "localhost" if host in WILDCARD_BIND else host
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{settings.port}"
