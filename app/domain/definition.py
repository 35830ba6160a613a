"""One term the Metrics page defines: its id (the page anchor), title, formula and text.

Pure: imports only the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Definition:
    id: str
    title: str
    formula: str
    text: str
