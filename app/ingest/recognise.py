"""Which file of an upload is what: claimed by a tool's importer, read as canonical CSV
(points or per-request samples), or not a result file, and why not (the refusal's words when
no file of the upload is one)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from app.ingest import canonical
from app.ingest.canonical_requests import RequestGroup, parse_requests_csv
from app.ingest.errors import IngestError, RowError
from app.ingest.near_miss import near_miss
from app.ingest.parsed import ParsedSweep
from app.ingest.safe_load import load_yaml
from app.ingest.skipped import NESTED, is_archive
from app.ingest.source import SourceFile
from app.ingest.telemetry import is_exposition, is_range_answer
from app.ingest.text import (
    SNIFF_BYTES,
    check_csv_width,
    check_text,
    first_text_line,
    looks_like_csv,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from app.ingest.registry import Importer

YAML_SUFFIXES = (".yaml", ".yml")
# A per-request file this large starts reading before the upload's other files are read.
READ_AHEAD_BYTES = 1 << 20


@dataclass
class Found:
    """The upload's files sorted by what they are: each tool's files (by importer index), the
    canonical sweeps and per-request files read, and the files no importer recognises (with
    why, when known); `results` counts the result files."""

    sweeps: list[ParsedSweep] = field(default_factory=list)
    requests: list[tuple[str, list[RequestGroup]]] = field(default_factory=list)
    claimed: dict[int, list[SourceFile]] = field(default_factory=dict)
    unrecognised: list[tuple[SourceFile, RowError | None]] = field(default_factory=list)
    results: int = 0


class ReadAhead:
    """The upload's large canonical per-request files, each read on a helper thread from the
    start, while the files sorted before it (its points file: `x.csv` before
    `x.requests.csv`) are read: polars reads the samples on both cores while the points file
    is read in Python. `take` gives a file's request groups, or raises its refusal, as
    `parse_requests_csv` would have there."""

    def __init__(self, sources: Sequence[SourceFile], tools: Sequence[Importer]) -> None:
        self._started: dict[int, Future[list[RequestGroup]]] = {}
        self._pool: ThreadPoolExecutor | None = None
        if len(sources) < 2:
            return  # nothing to read meanwhile
        for source in sources:
            if len(source.data) >= READ_AHEAD_BYTES and _requests_file(source, tools):
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(1, thread_name_prefix="read-ahead")
                read = self._pool.submit(parse_requests_csv, source.name, source.data)
                self._started[id(source)] = read

    def take(self, source: SourceFile) -> list[RequestGroup]:
        started = self._started.pop(id(source), None)
        if started is None:
            return parse_requests_csv(source.name, source.data)
        return started.result()

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *_: object) -> None:
        if self._pool is not None:  # a read no file took (the upload failed) is left to end
            self._pool.shutdown(wait=False, cancel_futures=True)


def _requests_file(source: SourceFile, tools: Sequence[Importer]) -> bool:
    """Whether `sort_file` reads this file as canonical per-request samples (a file it refuses
    before that is not read ahead: it is refused there, in its turn)."""
    try:
        if _may_be_csv(source):
            check_csv_width(source.name, source.data)
        if any(t.sniff(source) for t in tools) or is_archive(source.data):
            return False
        return _canonical_kind(source) == "requests"
    except IngestError:
        return False


def sort_file(
    source: SourceFile,
    tools: Sequence[Importer],
    found: Found,
    defaults: Mapping[str, Any],
    require_meta: bool,
    ahead: ReadAhead,
) -> None:
    """One file into `found`: claimed by a tool, read as canonical CSV (a per-request file
    from `ahead`, which reads the large ones from the start), or unrecognised."""
    if _may_be_csv(source):
        check_csv_width(source.name, source.data)  # before any CSV reader sees a row
    # Tools first: their markers are specific (a vLLM summary.csv also names
    # request_rate), while canonical CSV is recognised by any known column.
    index = next((i for i, t in enumerate(tools) if t.sniff(source)), None)
    if index is not None:
        found.results += 1
        found.claimed.setdefault(index, []).append(source)
        return
    if is_archive(source.data):  # only a member can be one: archives were expanded
        found.unrecognised.append((source, RowError(source.name, NESTED)))
        return
    try:
        kind = _canonical_kind(source)
    except IngestError as exc:  # binary or not UTF-8: no result file at all
        found.unrecognised.append((source, exc.errors[0]))
        return
    if kind is None:
        _check_json(source)
        found.unrecognised.append((source, None))
        return
    found.results += 1
    if kind == "requests":
        found.requests.append((source.name, ahead.take(source)))
    else:
        check_text(source.name, source.data)  # read as bytes: no decoded copy
        found.sweeps.extend(
            canonical.parse_sweeps_csv(source.name, source.data, dict(defaults), require_meta)
        )


def _canonical_kind(source: SourceFile) -> str | None:
    """'points' or 'requests' for a canonical CSV, None for anything else (an empty file
    too); binary or non-UTF-8 content raises IngestError saying so."""
    head = source.head(SNIFF_BYTES)
    if not head or head[:1] in (b"{", b"["):
        return None
    # Only the first line is decoded: a per-request file may be large (a bad byte further on
    # is refused when the file is read).
    first_line = first_text_line(source.name, source.data)
    header = [c.strip().strip('"') for c in first_line.split(",")]
    if canonical.is_request_header(header):
        return "requests"
    if canonical.looks_like_canonical(header):
        return "points"
    return None


def _may_be_csv(source: SourceFile) -> bool:
    """A file some CSV reader may read: named .csv, or headed like a CSV; never JSON."""
    if source.head(SNIFF_BYTES)[:1] in (b"{", b"["):
        return False
    return source.name.lower().endswith(".csv") or looks_like_csv(source.data)


def _check_json(source: SourceFile) -> None:
    """A .json file that breaks off is a broken result file, not a side file: its error refuses
    the upload. (A side file's JSON is valid; JSONL reads as extra data after the first value.)
    The parse is the bounded one every sniffer shares, done once; a file of another name
    (a `.commands` file, a log opening with "[INFO]") is never parsed to tell."""
    if not source.name.lower().endswith(".json"):
        return
    if source.head(SNIFF_BYTES)[:1] not in (b"{", b"["):
        return
    error = source.json_error  # raises IngestError past a depth or digit bound
    if error is not None and not error.startswith("Extra data"):
        raise IngestError.one(source.name, f"not valid JSON ({error})")


# A serving-metrics file given as a benchmark result: the upload page routes it to /production
# by this message.
TELEMETRY_REFUSAL = (
    "Prometheus serving metrics, not a benchmark result: store them as a deployment's "
    "production windows (POST /api/production, or paretoscope production FILES --store NAME)"
)


def unrecognised(source: SourceFile, tools: list[Any]) -> RowError:
    """Why a file is not a result file, when no file of the upload is one (the refusal)."""
    names = ", ".join(["canonical CSV", *(t.name for t in tools)])
    if not source.data or source.data.isspace():
        return RowError(source.name, "the file is empty")
    if source.data[:1] in (b"{", b"[") and source.json_error:
        return RowError(
            source.name, f"not valid JSON ({source.json_error}); expected one of: {names}"
        )
    if source.data[:1] not in (b"{", b"[") and source.name.lower().endswith(YAML_SUFFIXES):
        # Sniffers treat any failure as "not mine": a YAML file refused for its aliases or
        # depth would read as unrecognised, so say the real reason. Only for a YAML file, and
        # only here, when the upload is refused anyway: a side file is never parsed.
        try:
            load_yaml(source.text, source.name)
        except yaml.YAMLError:
            pass
        except IngestError as exc:
            return exc.errors[0]
    if is_exposition(source) or is_range_answer(source):
        return RowError(source.name, TELEMETRY_REFUSAL)
    near = near_miss(source.data)
    if near is not None:
        return RowError(
            source.name, f"not a recognised result file: {near}; expected one of: {names}"
        )
    return RowError(source.name, f"not a recognised result file; expected one of: {names}")
