"""/api/metrics's filter and the MCP `explain_metric` tool's arguments."""

from __future__ import annotations

from pydantic import Field

from app.schemas.text import StorableText


class MetricQuery(StorableText):
    id: str | None = Field(
        default=None,
        max_length=100,
        description="one definition by its id or plain name, in any case (e.g. goodput, cost, "
        "slo-percentile, Pareto frontier); all when omitted",
    )
