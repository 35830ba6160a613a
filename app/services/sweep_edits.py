"""Query and edit shapes shared by the sweep pages and their JSON twins."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.domain.columns import SWEEP_COLUMN_NAMES
from app.ingest import IngestError, RowError
from app.schemas.bounds import DbCount, DbId
from app.schemas.text import StorableText
from app.services.uploads import parse_defaults
from app.store.sweep_search import SweepFilters

REQUIRED_META = ("sweep", "hardware", "num_gpus")
EDITABLE = tuple(c for c in SWEEP_COLUMN_NAMES if c != "source_tool")


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

    def filters(self) -> SweepFilters:
        return SweepFilters(
            model=self.model or None,
            hardware=self.hardware or None,
            engine=self.engine or None,
            precision=self.precision or None,
            source_kind=self.source_kind or None,
            isl=self.isl,
            osl=self.osl,
            q=self.q or None,
        )

    def query_string(self, **changes: Any) -> str:
        from urllib.parse import urlencode

        data = {**self.model_dump(exclude_none=True), **changes}
        return urlencode({k: v for k, v in data.items() if v not in (None, "")})


def sweep_changes(body: dict[str, Any]) -> dict[str, Any]:
    """Validated metadata edits; `name` is accepted for `sweep`. Empty clears optional fields."""
    body = {("sweep" if k == "name" else k): v for k, v in body.items()}
    unknown = sorted(set(body) - set(EDITABLE))
    if unknown:
        raise IngestError(
            [RowError("(request)", "not an editable sweep field", column=k) for k in unknown]
        )
    typed = parse_defaults(
        {k: None if v is None else str(v) for k, v in body.items()}, source="(request)"
    )
    changes: dict[str, Any] = {}
    errors: list[RowError] = []
    for key in body:
        if key in typed:
            changes[key] = typed[key]
        elif key in REQUIRED_META:
            errors.append(RowError("(request)", "is required and cannot be empty", column=key))
        else:
            changes[key] = None
    if errors:
        raise IngestError(errors)
    return changes
