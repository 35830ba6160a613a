"""The Model Context Protocol server: the JSON API's read-only answers for assistants, each with
its provenance. A peer of app/api and app/web: it parses, calls the same services, and answers.

Its SDK is the optional extra `paretoscope[mcp]`: the modules below import it, so callers import
them only after require_sdk() said it is there (`paretoscope mcp`, /mcp), and nothing else loads
this package."""

from __future__ import annotations

INSTALL = "pip install 'paretoscope[mcp]'"


class SdkMissing(RuntimeError):
    """The MCP SDK is not installed: the message names what needs it and what to install."""


def require_sdk(what: str) -> None:
    """Raise SdkMissing, naming `what` and the extra to install, unless the SDK imports."""
    try:
        import mcp  # noqa: F401
        import mcp_types  # noqa: F401
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in ("mcp", "mcp_types"):
            raise  # the SDK is there but broken: its own error says more than ours would
        raise SdkMissing(
            f"{what} needs the Model Context Protocol SDK, an optional extra that is not "
            f"installed: {INSTALL} (in a checkout: .venv/bin/pip install -e '.[mcp]')"
        ) from error
