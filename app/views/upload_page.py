"""How the upload page words an upload: its errors with fields by their labels, the serving-metrics
files it sends to /production, and the formats it recognises."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.columns import COLUMNS_BY_NAME
from app.ingest import TELEMETRY_REFUSAL, RowError


def page_spelling(name: str) -> str:
    """A field as the upload page names it: its label, quoted."""
    column = COLUMNS_BY_NAME.get(name)
    return f"“{column.label}”" if column else name


def page_errors(errors: Sequence[RowError]) -> list[str]:
    """Errors as the upload page words them: fields by their labels. Serving-metrics files are
    not among them: the page sends those to /production (`telemetry_files`)."""
    rest = [e for e in errors if e.message != TELEMETRY_REFUSAL]
    if len(rest) < len(errors) and all(e.file == "(upload)" for e in rest):
        return []  # only "none of these files is a result file": they were all scrapes
    return [e.spelled(page_spelling) for e in rest]


def telemetry_files(errors: Sequence[RowError]) -> list[str]:
    """The files refused as Prometheus serving metrics rather than benchmark results."""
    return [e.file for e in errors if e.message == TELEMETRY_REFUSAL]


def native_formats() -> list[str]:
    """Every format an upload is recognised as, from the importers' registry."""
    from app.ingest.registry import importers

    return ["canonical CSV", *(t.name for t in importers())]
