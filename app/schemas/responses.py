"""What API answers document: the one error body of every 4xx and 5xx (rendered by
app.http.errors), 204s, and the media type of file downloads."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RowError(BaseModel):
    """One problem, placed as exactly as the input allows: file, row and field where known."""

    model_config = ConfigDict(extra="allow")

    file: str | None = Field(None, description="the uploaded file the problem is in")
    row: int | None = Field(None, description="its row (1 = the first data row)")
    column: str | None = Field(None, description="the column of the file, as its header names it")
    field: str | None = Field(None, description="the field or column; '' for the whole request")
    message: str = Field(description="what is wrong, in words")


class ErrorBody(BaseModel):
    """`detail` says what went wrong in one sentence; `errors` lists each problem, empty when
    the answer has nothing more exact to add (404, 405, 409, 410, 503)."""

    detail: str
    errors: list[RowError]


_ERROR = {"model": ErrorBody}

# Declared on every API router: with a 4XX answer documented, FastAPI no longer adds its own
# HTTPValidationError 422 (whose `detail` is an array), so the spec and the bodies agree.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    "4XX": {
        **_ERROR,
        "description": "Refused: 404 no such item, 405 wrong method (with Allow), 409 conflict, "
        "410 gone, 413 too large, 422 invalid input naming file, row and field",
    },
    "5XX": {**_ERROR, "description": "503 busy or database unreachable: retry after Retry-After s"},
}


def download(media_type: str, *, binary: bool = False) -> dict[int | str, dict[str, Any]]:
    """A 200 answered with a file of this media type rather than JSON (the route declares
    `response_class=Response`, so no JSON body is documented beside it)."""
    schema = {"type": "string", "format": "binary"} if binary else {"type": "string"}
    content = {media_type: {"schema": schema}}
    return {200: {"content": content, "description": f"a {media_type} file"}}


def answered_with(
    model: type[BaseModel], *statuses: int, description: str = "Success"
) -> dict[int | str, dict[str, Any]]:
    """The JSON model of a route that answers with a Response of its own (so FastAPI neither
    validates nor documents it by itself): 200 unless other statuses are given."""
    return {s: {"model": model, "description": description} for s in statuses or (200,)}
