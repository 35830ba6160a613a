"""Uploaded serving telemetry → scrapes: Prometheus text snapshots of an engine's /metrics, or a
query_range JSON answer, each recognised by content (never by name)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.prom_checks import impossible_readings
from app.domain.prom_names import ENGINES
from app.domain.prom_range import RangeError, looks_like_range, scrapes_of_range
from app.domain.prom_text import ExpositionError, Scrape, parse_exposition
from app.ingest.errors import IngestError, RowError
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES

_PREFIXES = tuple(e.prefix.encode() for e in ENGINES)


@dataclass(frozen=True)
class Telemetry:
    source: str  # snapshots | range
    scrapes: list[Scrape]


def is_exposition(file: SourceFile) -> bool:
    """Prometheus text holding a serving engine's series (vllm:…, sglang:…)."""
    head = file.head(SNIFF_BYTES)
    if not head or head[:1] in (b"{", b"["):
        return False
    return any(b"\n" + p in b"\n" + head or head.startswith(p) for p in _PREFIXES)


def is_range_answer(file: SourceFile) -> bool:
    if file.head(1) != b"{":
        return False
    try:
        return looks_like_range(file.json())
    except IngestError:
        return False


def read_telemetry(files: Sequence[SourceFile], times_s: Sequence[float] | None) -> Telemetry:
    """Snapshots (two or more, each timed by `times_s` in file order or its `# scraped_at`) or
    query_range answers; refuses, naming the file and line, anything else or a mix of both."""
    if not files:
        raise IngestError([RowError("(upload)", "no files: give two scrapes or a range answer")])
    ranges = [f for f in files if is_range_answer(f)]
    texts = [f for f in files if f not in ranges]
    if ranges and texts:
        raise IngestError.one(texts[0].name, "mixes a /metrics scrape with query_range answers")
    if ranges:
        scrapes: list[Scrape] = []
        for f in ranges:
            try:
                read = scrapes_of_range(f.json())
            except RangeError as exc:
                raise IngestError.one(f.name, str(exc)) from None
            _refuse_impossible(f.name, read)
            scrapes += read
        return Telemetry("range", scrapes)
    if times_s is not None and len(times_s) != len(texts):
        raise IngestError(
            [
                RowError(
                    "(form)",
                    f"{len(times_s)} scrape times for {len(texts)} files",
                    None,
                    None,
                    "times",
                )
            ]
        )
    out = []
    for i, f in enumerate(texts):
        if f.head(1) == b"{":
            raise IngestError.one(f.name, "JSON, but not a Prometheus query_range answer (matrix)")
        try:
            scrape = parse_exposition(f.text, None if times_s is None else times_s[i])
        except ExpositionError as exc:
            raise IngestError.one(f.name, exc.reason, exc.line or None) from None
        if not is_exposition(f):
            raise IngestError.one(f.name, "no vLLM (vllm:…) or SGLang (sglang:…) series")
        if scrape.scraped_at_s is None:
            raise IngestError.one(
                f.name, "no scrape time: give the times, or start it with '# scraped_at <time>'"
            )
        _refuse_impossible(f.name, [scrape])
        out.append(scrape)
    return Telemetry("snapshots", out)


def _refuse_impossible(file: str, scrapes: Sequence[Scrape]) -> None:
    """Refuse a file holding a reading no engine exports (app.domain.prom_checks), naming the
    file, the line and the metric."""
    errors = [
        RowError(file, bad.message, bad.line, bad.name)
        for scrape in scrapes
        for bad in impossible_readings(scrape)
    ]
    if errors:
        raise IngestError(errors)
