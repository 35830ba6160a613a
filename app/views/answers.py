"""JSON answers written exactly as FastAPI writes a returned `dict[str, Any]` (pydantic's
compact JSON), for the large analysis answers: their model in app/schemas/answers documents
them (`responses=`) and tests check every answer against it, but it does not re-validate each
one on the way out, which would cost the hot read-off and Explore paths time for nothing new."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from fastapi.responses import Response
from pydantic import TypeAdapter

_BODY: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


def json_answer(body: Mapping[str, Any], status_code: int = 200) -> Response:
    """`body` (a plain dict, typed or not) as the JSON answer."""
    data = _BODY.dump_json(cast(dict[str, Any], body))
    return Response(data, status_code=status_code, media_type="application/json")


def json_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body as a client reads it back from json_answer (NaN and infinities as null, tuples
    as lists): the MCP tools hand out exactly what the API sends."""
    loaded: dict[str, Any] = json.loads(_BODY.dump_json(cast(dict[str, Any], body)))
    return loaded
