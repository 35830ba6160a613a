"""The MCP server: tools, resources and one prompt on the SDK's low-level server, so that each
tool's input schema is exactly its API query model and each error is the API's error text.

Nothing here writes: every call runs in a session of its own that is rolled back, never
committed. Database work runs on a worker thread, never on the event loop.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from app import __version__
from app.http.errors import AppError, database_error
from app.mcp import prompt, provenance
from app.mcp.tools import BY_NAME, TOOLS, Tool
from app.schemas.sweeps import SweepQuery
from app.views import sweeps as sweep_json
from app.views.answers import json_body
from app.views.refusals import refusal

log = logging.getLogger("paretoscope")

SWEEP_URI = re.compile(r"paretoscope://sweeps/(\d{1,10})")
METRICS_URI = "paretoscope://metrics"
# Sweeps listed as resources: the newest, one API page at most (any other by its template).
LISTED_SWEEPS = 500
INTERNAL = AppError(500, "Internal error", "Something went wrong on the server.")


@dataclass(frozen=True)
class Backend:
    """Where answers come from: a new database session per call, and the dashboard's root URL
    that provenance links point into (given the HTTP request a call came in, if any)."""

    sessions: Callable[[], Session]
    root: Callable[[Any], str]
    # Waited on before a call takes a session: no more sessions open than the pool holds.
    slots: Callable[[], anyio.Semaphore]


async def _list_tools(
    _ctx: Any, _params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=list(_tool_infos()))


@functools.cache
def _tool_infos() -> tuple[types.Tool, ...]:
    """The tools as listed, built once: each schema is pydantic's JSON schema of a query
    model, and the SDK lists the tools again to check the arguments of every call."""
    return tuple(_tool_info(t) for t in TOOLS)


async def _list_templates(
    _ctx: Any, _params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    template = types.ResourceTemplate(
        uri_template="paretoscope://sweeps/{sweep_id}",
        name="sweep",
        title="A sweep by id",
        description="One sweep with every stored column of its points, and its provenance "
        "(as the get_sweep tool).",
        mime_type="application/json",
    )
    return types.ListResourceTemplatesResult(resource_templates=[template])


async def _list_prompts(
    _ctx: Any, _params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[prompt.PROMPT])


async def _get_prompt(_ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    if params.name != prompt.PROMPT.name:
        raise MCPError(types.INVALID_PARAMS, f"no prompt {params.name[:100]!r}")
    return prompt.messages(params.arguments or {})


def _resource_call(uri: str) -> tuple[Tool, dict[str, Any]]:
    """The tool and arguments that answer a resource's URI."""
    if uri == METRICS_URI:
        return BY_NAME["explain_metric"], {}
    if found := SWEEP_URI.fullmatch(uri):
        return BY_NAME["get_sweep"], {"sweep_id": int(found.group(1))}
    shown = uri if len(uri) <= 200 else uri[:200] + "…"
    raise MCPError(types.INVALID_PARAMS, f"no resource {shown!r}", {"uri": shown})


async def _run(backend: Backend, ctx: Any, tool: Tool, arguments: dict[str, Any]) -> Any:
    """The tool's answer, computed in a worker thread within the backend's slots."""
    root = backend.root(getattr(ctx, "request", None))
    async with backend.slots():
        return await anyio.to_thread.run_sync(_answer, backend, tool, arguments, root)


def build_server(backend: Backend) -> Server[Any]:
    """The server, its handlers bound to this backend."""

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = BY_NAME.get(params.name)
        if tool is None:
            known, shown = ", ".join(BY_NAME), params.name[:100]
            return _error(AppError(404, "Not found", f"no tool {shown!r}; the tools are {known}"))
        arguments = params.arguments or {}
        try:
            answer = await _run(backend, ctx, tool, arguments)
        except AppError as exc:
            return _error(exc)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(answer, ensure_ascii=False))],
            structured_content=answer,
        )

    async def list_resources(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        async with backend.slots():
            listed = await anyio.to_thread.run_sync(_listed_sweeps, backend)
        return types.ListResourcesResult(resources=listed)

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        tool, arguments = _resource_call(uri)
        try:
            answer = await _run(backend, ctx, tool, arguments)
        except AppError as exc:
            raise MCPError(types.INVALID_PARAMS, exc.message, _error_body(exc)) from None
        text = json.dumps(answer, ensure_ascii=False)
        contents = types.TextResourceContents(uri=uri, text=text, mime_type="application/json")
        return types.ReadResourceResult(contents=[contents])

    return Server(
        "paretoscope",
        version=__version__,
        title="Paretoscope",
        instructions="Read-only answers from Paretoscope's LLM inference benchmark sweeps, equal "
        "to its JSON API's. Every answer carries `provenance`: the sweeps (ids, names, content "
        "hashes), the SLO, prices and method used, the app version and a dashboard URL showing "
        "the same. Quote it with the numbers.",
        on_list_tools=_list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=_list_templates,
        on_read_resource=read_resource,
        on_list_prompts=_list_prompts,
        on_get_prompt=_get_prompt,
    )


def _tool_info(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.input_schema(),
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=True,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )


def _answer(backend: Backend, tool: Tool, arguments: dict[str, Any], root: str) -> dict[str, Any]:
    """The API's body for these arguments with its provenance; AppError as the API refuses."""
    if tool.query_string:
        _refuse_nul(arguments)
    session: Session | None = None
    try:
        figures = tool.wants_figures(arguments)
        query = tool.parse(arguments)
        session = backend.sessions()
        answered = tool.answer(session, query, root)
        body = json_body(tool.shown(tool.serialise(answered.body), figures))
        named = sweep_json.sweeps_named(session, answered.sweep_ids)
    except AppError:
        raise
    except SQLAlchemyError as exc:
        error = database_error(exc)
        if error is None:
            log.exception("MCP tool %s failed", tool.name)
        raise (error or INTERNAL) from None
    except Exception as exc:
        error = refusal(exc)
        if error is None:
            log.exception("MCP tool %s failed", tool.name)
        raise (error or INTERNAL) from None
    finally:
        if session is not None:
            session.rollback()  # read-only: nothing a tool touched is ever committed
            session.close()
    return {
        "answer": body,
        "provenance": provenance.of(tool, query, answered, named, root, figures),
    }


def _refuse_nul(arguments: dict[str, Any]) -> None:
    """A NUL byte in any argument, refused naming its field as the API's query guard does."""
    for key, value in arguments.items():
        if "\x00" in key or _holds_nul(value):
            field = key
            errors: list[dict[str, object]] = [{"field": field, "message": "contains a NUL byte"}]
            raise AppError(422, "Invalid request", f"{field}: contains a NUL byte", errors)


def _holds_nul(value: Any) -> bool:
    """Whether text anywhere within holds a NUL: walked without recursion, so arguments as
    deep as the JSON parser lets through (its own limit) cost their size, never the stack."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and "\x00" in item:
            return True
        if isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _listed_sweeps(backend: Backend) -> list[types.Resource]:
    session = backend.sessions()
    try:
        page = sweep_json.sweep_list(session, SweepQuery(per_page=LISTED_SWEEPS))
    finally:
        session.rollback()
        session.close()
    listed = [
        types.Resource(
            uri=f"paretoscope://sweeps/{s['id']}",
            name=f"sweep {s['id']}",
            title=str(s["name"]),
            description=" · ".join(
                str(s[k]) for k in ("model", "hardware", "engine", "precision") if s.get(k)
            )
            or None,
            mime_type="application/json",
        )
        for s in page["sweeps"]
    ]
    metrics = types.Resource(
        uri=METRICS_URI,
        name="metrics",
        title="Metrics definitions",
        description="Every definition the numbers use, with its formula (the Metrics page).",
        mime_type="application/json",
    )
    return [metrics, *listed]


def _error_body(exc: AppError) -> dict[str, Any]:
    return {"status": exc.status, "detail": exc.message, "errors": exc.errors}


def _error(exc: AppError) -> types.CallToolResult:
    """The API's refusal: its status, `detail` (also the text) and `errors`."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=exc.message)],
        structured_content=_error_body(exc),
        is_error=True,
    )
