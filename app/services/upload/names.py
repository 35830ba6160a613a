"""Sweeps of one upload given one name (issue 47): stored as one sweep when they are one
configuration at other loads, else refused, so two sweeps of one name are never stored."""

from __future__ import annotations

from app.ingest import ParsedSweep, RowError
from app.ingest.grouping import same_names
from app.services.upload.checks import sweep_source


def named_apart(sweeps: list[ParsedSweep]) -> list[RowError]:
    """An error per group of sweeps given one name that cannot be one sweep: two sweeps of one
    name are never stored."""
    return [
        RowError(
            sweep_source(indexes[1], sweeps[indexes[1]]),
            f"sweeps {', '.join(str(i + 1) for i in indexes)} are all named "
            f"{sweeps[indexes[0]].name!r}, but {why}: give each its own name",
            field="sweep",
        )
        for indexes, why in same_names(sweeps)
        if why is not None
    ]


def join_notes(sweeps: list[ParsedSweep]) -> list[str]:
    """What the preview says of sweeps named alike that saving stores as one."""
    return [
        f"Sweeps {', '.join(str(i + 1) for i in indexes)} are all named "
        f"“{sweeps[indexes[0]].name}”: saving stores them as one sweep."
        for indexes, why in same_names(sweeps)
        if why is None
    ]
