"""A canonical column: its name, kind, label, unit and help (app.domain.columns lists them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # "str", "int", "float", "date"
    label: str
    unit: str = ""
    help: str = ""
