"""How the sidebar's long choice lists read (issue 47): SLO presets and pricing profiles as
grouped selects (<optgroup>), each entry short enough to show whole; numbers in inputs as typed
("500", not "500.0")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.store.models import PricingProfile, SloPreset

OWN_PRESETS = "Use cases"  # presets whose names name no family: the suggested ones


@dataclass(frozen=True)
class Choice:
    value: str
    text: str  # shown in the list: the name less its group's part
    title: str  # the whole name, as a tooltip


def _split(name: str) -> tuple[str | None, str]:
    """'H100 · InferenceX 3-year rental · Sep 2026' → ('H100', 'InferenceX 3-year rental · …')."""
    head, sep, rest = name.partition(" · ")
    return (head, rest) if sep and rest else (None, name)


def _grouped(rows: Iterable[tuple[str, str]], default_group: str) -> list[tuple[str, list[Choice]]]:
    groups: dict[str, list[Choice]] = {}
    for value, name in rows:
        head, rest = _split(name)
        groups.setdefault(head or default_group, []).append(Choice(value, rest, name))
    return list(groups.items())


def preset_groups(presets: Iterable[SloPreset]) -> list[tuple[str, list[Choice]]]:
    """Presets by family ("MLPerf Server", …; the suggested use cases first), in catalog order."""
    found = _grouped(((p.key, p.name) for p in presets), OWN_PRESETS)
    return sorted(found, key=lambda g: g[0] != OWN_PRESETS)


def profile_groups(profiles: Iterable[PricingProfile]) -> list[tuple[str, list[Choice]]]:
    """Profiles by GPU (their names start with it), in catalog order."""
    return _grouped(((str(p.id), p.name) for p in profiles), "Other")


def price_set_groups(sets: Iterable[tuple[str, str]]) -> list[tuple[str, list[Choice]]]:
    """Price sets by source ("InferenceX": '3-year rental · Sep 2026', …), in their order."""
    groups: dict[str, list[Choice]] = {}
    for key, label in sets:
        source, sep, rest = label.partition(" ")
        head, text = (source, rest) if sep else ("Other", label)
        groups.setdefault(head, []).append(Choice(key, text, label))
    return list(groups.items())


def input_value(value: Any) -> str:
    """A number as an input's value: 500.0 reads "500", 0.9 "0.9" (Python's shortest repr,
    exact: what the input sends back is the same number); none is empty."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)
