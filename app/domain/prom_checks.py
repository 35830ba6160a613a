"""Readings no engine can have exported, refused before a scrape becomes windows: a negative
counter, histogram bucket, count or sum (read as a reset, a −1 counter became −0.0167 output
tok/s), a negative gauge of requests (a concurrency of −5), and one series given twice in one
scrape with different values (which of them was read would be chance).

Pure: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.prom_names import ENGINES
from app.domain.prom_text import Labels, Scrape

_COUNTED_TYPES = frozenset({"counter", "histogram", "summary"})
_PARTS = ("_bucket", "_count", "_sum", "_total")
# Every series of an engine the windows read (counters, histograms, the running gauge).
_READ = frozenset(name for engine in ENGINES for names in engine.names.values() for name in names)


@dataclass(frozen=True)
class BadReading:
    """One impossible reading: its line in the scrape (None for a query_range answer), the
    metric name at fault and why."""

    line: int | None
    name: str
    message: str


def shown(name: str, labels: Labels) -> str:
    inner = ", ".join(f'{k}="{v}"' for k, v in labels)
    return f"{name}{{{inner}}}" if labels else name


def impossible_readings(scrape: Scrape) -> list[BadReading]:
    """Each negative count or gauge, and each series given twice with another value."""
    found: list[BadReading] = []
    first: dict[tuple[str, Labels], tuple[float, int | None]] = {}
    for i, sample in enumerate(scrape.samples):
        line = scrape.lines[i] if i < len(scrape.lines) else None
        what = _kind(sample.name, scrape.types)
        if what is not None and sample.value < 0:
            found.append(
                BadReading(
                    line,
                    sample.name,
                    f"{shown(sample.name, sample.labels)} is {sample.value:g}: {what} is never "
                    "negative",
                )
            )
        key = (sample.name, sample.labels)
        seen = first.get(key)
        if seen is None:
            first[key] = (sample.value, line)
        elif seen[0] != sample.value and not (seen[0] != seen[0] and sample.value != sample.value):
            at = f" on line {seen[1]}" if seen[1] is not None else ""
            found.append(
                BadReading(
                    line,
                    sample.name,
                    f"{shown(sample.name, sample.labels)} is given twice in one scrape: "
                    f"{seen[0]:g}{at} and {sample.value:g} here",
                )
            )
    return found


def _kind(name: str, types: dict[str, str]) -> str | None:
    """What a series counts ("a counter", "a gauge of requests") when a negative value is
    impossible for it; None for a gauge this does not read (it may go below zero)."""
    family = next((name[: -len(p)] for p in _PARTS if name.endswith(p)), name)
    declared = types.get(family) or types.get(name)
    if declared in _COUNTED_TYPES or (declared is None and name.endswith(_PARTS)):
        return "a count"
    if family in _READ or name in _READ:
        return "a count" if name.endswith(_PARTS) else "a gauge of requests"
    return None
