"""JSON and YAML readers with bounds, so a small hostile file cannot cost gigabytes or minutes.

JSON: nesting deeper than MAX_DEPTH and number literals longer than MAX_NUMBER_DIGITS are refused
(Python's own int() refuses 4,300 digits with a ValueError, and deep nesting raises
RecursionError: both would otherwise surface as crashes). YAML: aliases are refused outright
(a 30 KB "billion laughs" file expands to gigabytes), and so are deep nesting and huge numbers.
Syntax errors keep their usual exception types (json.JSONDecodeError, yaml.YAMLError) so callers
that tell "not this format" from "broken" keep working; a bound that is hit raises IngestError.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from app.ingest.errors import IngestError

MAX_DEPTH = 100  # real result files nest < 15 levels
MAX_NUMBER_DIGITS = 100  # a float needs 17 significant digits; ints beyond 10^100 mean nothing
# Memory grows faster than the input in two shapes, so both are bounded before or while parsing:
# an object's keys (real files have < 100 per object; a point's extra fields become columns)
# and objects and lists themselves ("[]," is 3 bytes of input and 64 of memory).
MAX_JSON_KEYS = 10_000
MAX_JSON_CONTAINERS = 200_000

_LONG_DIGITS = re.compile(rb"[0-9]{%d,}" % (MAX_NUMBER_DIGITS + 1))
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_RUN = re.compile(rb"[\[{]+|[\]}]+")
_BRACKETS_AND_QUOTES = bytes(range(256)).translate(None, b'[]{}"')


class _TooManyDigits(Exception):
    def __init__(self, literal: str) -> None:
        self.literal = literal


class _TooManyKeys(Exception):
    def __init__(self, count: int) -> None:
        self.count = count


def _bounded_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len(pairs) > MAX_JSON_KEYS:
        raise _TooManyKeys(len(pairs))
    return dict(pairs)  # as json.loads builds it: the last of a repeated key wins


def _number(text: str, kind: type) -> Any:
    if len(text) > MAX_NUMBER_DIGITS:
        raise _TooManyDigits(text)
    return kind(text)


def _int(text: str) -> int:
    return int(_number(text, int))


def _float(text: str) -> float:
    return float(_number(text, float))


def _structure(raw: bytes) -> bytes:
    """Brackets only: escapes and strings removed (brackets inside strings do not count)."""
    # Escapes go first (so \" cannot end a string); then every other byte but brackets and
    # quotes; then the strings themselves: the pieces between quotes at odd positions.
    return b"".join(_ESCAPE.sub(b"", raw).translate(None, _BRACKETS_AND_QUOTES).split(b'"')[::2])


def json_containers(raw: bytes) -> int:
    """How many objects and lists the text holds (an upper bound first, counted in place)."""
    upper = raw.count(b"[") + raw.count(b"{")
    if upper <= MAX_JSON_CONTAINERS:
        return upper
    kept = _structure(raw)
    return kept.count(b"[") + kept.count(b"{")


def json_depth_exceeds(raw: bytes, limit: int = MAX_DEPTH) -> bool:
    """True if brackets nest deeper than `limit` (brackets inside strings do not count).

    Linear: escapes and strings are removed at C speed, shallow structure is
    peeled off in a few passes, and what remains is followed run by run of opening or closing
    brackets (about two seconds for 50 MB of nothing but deep brackets). Malformed bracketing
    is left to the parser to report.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    kept = _structure(raw)
    # Shallow, bulky documents (many small lists) vanish in a few passes that each delete the
    # innermost pairs; once a pass removes less than a quarter, the rest is walked run by run.
    passes = 0
    while kept and passes < limit:
        shorter = kept.replace(b"[]", b"").replace(b"{}", b"")
        if len(shorter) > 0.75 * len(kept):
            break
        kept, passes = shorter, passes + 1
    depth = passes
    for run in _RUN.findall(kept):
        if run[0] in b"[{":
            depth += len(run)
            if depth > limit:
                return True
        else:
            depth -= len(run)
    return False


def loads_json(text: str | bytes, file: str, row: int | None = None) -> Any:
    """json.loads with depth, digit, key and container bounds; bare Infinity and NaN are accepted
    (Python's writer emits them). Bounds raise IngestError naming the file; bad syntax
    JSONDecodeError."""
    raw = text.encode() if isinstance(text, str) else text
    where = f"line {row}: " if row is not None else ""
    if json_depth_exceeds(raw):
        raise IngestError.one(
            file, f"{where}JSON nested deeper than {MAX_DEPTH} levels is refused", row=row
        )
    containers = json_containers(raw)
    if containers > MAX_JSON_CONTAINERS:
        raise IngestError.one(
            file,
            f"{where}JSON of {containers:,} objects and lists is refused; "
            f"at most {MAX_JSON_CONTAINERS:,}",
            row=row,
        )
    # Only text with a long digit run (maybe inside a string) or enough colons for one wide
    # object (maybe inside strings too) pays for the checked path.
    hooks: dict[str, Any] = {}
    if _LONG_DIGITS.search(raw):
        hooks.update(parse_int=_int, parse_float=_float)
    if raw.count(b":") > MAX_JSON_KEYS:
        hooks["object_pairs_hook"] = _bounded_object
    try:
        doc = json.loads(text, **hooks)
    except _TooManyKeys as exc:
        raise IngestError.one(
            file,
            f"{where}a JSON object with {exc.count:,} keys is refused; at most {MAX_JSON_KEYS:,}",
            row=row,
        ) from None
    except _TooManyDigits as exc:
        shown = exc.literal[:20]
        raise IngestError.one(
            file,
            f"{where}a number of {len(exc.literal)} characters ({shown}…) is refused; "
            f"at most {MAX_NUMBER_DIGITS}",
            row=row,
        ) from None
    except RecursionError:
        raise IngestError.one(file, f"{where}JSON nested too deeply", row=row) from None
    # A \uD800-style escape may leave a lone surrogate, which no database can store as UTF-8:
    # only text with such an escape pays for the walk.
    if _SURROGATE_ESCAPE.search(raw) and not _encodable(doc):
        raise IngestError.one(
            file,
            f"{where}a string holds a lone surrogate (\\ud800-\\udfff): not valid Unicode",
            row=row,
        )
    return doc


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _encodable(value: Any) -> bool:
    """Every string of a parsed document (keys too) is valid UTF-8 text."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode()
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


class _NoAliasLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader; aliases are checked for before it runs (see load_yaml)."""


_NUMBERISH = re.compile(r"[-+]?[0-9._,:]*[0-9][0-9._,:eE+-]*")


def load_yaml(text: str, file: str) -> Any:
    """yaml safe_load that refuses aliases, nesting deeper than MAX_DEPTH, huge numbers, and
    more keys or collections than JSON may have (the node tree costs ~700 bytes per `[]`).

    The event stream is checked first (cheap: aliases are not expanded at that stage), so a
    "billion laughs" file is refused before anything is built.
    """
    screen = _YamlScreen()
    try:
        for event in yaml.parse(text, Loader=_NoAliasLoader):
            why = screen.refusal(event)
            if why is not None:
                line = event.start_mark.line + 1 if event.start_mark else None
                raise IngestError.one(file, why, row=line)
        return yaml.load(text, Loader=_NoAliasLoader)
    except RecursionError:
        raise IngestError.one(file, "YAML nested too deeply") from None


class _YamlScreen:
    """The bounds of load_yaml, checked event by event before any node is built."""

    def __init__(self) -> None:
        self.depth = 0
        self.containers = 0
        # Per open collection: whether it is a mapping, and how many nodes it holds so far (a
        # mapping's nodes alternate key, value).
        self.open_nodes: list[list[int]] = []

    def refusal(self, event: yaml.Event) -> str | None:
        """Why the file is refused at this event, or None."""
        if isinstance(event, yaml.NodeEvent) and self.open_nodes:
            parent = self.open_nodes[-1]
            parent[1] += 1
            if parent[0] and parent[1] > 2 * MAX_JSON_KEYS:
                return f"a YAML mapping with more than {MAX_JSON_KEYS:,} keys is refused"
        if isinstance(event, yaml.CollectionStartEvent):
            self.open_nodes.append([isinstance(event, yaml.MappingStartEvent), 0])
            self.containers += 1
            if self.containers > MAX_JSON_CONTAINERS:
                return f"YAML of more than {MAX_JSON_CONTAINERS:,} mappings and lists is refused"
        elif isinstance(event, yaml.CollectionEndEvent):
            self.open_nodes.pop()
        if isinstance(event, yaml.AliasEvent):
            return f"YAML aliases (*{event.anchor}) are refused: expand them in the file"
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                return f"YAML nested deeper than {MAX_DEPTH} levels is refused"
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            self.depth -= 1
        elif (
            isinstance(event, yaml.ScalarEvent)
            and not event.style  # plain (libyaml says "", the Python parser None)
            and len(event.value) > MAX_NUMBER_DIGITS
            and _NUMBERISH.fullmatch(event.value)
        ):
            return (
                f"a number of {len(event.value)} characters is refused; at most {MAX_NUMBER_DIGITS}"
            )
        return None
