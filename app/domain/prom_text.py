"""Prometheus text exposition (and OpenMetrics) parsed into samples, with bounds.

Pure: standard library only. A scrape of an engine's /metrics is small (a vLLM server writes
~40 KB); the bounds refuse anything far past that before it costs memory or time: bytes, lines,
labels per sample, characters per name and label value, and digits per number.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field

from app.domain.bounds import MS_ABOVE, time_problem

MAX_BYTES = 16 * 1024 * 1024
MAX_LINES = 200_000
MAX_LABELS = 32
MAX_NAME_CHARS = 200
MAX_LABEL_VALUE_CHARS = 1_000
MAX_NUMBER_CHARS = 40  # a float needs 17 significant digits; anything longer is not a reading

Labels = tuple[tuple[str, str], ...]  # sorted (name, value) pairs

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_SCRAPED_AT = re.compile(r"#\s*scraped_at[:=\s]\s*(\S+)\s*$", re.IGNORECASE)
_SPECIAL = {"+inf": math.inf, "inf": math.inf, "-inf": -math.inf, "nan": math.nan}


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


def _number(token: str, line: int) -> float:
    if len(token) > MAX_NUMBER_CHARS:
        raise ExpositionError(
            line, f"a number of {len(token)} characters (at most {MAX_NUMBER_CHARS})"
        )
    special = _SPECIAL.get(token.lower())
    if special is not None:
        return special
    try:
        return float(token)
    except ValueError:
        raise ExpositionError(line, f"{token[:40]!r} is not a number") from None


def _labels(text: str, at: int, line: int) -> tuple[Labels, int]:
    """Labels from text[at] == '{' to its '}'; the pairs and the index after '}'."""
    pairs: dict[str, str] = {}
    i = at + 1
    n = len(text)
    while True:
        while i < n and text[i] in " \t,":
            i += 1
        if i < n and text[i] == "}":
            return tuple(sorted(pairs.items())), i + 1
        match = _LABEL_NAME.match(text, i)
        if not match:
            raise ExpositionError(line, "a label name is malformed")
        key = match.group()
        i = match.end()
        while i < n and text[i] in " \t":
            i += 1
        if i + 1 >= n or text[i] != "=" or text[i + 1] != '"':
            raise ExpositionError(line, f"label {key!r} has no quoted value")
        i += 2
        chars: list[str] = []
        while True:
            if i >= n:
                raise ExpositionError(line, f"label {key!r}'s value is not closed")
            c = text[i]
            if c == "\\" and i + 1 < n:
                nxt = text[i + 1]
                chars.append("\n" if nxt == "n" else nxt)
                i += 2
            elif c == '"':
                i += 1
                break
            else:
                chars.append(c)
                i += 1
            if len(chars) > MAX_LABEL_VALUE_CHARS:
                raise ExpositionError(
                    line, f"label {key!r}'s value is over {MAX_LABEL_VALUE_CHARS} characters"
                )
        if key in pairs:
            raise ExpositionError(line, f"label {key!r} is given twice")
        pairs[key] = "".join(chars)
        if len(pairs) > MAX_LABELS:
            raise ExpositionError(line, f"more than {MAX_LABELS} labels on one sample")


def parse_exposition(text: str, scraped_at_s: float | None = None) -> Scrape:
    """Every sample of a text exposition. `# scraped_at <time>` sets the scrape's time unless
    `scraped_at_s` is given; without either, the samples' own timestamps (ms) are used when
    they all agree. Raises ExpositionError naming the line."""
    if len(text) > MAX_BYTES:
        raise ExpositionError(0, f"the text is {len(text):,} characters; at most {MAX_BYTES:,}")
    if text.count("\n") > MAX_LINES:  # counted in place, before any line is parsed
        raise ExpositionError(0, f"more than {MAX_LINES:,} lines")
    samples: list[Sample] = []
    lines: list[int] = []
    types: dict[str, str] = {}
    stamps: set[float] = set()
    declared: float | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if number > MAX_LINES:
            raise ExpositionError(number, f"more than {MAX_LINES:,} lines")
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            at = _SCRAPED_AT.match(line)
            if at:
                try:
                    declared = parse_time(at.group(1))
                except ValueError as exc:
                    raise ExpositionError(number, f"scraped_at: {exc}") from None
                continue
            parts = line.split(None, 3)
            if len(parts) >= 4 and parts[1] == "TYPE":
                types[parts[2][:MAX_NAME_CHARS]] = parts[3].strip().lower()
            continue
        match = _NAME.match(line)
        if not match:
            raise ExpositionError(number, "a sample line does not start with a metric name")
        name = match.group()
        if len(name) > MAX_NAME_CHARS:
            raise ExpositionError(number, f"a metric name is over {MAX_NAME_CHARS} characters")
        i = match.end()
        labels: Labels = ()
        if i < len(line) and line[i] == "{":
            labels, i = _labels(line, i, number)
        rest = line[i:].split()
        if not rest or len(rest) > 2:
            raise ExpositionError(number, f"{name}: expected a value and an optional timestamp")
        value = _number(rest[0], number)
        if len(rest) == 2:
            try:
                stamps.add(checked_time(_number(rest[1], number) / 1000))
            except ValueError as exc:
                raise ExpositionError(number, f"{name}'s timestamp (ms): {exc}") from None
        samples.append(Sample(name, labels, value))
        lines.append(number)
    if scraped_at_s is None:
        scraped_at_s = declared
    if scraped_at_s is None and len(stamps) == 1:
        scraped_at_s = stamps.pop()
    return Scrape(samples=samples, types=types, scraped_at_s=scraped_at_s, lines=lines)


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
