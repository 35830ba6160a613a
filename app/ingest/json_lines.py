"""JSON Lines: one JSON object per line, each numbered, for the tools that append results
(vLLM's --append-result, SGLang's bench_serving)."""

from __future__ import annotations

import json
from typing import Any

from app.ingest.errors import IngestError
from app.ingest.safe_load import loads_json

Line = tuple[int, dict[str, Any]]  # (1-based line number, the object)


def json_lines(text: str, file: str) -> list[Line]:
    """Every non-blank line's object; IngestError naming the first line that is not one."""
    lines = _read(text, file, probe=False)
    assert lines is not None  # only a probe gives up
    return lines


def json_lines_or_none(text: str, file: str) -> list[Line] | None:
    """As json_lines, but None when the text is not JSONL at all: no line, or a first line
    that is not a complete JSON object (e.g. a truncated indented object)."""
    return _read(text, file, probe=True) or None


def _read(text: str, file: str, *, probe: bool) -> list[Line] | None:
    out: list[Line] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = loads_json(line, file, lineno)
        except json.JSONDecodeError as exc:
            if probe and not out:
                return None
            raise IngestError.one(
                file, f"line {lineno} is not valid JSON ({exc.msg})", row=lineno
            ) from None
        if not isinstance(item, dict):
            if probe and not out:
                return None
            raise IngestError.one(file, f"line {lineno}: expected a JSON object", row=lineno)
        out.append((lineno, item))
    return out
