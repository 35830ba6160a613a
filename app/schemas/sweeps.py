"""The sweep list's query: filters, search words and paging (the sweeps page and /api/sweeps)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict, Field

from app.schemas.bounds import DbCount, DbId
from app.schemas.text import StorableText


class SweepQuery(StorableText):
    model: str | None = None
    hardware: str | None = None
    engine: str | None = None
    precision: str | None = None
    source_kind: str | None = None
    isl: DbCount | None = None
    osl: DbCount | None = None
    q: str | None = Field(
        default=None,
        max_length=1000,
        description="Words, each found in the name, model, hardware, engine, precision or notes",
    )
    page: DbId = 1
    per_page: int = Field(default=25, ge=1, le=500)
    limit: int | None = Field(default=None, ge=1, le=500, description="as per_page")

    @property
    def page_size(self) -> int:
        return self.limit or self.per_page

    def query_string(self, **changes: Any) -> str:
        data = {**self.model_dump(exclude_none=True), **changes}
        return urlencode({k: v for k, v in data.items() if v not in (None, "")})


class SweepRef(BaseModel):
    """One sweep by id: /api/sweeps/{sweep_id}'s path and the MCP `get_sweep` tool's argument."""

    sweep_id: DbId = Field(description="sweep id")


class ContextQuery(BaseModel):
    """The page's per-request limits (ms; none given: the Chat preset's) and the load level the
    turns chart shows."""

    model_config = ConfigDict(extra="ignore")

    ttft_ms: float | None = Field(default=None, ge=0, le=1e9, allow_inf_nan=False)
    tpot_ms: float | None = Field(default=None, ge=0, le=1e9, allow_inf_nan=False)
    e2el_ms: float | None = Field(default=None, ge=0, le=1e9, allow_inf_nan=False)
    turn_point: int | None = Field(default=None, ge=0, le=2**53)
