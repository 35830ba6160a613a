"""Which sweeps of an upload are one (issue 47): files of one configuration at different loads
join one sweep, as the tools write them (SGLang's `…_c8.jsonl` and `…_c32.jsonl`, AIPerf's one
export per concurrency), and names do not depend on the order the files came in.

Two sweeps of one tool join when everything that describes them but their name and notes is
equal: model, engine and its version, hardware, GPU counts, precision, speculative decoding,
ISL/OSL, workload, `config` (a swept setting or parallelism layout) and the date measured.
Sweeps an importer made of one file stay apart (it told them apart for a reason), so do sweeps
sharing a load (repeats, or one report rendered twice: not a sweep over loads), and so do
canonical CSV sweeps (their names are the user's). The joined sweep's name keeps what the
sweeps' names share; sweeps still named alike get what differs between them added.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from app.ingest.parsed import HASHED_META, HASHED_WHEN_GIVEN, ParsedPoint, ParsedSweep
from app.ingest.skipped import Skipped
from app.ingest.source import SourceFile

# What decides whether two sweeps are one configuration: their description but name and notes.
JOIN_KEYS: tuple[str, ...] = tuple(
    k for k in (*HASHED_META, *HASHED_WHEN_GIVEN) if k not in ("sweep", "notes")
)
MAX_SOURCE = 500  # the stored source_file's length
_MORE = re.compile(r" \(\+\d+ more\)$")
_DIGITS = re.compile(r"(\d+)")
_WORD = re.compile(r"[^\s_\-]+")
_WORD_AND_GAP = re.compile(r"([^\s_\-]+)[\s_\-]*")
# Details that tell sweeps of one name apart, in the order they are added to it.
TELLING: tuple[str, ...] = (
    "config",
    "hardware",
    "num_gpus",
    "num_prefill_gpus",
    "num_decode_gpus",
    "precision",
    "engine",
    "engine_version",
    "spec_decode",
    "isl",
    "osl",
    "workload",
    "measured_at",
)


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Names in the order people read them: `…_r2` before `…_r16`."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in _DIGITS.split(name) if p)


def sweep_files(sweep: ParsedSweep) -> list[str]:
    """The files a sweep was read from: as the importer listed them ("a, b"; "a (+3 more)"
    names only the first), or as a join recorded them."""
    if sweep.files:
        return list(sweep.files)
    return [n for n in _MORE.sub("", sweep.source_file).split(", ") if n]


def join_sweeps(sweeps: list[ParsedSweep]) -> list[ParsedSweep]:
    """The sweeps of one importer with those of one configuration joined (in the order each
    configuration first appears)."""
    groups: dict[tuple[Any, ...], list[ParsedSweep]] = {}
    for sweep in sweeps:
        groups.setdefault(_key(sweep), []).append(sweep)
    out: list[ParsedSweep] = []
    for group in groups.values():
        files = [f for s in group for f in sweep_files(s)]
        loads = [_load(p) for s in group for p in s.points]
        if len(group) == 1 or len(files) != len(set(files)) or len(loads) != len(set(loads)):
            # One sweep; or the importer split one file (keep its choice); or two files hold
            # one load (repeats, or one report in two renderings): not a sweep over loads.
            out.extend(group)
        else:
            out.append(_joined(group))
    return out


def same_names(sweeps: list[ParsedSweep]) -> list[tuple[list[int], str | None]]:
    """Sweeps given one name (the upload page's details typed alike): each group's indexes,
    and None when they join (one configuration, other loads), else what differs."""
    by_name: dict[str, list[int]] = {}
    for i, sweep in enumerate(sweeps):
        if sweep.name:
            by_name.setdefault(sweep.name, []).append(i)
    out: list[tuple[list[int], str | None]] = []
    for indexes in by_name.values():
        if len(indexes) > 1:
            out.append((indexes, _why_apart([sweeps[i] for i in indexes])))
    return out


def _why_apart(group: list[ParsedSweep]) -> str | None:
    keys = [k for k in JOIN_KEYS if len({repr(s.meta.get(k)) for s in group}) > 1]
    if keys:
        return "they differ in " + ", ".join(keys)
    if len({_key(s)[0] for s in group}) > 1:
        return "they come from different tools"
    loads = [_load(p) for s in group for p in s.points]
    if len(loads) != len(set(loads)):
        return "they measured the same load"
    return None


def join_named(sweeps: list[ParsedSweep]) -> list[ParsedSweep]:
    """The sweeps with those given one name joined (each group `same_names` found joinable),
    under that name; the others as they are."""
    joined: dict[int, ParsedSweep] = {}
    dropped: set[int] = set()
    for indexes, why in same_names(sweeps):
        if why is None:
            sweep = _joined([sweeps[i] for i in indexes])
            sweep.meta["sweep"] = sweeps[indexes[0]].name
            joined[indexes[0]] = sweep
            dropped.update(indexes[1:])
    return [joined.get(i, s) for i, s in enumerate(sweeps) if i not in dropped]


def _key(sweep: ParsedSweep) -> tuple[Any, ...]:
    tool = sweep.meta.get("source_tool") or sweep.source_format
    return (tool, *(repr(sweep.meta.get(k)) for k in JOIN_KEYS))


def _joined(group: list[ParsedSweep]) -> ParsedSweep:
    group = sorted(group, key=lambda s: sorted(map(natural_key, sweep_files(s))))  # order-free
    files = sorted((f for s in group for f in sweep_files(s)), key=natural_key)
    listed = ", ".join(files)
    if len(listed) > MAX_SOURCE:
        listed = f"{files[0]} (+{len(files) - 1} more)"
    points: list[ParsedPoint] = sorted((p for s in group for p in s.points), key=_point_order)
    warnings = list(dict.fromkeys(w for s in group for w in s.warnings))
    meta = dict(group[0].meta)
    meta["sweep"] = shared_name([s.name for s in group])
    notes = list(dict.fromkeys(n for s in group if (n := s.meta.get("notes"))))
    meta["notes"] = "\n".join(notes) or None
    formats = " + ".join(dict.fromkeys(s.source_format for s in group))
    joined = ParsedSweep(meta, points, listed, formats, warnings=warnings)
    joined.files = files
    return joined


def _load(point: ParsedPoint) -> tuple[Any, Any]:
    return (point.values.get("concurrency"), point.values.get("request_rate"))


def _point_order(point: ParsedPoint) -> tuple[float, float, float]:
    values = point.values
    conc, rate = values.get("concurrency"), values.get("request_rate")
    run = point.extra.get("run_number")
    return (
        conc if conc is not None else -1.0,
        rate if rate is not None else -1.0,
        float(run) if isinstance(run, int | float) else 0.0,
    )


def shared_name(names: list[str]) -> str:
    """What the names of joined sweeps share: the " · " parts all give, and of a part they
    give differently (a file name with its load, `…_c8` / `…_c32`) the words all of them have."""
    split = [n.split(" · ") for n in sorted(set(names))]
    if len(split) == 1:
        return names[0]
    parts: list[str] = []
    for i, part in enumerate(split[0]):
        given = {s[i] for s in split if i < len(s)}
        if len(given) == 1 and all(i < len(s) for s in split):
            parts.append(part)
            continue
        others = [_WORD.findall(s[i]) if i < len(s) else [] for s in split[1:]]
        kept = "".join(
            m.group() for m in _WORD_AND_GAP.finditer(part) if all(m.group(1) in o for o in others)
        )
        if kept.strip(" _-"):
            parts.append(kept.strip(" _-"))
    return " · ".join(parts) or names[0]


def name_sweeps(sweeps: list[ParsedSweep], given: str | None) -> None:
    """A name the user gave (the API's and the CLI's `sweep`) names the sweep: the files of one
    configuration were joined first, so they are one sweep under it; sweeps of other
    configurations get it before their own name."""
    if given:
        for sweep in sweeps:
            sweep.meta["sweep"] = given if len(sweeps) == 1 else f"{given} · {sweep.name}"


def tell_apart(sweeps: Iterable[ParsedSweep]) -> None:
    """Sweeps of one name get what differs between them added to it ("· config max_num_seqs=4",
    "· measured_at 2026-07-06"); any still alike are counted in the order of their content, so
    names never depend on the order of the files."""
    by_name: dict[str, list[ParsedSweep]] = {}
    for sweep in sweeps:
        by_name.setdefault(sweep.name, []).append(sweep)
    for name, alike in by_name.items():
        if len(alike) < 2:
            continue
        differing = [k for k in TELLING if len({repr(s.meta.get(k)) for s in alike}) > 1]
        for sweep in alike:
            said = [_said(k, sweep.meta.get(k)) for k in differing]
            if said:
                sweep.meta["sweep"] = " · ".join([name, *said])
        renamed: dict[str, list[ParsedSweep]] = {}
        for sweep in alike:
            renamed.setdefault(sweep.name, []).append(sweep)
        for same in renamed.values():
            stems = [_stem(s) for s in same]
            if len(same) > 1 and len(set(stems)) == len(same):  # files kept apart: by file
                for sweep, stem in zip(same, stems, strict=True):
                    sweep.meta["sweep"] = f"{sweep.name} · {stem}"
                continue
            if len(same) < 2:
                continue
            ordered = sorted(same, key=lambda s: s.content_hash())
            for count, sweep in enumerate(ordered[1:], start=2):
                sweep.meta["sweep"] = f"{sweep.name} ({count})"


def _stem(sweep: ParsedSweep) -> str:
    """A sweep's file name without its folder and extension ("run=0"), when it has one file."""
    files = sweep_files(sweep)
    return files[0].rsplit("/", 1)[-1].rsplit(".", 1)[0] if len(files) == 1 else ""


def _said(key: str, value: Any) -> str:
    if value is None:
        return f"no {key}"
    if key == "config":
        return str(value)
    if key == "num_gpus":
        return f"{value} GPUs"
    if key == "measured_at":
        return f"measured {value}"
    if key in ("isl", "osl"):
        return f"{key.upper()} {value}"
    return str(value)


READ_TWICE = (
    "read: its results are the same runs as other files of the upload give, "
    "so each is imported once, from those"
)


def drop_read_twice(sweeps: list[ParsedSweep]) -> tuple[list[ParsedSweep], list[Skipped]]:
    """Files read one by one (kept apart): a file whose every point another file gave too (a
    `vllm bench sweep` summary.json beside its run=N.json files) makes no sweep of its own and
    is listed as read, as when the files are read together."""
    seen: dict[str, set[str]] = {}
    for sweep in sweeps:
        for point in sweep.points:
            seen.setdefault(_fingerprint(point), set()).update(sweep_files(sweep))
    gone: set[int] = set()
    dropped: list[Skipped] = []
    # The files of most points first: a summary goes, the runs it repeats stay.
    for i in sorted(range(len(sweeps)), key=lambda i: -len(sweeps[i].points)):
        sweep = sweeps[i]
        mine = set(sweep_files(sweep))
        if sweep.points and all(seen[_fingerprint(p)] - mine for p in sweep.points):
            gone.add(i)
            dropped.extend(Skipped(f, READ_TWICE) for f in sorted(mine))
            for point in sweep.points:  # its points are no longer found in it
                seen[_fingerprint(point)] -= mine
    return [s for i, s in enumerate(sweeps) if i not in gone], dropped


def _fingerprint(point: ParsedPoint) -> str:
    return repr(sorted(point.values.items()))


def read_twice(group: list[SourceFile], parsed: list[ParsedSweep]) -> list[Skipped]:
    """Result files none of whose results made a sweep: every one was also in another file (a
    `vllm bench sweep` summary.json beside its run=N.json files). Listed, so every file of a
    folder is accounted for; only where each sweep names all its files."""
    if not all(s.files for s in parsed):  # an importer that does not list every file
        return []
    used = {f for s in parsed for f in sweep_files(s)}
    return [Skipped(f.name, READ_TWICE) for f in group if f.name not in used]
