"""Like with like: what differs between the systems a check, Compare, Plan or History compares.

One function, `differences`, over the sweeps' descriptions, so every page, JSON twin, check
report and CLI line names the same differences in the same words. Three kinds:

- "served": model, workload, ISL/OSL, scenario. Different work was measured; a gate refuses it
  unless asked (`check --allow-different`). The scenario (issue 49) tells a replay of agentic
  sessions (`agentic-coding`, `chat-multiturn`) from a fixed-length run (`fixed-seq-len`): their
  throughput and latency answer different questions.
- "system": hardware, GPU count, precision. Different systems serving the same work: a
  comparison, never a regression.
- "source": a demo (synthetic) or mock-server sweep. Against a measured one it is a different
  kind of data (refused like "served"); when every sweep is demo or mock it is stated, not
  counted as a difference.

How a source is known (nothing else marks it): `source_kind` "demo" is the seed's synthetic
data (seed_data/make_demo.py); a mock server is an engine named "mock" or a model or engine
whose name holds the word "mock" (guidellm's mock server fixture serves "e2e-mock-model", and
the seeded copy has engine "mock"). A workload named "synthetic" is the prompt set (random
tokens), not a synthetic source.

Names are compared as people write them: case and surrounding spaces ignored, a model's
organisation prefix ("meta-llama/") dropped. A value given on one side only is a difference
("not given"): nobody can say the two are the same.

Pure: imports only the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["served", "system", "source"]

DEMO = "demo (synthetic data)"
MOCK = "mock server"
MEASURED = "measured"
NOT_GIVEN = "not given"


@dataclass(frozen=True)
class System:
    """What makes two sweeps the same configuration (engine and its version are what a
    regression check compares, so they are not part of it)."""

    model: str | None
    hardware: str | None
    num_gpus: int | None
    precision: str | None
    isl: int | None
    osl: int | None
    workload: str | None
    source: str  # MEASURED, DEMO or MOCK
    scenario: str | None = None  # fixed-seq-len, agentic-coding, … (issue 49)


@dataclass(frozen=True)
class Difference:
    field: str  # model, hardware, num_gpus, precision, isl_osl, workload, scenario, source
    label: str  # as written: "hardware", "GPU count", "ISL/OSL", …
    kind: Kind
    # Each distinct value as shown, in the order given (a shared source: one per system).
    values: tuple[str, ...]
    differs: bool = True  # False: a shared demo or mock source, stated but not a difference

    @property
    def text(self) -> str:
        """`hardware differs: H200 vs H100`; a shared source: `all are mock server`."""
        if not self.differs:
            who = "both are" if len(self.values) == 2 else "all are"
            return f"{who} {self.values[0]}, not a measurement of a real system"
        return f"{self.label} differs: {' vs '.join(self.values)}"


@dataclass(frozen=True)
class Likeness:
    """Every difference between the systems compared, in a fixed order."""

    differences: tuple[Difference, ...]

    @property
    def differing(self) -> tuple[Difference, ...]:
        return tuple(d for d in self.differences if d.differs)

    @property
    def same_configuration(self) -> bool:
        """One configuration: same model, hardware, GPU count, precision, ISL/OSL, workload
        and kind of source. Only then can a drop be a regression."""
        return not self.differing

    @property
    def different_work(self) -> tuple[Difference, ...]:
        """Differences a gate refuses unless asked: model, workload, ISL/OSL, scenario, source."""
        return tuple(d for d in self.differing if d.kind in ("served", "source"))

    @property
    def text(self) -> str:
        """All of them in one line, `; ` between; "" when there is nothing to say."""
        return "; ".join(d.text for d in self.differences)


def scenario_refusal(found: Likeness) -> str | None:
    """Why a comparison refuses to set these systems against each other (their scenarios
    differ: an agentic replay against a fixed-length run), unless asked; None when alike."""
    for difference in found.differing:
        if difference.field == "scenario":
            return (
                f"{difference.text}: a multi-turn or agentic replay is not set against another "
                "kind of run unless asked (allow_different=1)"
            )
    return None


def source_of(source_kind: str | None, engine: str | None, model: str | None) -> str:
    """MEASURED, DEMO or MOCK, from what a sweep stores (see the module docstring)."""
    if (source_kind or "").strip().lower() == "demo":
        return DEMO
    if any("mock" in _words(name) for name in (engine, model)):
        return MOCK
    return MEASURED


def system_of(meta: Mapping[str, Any]) -> System:
    """A sweep's description (a sweep row's fields, or an analysis's meta) as a System."""
    gpus = meta.get("num_gpus")
    return System(
        model=_text(meta.get("model")),
        hardware=_text(meta.get("hardware")),
        num_gpus=int(gpus) if gpus is not None else None,
        precision=_text(meta.get("precision")),
        isl=_whole(meta.get("isl")),
        osl=_whole(meta.get("osl")),
        workload=_text(meta.get("workload")),
        source=source_of(meta.get("source_kind"), meta.get("engine"), meta.get("model")),
        scenario=_text(meta.get("scenario")),
    )


def differences(systems: Sequence[System]) -> Likeness:
    """What differs among `systems` (two or more; fewer differ in nothing), each difference
    listing every system's value in the order given, duplicates once."""
    found: list[Difference] = []
    fields: tuple[tuple[str, str, Kind], ...] = (
        ("model", "model", "served"),
        ("workload", "workload", "served"),
        ("isl_osl", "ISL/OSL", "served"),
        ("scenario", "scenario", "served"),
        ("hardware", "hardware", "system"),
        ("num_gpus", "GPU count", "system"),
        ("precision", "precision", "system"),
    )
    for field, label, kind in fields:
        keys = [_key(field, s) for s in systems]
        if len(set(keys)) > 1:
            shown = _distinct(_shown(field, s) for s in systems)
            found.append(Difference(field, label, kind, shown))
    sources = _distinct(s.source for s in systems)
    if len(sources) > 1:
        found.append(Difference("source", "source", "source", sources))
    elif systems and sources[0] != MEASURED:
        every = tuple(s.source for s in systems)  # one per system: the text counts them
        found.append(Difference("source", "source", "source", every, differs=False))
    return Likeness(tuple(found))


def work_key(system: System) -> tuple[Any, ...]:
    """What a sweep serves (model, workload, ISL/OSL, scenario) as compared: sweeps with one key
    may be ranked together; with two keys they measure different work (the frontier leaders
    never rank an agentic replay with a fixed-length run)."""
    return tuple(_key(field, system) for field in ("model", "workload", "isl_osl", "scenario"))


def work_label(system: System) -> str:
    """`llama-3-8b · shared-prefix · 192/64`, leaving out what is not given."""
    parts = [system.model or "model not given"]
    if system.workload:
        parts.append(system.workload)
    if system.isl is not None or system.osl is not None:
        parts.append(_shown("isl_osl", system))
    if system.scenario:
        parts.append(system.scenario)
    return " · ".join(parts)


def between(*metas: Mapping[str, Any]) -> Likeness:
    """`differences` of sweeps given by their descriptions."""
    return differences([system_of(m) for m in metas])


def _key(field: str, s: System) -> Any:
    if field == "model":
        return _model_key(s.model)
    if field == "isl_osl":
        return (s.isl, s.osl)
    if field == "num_gpus":
        return s.num_gpus
    value = getattr(s, field)
    return None if value is None else value.casefold()


def _shown(field: str, s: System) -> str:
    if field == "isl_osl":
        if s.isl is None and s.osl is None:
            return NOT_GIVEN
        return f"{_or_unknown(s.isl)}/{_or_unknown(s.osl)}"
    value = getattr(s, field)
    if value is None:
        return NOT_GIVEN
    if field == "num_gpus":
        return f"{value} GPU" + ("" if value == 1 else "s")
    return str(value)


def _model_key(model: str | None) -> str | None:
    if model is None:
        return None
    return model.rsplit("/", 1)[-1].strip().casefold() or None


def _distinct(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _or_unknown(value: int | None) -> str:
    return "?" if value is None else str(value)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _whole(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _words(name: str | None) -> set[str]:
    return set(re.split(r"[^a-z0-9]+", (name or "").lower())) - {""}
