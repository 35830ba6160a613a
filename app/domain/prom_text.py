"""Prometheus text exposition (and OpenMetrics) parsed into samples, with bounds.

Pure: the standard library and prometheus_client's parser (no web, database or settings
modules). A scrape of an engine's /metrics is small (a vLLM server writes
~40 KB); the bounds refuse anything far past that before it costs memory or time: bytes, lines,
labels per sample, characters per name and label value, and digits per number.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field
from typing import Any

from prometheus_client.parser import text_fd_to_metric_families

from app.domain.bounds import MS_ABOVE, time_problem

MAX_BYTES = 16 * 1024 * 1024
MAX_LINES = 200_000
MAX_LABELS = 32
MAX_NAME_CHARS = 200
MAX_LABEL_VALUE_CHARS = 1_000
MAX_NUMBER_CHARS = 40  # a float needs 17 significant digits; anything longer is not a reading
# A sample line at every bound above is ~71,000 characters: a longer one is refused unparsed.
MAX_LINE_CHARS = 100_000

Labels = tuple[tuple[str, str], ...]  # sorted (name, value) pairs

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_SCRAPED_AT = re.compile(r"#\s*scraped_at[:=\s]\s*(\S+)\s*$", re.IGNORECASE)


class ExpositionError(ValueError):
    """The text is not a readable exposition; `line` is 1-based (0: the whole text)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Sample:
    name: str
    labels: Labels
    value: float

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)


@dataclass
class Scrape:
    """One reading of /metrics: its samples, declared types, and when it was taken (Unix s)."""

    samples: list[Sample]
    types: dict[str, str] = field(default_factory=dict)
    scraped_at_s: float | None = None
    lines: list[int] = field(default_factory=list)  # each sample's line (1-based), when parsed


def parse_time(text: str) -> float:
    """Unix seconds from a number (s, or ms when > 1e11) or an ISO 8601 time (UTC when bare)."""
    text = text.strip()
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"time {text[:40]!r}… is too long")
    try:
        value = float(text)
    except ValueError:
        try:
            when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"time {text!r} is neither Unix seconds nor ISO 8601") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.UTC)
        return checked_time(when.timestamp())
    if not math.isfinite(value):
        raise ValueError(f"time {text!r} is not finite")
    return checked_time(value / 1000 if value > MS_ABOVE else value)


def checked_time(seconds: float) -> float:
    """The time itself, or ValueError when a page could not show it (app.domain.bounds)."""
    problem = time_problem(seconds)
    if problem:
        raise ValueError(problem)
    return seconds


def parse_exposition(text: str, scraped_at_s: float | None = None) -> Scrape:
    """Every sample of a text exposition, read by prometheus_client's parser inside the bounds
    above. `# scraped_at <time>` sets the scrape's time unless `scraped_at_s` is given; without
    either, the samples' own timestamps (ms) are used when they all agree. Raises
    ExpositionError naming the line."""
    if len(text) > MAX_BYTES:
        raise ExpositionError(0, f"the text is {len(text):,} characters; at most {MAX_BYTES:,}")
    if text.count("\n") > MAX_LINES:  # counted in place, before any line is parsed
        raise ExpositionError(0, f"more than {MAX_LINES:,} lines")
    lines = _SampleLines(text)
    samples: list[Sample] = []
    stamps: set[float] = set()
    try:
        # Comments never reach the parser (TYPE is read here), so each sample is a family of
        # its own, in the text's order and under the name its line gives.
        for family in text_fd_to_metric_families(lines):  # type: ignore[arg-type]
            for found in family.samples:
                samples.append(_sample(found, lines.current))
                if found.timestamp is not None:
                    stamps.add(_timestamp(float(found.timestamp), lines.current))
    except ValueError as exc:
        if isinstance(exc, ExpositionError):
            raise
        raise ExpositionError(lines.current.number, _unreadable(lines.current.text, exc)) from None
    if scraped_at_s is None:
        scraped_at_s = lines.declared
    if scraped_at_s is None and len(stamps) == 1:
        scraped_at_s = stamps.pop()
    numbers = [line.number for line in lines.read]
    return Scrape(samples=samples, types=lines.types, scraped_at_s=scraped_at_s, lines=numbers)


@dataclass(frozen=True)
class _Line:
    number: int  # 1-based
    text: str
    name: str
    value: str  # the value's text


class _SampleLines:
    """The sample lines of a text, each checked against the bounds as the parser reads it;
    comments are read here (TYPE, `# scraped_at`) and blank lines passed over."""

    def __init__(self, text: str) -> None:
        self._lines = enumerate(text.splitlines(), start=1)
        self.read: list[_Line] = []
        self.current = _Line(0, "", "", "")
        self.types: dict[str, str] = {}
        self.declared: float | None = None

    def __iter__(self) -> _SampleLines:
        return self

    def __next__(self) -> str:
        for number, raw in self._lines:
            if number > MAX_LINES:
                raise ExpositionError(number, f"more than {MAX_LINES:,} lines")
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#"):
                self._comment(line, number)
                continue
            if len(line) > MAX_LINE_CHARS:
                raise ExpositionError(
                    number,
                    f"a sample line of {len(line):,} characters (at most {MAX_LINE_CHARS:,})",
                )
            name = _checked_name(line, number)
            self.current = _Line(number, line, name, _checked_numbers(line, name, number)[0])
            self.read.append(self.current)
            return line
        raise StopIteration

    def _comment(self, line: str, number: int) -> None:
        at = _SCRAPED_AT.match(line)
        if at:
            try:
                self.declared = parse_time(at.group(1))
            except ValueError as exc:
                raise ExpositionError(number, f"scraped_at: {exc}") from None
            return
        parts = line.split(None, 3)
        if len(parts) >= 4 and parts[1] == "TYPE":
            self.types[parts[2][:MAX_NAME_CHARS]] = parts[3].strip().lower()


def _checked_name(line: str, number: int) -> str:
    match = _NAME.match(line)
    if not match:
        raise ExpositionError(number, "a sample line does not start with a metric name")
    name = match.group()
    if len(name) > MAX_NAME_CHARS:
        raise ExpositionError(number, f"a metric name is over {MAX_NAME_CHARS} characters")
    return name


def _checked_numbers(line: str, name: str, number: int) -> list[str]:
    """The value and the optional timestamp after the labels: two at most, each short."""
    tokens = (line[line.rfind("}") + 1 :] if "{" in line else line[len(name) :]).split()
    if not tokens or len(tokens) > 2:
        raise ExpositionError(number, f"{name}: expected a value and an optional timestamp")
    for token in tokens:
        if len(token) > MAX_NUMBER_CHARS:
            raise ExpositionError(
                number, f"a number of {len(token)} characters (at most {MAX_NUMBER_CHARS})"
            )
    return tokens


def _sample(found: Any, line: _Line) -> Sample:
    """One parsed sample under its line's own name, its labels checked against the bounds."""
    labels: dict[str, str] = found.labels
    if len(labels) > MAX_LABELS:
        raise ExpositionError(line.number, f"more than {MAX_LABELS} labels on one sample")
    for key, value in labels.items():
        if len(value) > MAX_LABEL_VALUE_CHARS:
            raise ExpositionError(
                line.number, f"label {key!r}'s value is over {MAX_LABEL_VALUE_CHARS} characters"
            )
    reading = float(found.value)
    if reading == 0 and line.value.startswith("-"):  # the parser reads "-0" as the int 0
        reading = -0.0
    return Sample(line.name, tuple(sorted(labels.items())), reading)


def _timestamp(seconds: float, line: _Line) -> float:
    try:
        return checked_time(seconds)
    except ValueError as exc:
        raise ExpositionError(line.number, f"{line.name}'s timestamp (ms): {exc}") from None


def _unreadable(line: str, exc: ValueError) -> str:
    """Why the parser refused a sample line, in words naming the field at fault."""
    name = _NAME.match(line)
    label = name.group() if name else "the sample"
    if "{" in line:
        key = _open_value(line[line.index("{") :])
        if key is not None:
            return f"label {key!r}'s value is not closed"
        if "}" not in line:
            return f"the labels of {label} are not closed"
    tokens = (line[line.rfind("}") + 1 :] if "{" in line else line[len(label) :]).split()
    try:
        float(tokens[0].replace("_", "#"))  # prometheus_client refuses 1_000; so do we
    except (ValueError, IndexError):
        return f"{tokens[0][:40]!r} is not a number" if tokens else f"{label}: no value"
    why = str(exc).split(":", 1)[0][:80] or "unreadable"
    return f'the labels of {label} are malformed ({why}; label="value" pairs, each name once)'


_KEY_BEFORE = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*$")


def _open_value(labels: str) -> str | None:
    """The label whose quoted value is left open in the label text, if one is (a backslash
    escapes the next character inside a value)."""
    inside: str | None = None
    i = 0
    while i < len(labels):
        c = labels[i]
        if c == "\\" and inside is not None:
            i += 2
            continue
        if c == '"':
            if inside is None:
                key = _KEY_BEFORE.search(labels, 0, i)
                inside = key.group(1) if key else ""
            else:
                inside = None
        i += 1
    return inside


MAX_SELECTOR_CHARS = 500
MAX_SELECTOR_LABELS = 16
_PAIR = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,"{}\s]*))\s*')


def parse_selector(text: str | None) -> dict[str, str]:
    """Equality matchers from `model_name="m",engine="0"` (braces and quotes optional).

    Only `=` is read: the same selector filters uploaded scrapes here and goes into PromQL for
    a live pull, and `=` means the same in both."""
    if not text or not text.strip():
        return {}
    if len(text) > MAX_SELECTOR_CHARS:
        raise ValueError(f"the selector is over {MAX_SELECTOR_CHARS} characters")
    if "\x00" in text:
        raise ValueError("the selector contains a NUL byte")
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    out: dict[str, str] = {}
    at = 0
    while at < len(body):
        match = _PAIR.match(body, at)
        if not match or match.end() == at:
            raise ValueError(f'the selector is not label="value" pairs near {body[at : at + 20]!r}')
        key, quoted, bare = match.groups()
        out[key] = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
        at = match.end()
        if at < len(body):
            if body[at] != ",":
                raise ValueError(f"the selector has {body[at]!r} where a comma belongs")
            at += 1
        if len(out) > MAX_SELECTOR_LABELS:
            raise ValueError(f"the selector has more than {MAX_SELECTOR_LABELS} labels")
    return out


def promql_selector(labels: dict[str, str]) -> str:
    """The labels as a PromQL matcher list, values escaped."""
    escaped = (
        f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for k, v in sorted(labels.items())
    )
    return ",".join(escaped)
