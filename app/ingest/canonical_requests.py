"""Canonical per-request CSV: one row per request, grouped into the request samples of points.

Large files (millions of requests) are read from the uploaded bytes once, by polars' streaming
reader, and handed over in chunks of rows, each typed as it is read, checked, and split by
point: no Python object per request, no decoded copy of the file, and peak memory a small
multiple of the file rather than of the rows.
A file whose cells do not all parse as their types is read again the careful way (every cell
as text, typed column by column), so each bad cell is still named by file, row and column.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from app.domain import phases
from app.domain.phases import PHASE
from app.ingest.blank_lines import without_blank_rows
from app.ingest.canonical import (
    FALSE_WORDS,
    NULL_VALUES,
    POLARS_TYPES,
    REQUEST_TYPES,
    TRUE_WORDS,
    read_frame,
    typed_frame,
)
from app.ingest.canonical_request_checks import name_rows, row_checks
from app.ingest.common import refuse_duplicate_columns
from app.ingest.errors import IngestError, RowError
from app.ingest.frames import columns_of, key_groups, key_runs
from app.ingest.parsed import (
    CACHED_INPUT,
    SAMPLE_FIELDS,
    SAMPLE_FRAME_SCHEMA,
    ParsedPoint,
    ParsedSweep,
)
from app.ingest.point_table import ROW
from app.ingest.text import check_text, decode_text

# Requests per chunk: each check and split has a fixed cost, and a chunk's transient memory is
# a few times its size, whatever the file's. The file is read once and handed over in chunks:
# read as 8 MB texts, each copied out with the header and read on its own, a 1M-request file
# took ~410 ms, streamed ~290 (each read's fixed cost, and the copies), for ~10 MB more peak.
CHUNK_ROWS = 200_000
INT32_MAX = 2**31 - 1
KEYS = ("sweep", "concurrency", "request_rate")
LENGTHS = ("output_len", "input_len", CACHED_INPUT)
TEXT_AS_READ = ("session_id",)  # text columns read as text, not as categories
MAX_RUNS = 4_096  # more runs of loads than this in a chunk: they interleave, so split it
FILTER_GROUPS = 8  # loads in a chunk split by a filter each (more: by one partition)


@dataclass
class RequestGroup:
    """The samples one point of one sweep gets: its rows of the file, in file order."""

    sweep: str | None
    concurrency: float | None
    request_rate: float | None
    first_row: int  # where the group starts in the file (the header is row 1)
    samples: pl.DataFrame  # SAMPLE_FIELDS columns


class _Untyped(Exception):
    """A cell did not parse as its column's type: read the file the careful way instead."""


def parse_requests_csv(file: str, data: bytes, chunk_rows: int = CHUNK_ROWS) -> list[RequestGroup]:
    """Canonical per-request CSV → its request groups, in the order they first appear."""
    check_text(file, data)
    header = _header(file, data)
    errors: list[RowError] = []
    for name in ("sweep", "ttft_ms", "e2el_ms", "output_len", "ok"):
        if name not in header:
            errors.append(RowError(file, f"required column {name!r} is missing", row=1))
    if "concurrency" not in header and "request_rate" not in header:
        errors.append(RowError(file, "needs a 'concurrency' or a 'request_rate' column", row=1))
    if errors:
        raise IngestError(errors)
    reading = _Reading()
    while True:
        try:
            return _collect(file, _fast_chunks(data, header, chunk_rows, reading), [], header)
        except _ReadAgain as again:
            reading = again.reading
        except _Untyped:
            break
    frame = read_frame(file, decode_text(file, data))
    typed = typed_frame(file, frame, REQUEST_TYPES, errors)
    return _collect(file, iter([_narrow_lengths(typed)]), errors, header)


def _header(file: str, data: bytes) -> list[str]:
    """Column names as polars reads them; a name given twice is refused, naming it."""
    end = data.find(b"\n")
    first = data[: end if end >= 0 else len(data)].decode("utf-8-sig", "replace")
    try:
        written = next(csv.reader(io.StringIO(first)), [])
    except csv.Error as exc:
        raise IngestError.one(file, f"not a readable CSV ({exc})", row=1) from exc
    refuse_duplicate_columns(file, written)
    head = data if b'"' in data[: end + 1 if end >= 0 else len(data)] else first.encode()
    try:
        return pl.read_csv(head, n_rows=0).columns
    except pl.exceptions.PolarsError as exc:
        raise IngestError.one(file, "not a readable CSV", row=1) from exc


@dataclass(frozen=True)
class _Reading:
    """How the file is read the fast way: `ok` as polars' own booleans and token counts as
    32-bit integers, or (`words`) `ok` as categories, read as words; and with the null words
    or (the common file) without."""

    words: bool = False
    nulls: bool = False


class _ReadAgain(Exception):
    """The file does not read this way: read it again, from its start, that way."""

    def __init__(self, reading: _Reading) -> None:
        super().__init__()
        self.reading = reading


def _fast_chunks(
    data: bytes, header: list[str], chunk_rows: int, reading: _Reading
) -> Iterator[pl.DataFrame]:
    """Typed chunks of rows read straight from the bytes, `reading` as it says; _ReadAgain
    when the file must be read another way, and _Untyped when no fast way reads it.

    First `ok` as polars' own booleans (true/false in any case, a subset of TRUE_WORDS /
    FALSE_WORDS) and token counts as 32-bit integers: the common file, typed in one pass.
    A file that does not read so (other words for ok, a count beyond 32 bits) is read with `ok`
    as categories, so trimming and reading the words run once per distinct value, not once
    per request. First without the null words: matching five words in every cell costs a
    third of the read. An empty cell is null either way and a null word in a typed column
    does not parse, so only text columns can differ: a file with a null word anywhere is read
    again with them. Each other way starts again from the first row (the chunks read so far
    are dropped by the caller): a common file is read once. `sweep` is a category either way.
    """
    known = [c for c in header if c in REQUEST_TYPES]
    text = ("str", "bool")
    schema = {
        c: pl.Categorical() if REQUEST_TYPES[c] in text else POLARS_TYPES[REQUEST_TYPES[c]]
        for c in known
    }
    # A session id is text of its own per few requests: read as text, not categories (a
    # category per session cost a third more than the read; samples keep it as text).
    schema |= {c: pl.String() for c in TEXT_AS_READ if c in known}
    if not reading.words:
        schema |= {"ok": pl.Boolean()}
        schema |= {c: pl.Int32() for c in (*LENGTHS, "turn_index") if c in known}
    nulls = NULL_VALUES if reading.nulls else None
    try:
        scan = pl.scan_csv(data, schema_overrides=schema, null_values=nulls).select(known)
        chunks = iter(scan.collect_batches(chunk_size=chunk_rows))
    except pl.exceptions.PolarsError as exc:
        raise _read_otherwise(reading) from exc
    while True:
        try:
            chunk = next(chunks, None)
        except pl.exceptions.PolarsError as exc:
            raise _read_otherwise(reading) from exc
        if chunk is None:
            return
        if not reading.nulls and _holds_null_words(chunk):
            raise _ReadAgain(replace(reading, nulls=True))
        if reading.words:
            yield _narrow_lengths(_typed_text(chunk))
            continue
        cleaned = _clean_sweep(chunk)
        yield chunk if cleaned is None else chunk.with_columns(cleaned)


def _read_otherwise(reading: _Reading) -> Exception:
    """What follows a cell that did not parse read this way: with the null words (a null word
    in a typed column), then with `ok` as words, then the careful read."""
    if not reading.nulls:
        return _ReadAgain(replace(reading, nulls=True))
    if not reading.words:
        return _ReadAgain(_Reading(words=True))
    return _Untyped()


def _holds_null_words(chunk: pl.DataFrame) -> bool:
    """Whether a text column of a chunk read without null words holds one (judged on its
    distinct values where they are categories), in one query for every text column."""
    found = []
    for name, dtype in chunk.schema.items():
        if dtype == pl.Categorical():
            words = pl.col(name).unique().drop_nulls().cast(pl.String)
        elif dtype == pl.String():
            words = pl.col(name)
        else:
            continue
        found.append(words.is_in(NULL_VALUES).any().alias(name))
    return bool(found) and any(chunk.select(found).row(0))


def _cleaned(values: pl.Series) -> pl.Series:
    # As read_frame does for text cells: trim, and undo the export's formula quoting.
    return values.str.strip_chars().str.replace(r"^'([=+\-@])", "$1")


def _typed_text(chunk: pl.DataFrame) -> pl.DataFrame:
    """`ok` as booleans and `sweep` as text, judged on their distinct values."""
    distinct = chunk["ok"].unique().drop_nulls().cast(pl.String)
    lowered = _cleaned(distinct).str.to_lowercase()
    true = distinct.filter(lowered.is_in(TRUE_WORDS))
    false = distinct.filter(lowered.is_in(FALSE_WORDS))
    if true.len() + false.len() != distinct.len():
        raise _Untyped  # a cell that is not true or false: the careful read names it
    ok = pl.when(pl.col("ok").is_null()).then(None).otherwise(pl.col("ok").is_in(true.to_list()))
    cleaned = _clean_sweep(chunk)
    return chunk.with_columns(ok.alias("ok"), *([] if cleaned is None else [cleaned]))


def _clean_sweep(chunk: pl.DataFrame) -> pl.Expr | None:
    """`sweep` trimmed and unquoted as read_frame does, judged on its distinct names: a
    category per name, so the group key costs one code per request. None when every name is
    clean already (the usual file): nothing to change, no query."""
    names = chunk["sweep"].unique().drop_nulls().cast(pl.String)
    if (_cleaned(names) == names).all():
        return None
    return pl.col("sweep").cast(pl.String).str.strip_chars().str.replace(r"^'([=+\-@])", "$1")


def _collect(
    file: str, chunks: Iterator[pl.DataFrame], errors: list[RowError], columns: list[str]
) -> list[RequestGroup]:
    """Check every chunk (at most five rows named per check, in check order) and split it by
    (sweep, concurrency, request_rate); a group's parts stay separate chunks of one frame."""
    checks = row_checks(columns)
    found: list[list[RowError]] = [[] for _ in checks]
    groups: dict[tuple[object, ...], tuple[RequestGroup, list[pl.DataFrame]]] = {}
    offset = 2
    for read in chunks:
        # Each row's line (the careful read has them already), blank rows dropped.
        chunk = without_blank_rows(read, offset)
        offset += read.height
        flagged = chunk.select(pl.any_horizontal(c.fill_null(False) for _, c, _ in checks).any())
        if flagged.item():
            name_rows(file, chunk, checks, found)
        if errors or any(found):
            continue  # keep counting rows for the messages, but split nothing
        keys = [k for k in KEYS if k in chunk.columns]
        fields = [c for c in (*SAMPLE_FIELDS, CACHED_INPUT, PHASE) if c in chunk.columns]
        # Each part keeps its rows' lines: a new group starts at its part's first one.
        for values, part in _split(chunk, keys, [*fields, ROW]).items():
            found_keys = dict(zip(keys, values, strict=True))
            sweep, concurrency, rate = (found_keys.get(k) for k in KEYS)
            key = (sweep, repr(concurrency), repr(rate))
            entry = groups.get(key)
            samples = columns_of(part, [c for c in part.columns if c != ROW])
            if entry is None:
                first = int(part[ROW][0])
                entry = (RequestGroup(sweep, concurrency, rate, first, samples.clear()), [])
                groups[key] = entry
            entry[1].append(samples)
    errors += [e for per_check in found for e in per_check]
    if errors:
        raise IngestError(errors)
    out = []
    for group, parts in groups.values():
        group.samples = _joined(parts)
        out.append(group)
    return out


def _joined(parts: list[pl.DataFrame]) -> pl.DataFrame:
    """A group's chunks as one frame of the sample fields; optional columns the file left out
    (input_len, session_id, turn_index) are null, cached input tokens kept only when given."""
    samples = (
        parts[0] if len(parts) == 1 else pl.concat(parts, how="vertical_relaxed", rechunk=False)
    )
    absent = [c for c in SAMPLE_FIELDS if c not in samples.columns]
    if absent:
        samples = samples.with_columns(
            pl.lit(None, SAMPLE_FRAME_SCHEMA[c]).alias(c) for c in absent
        )
    cached = [CACHED_INPUT] if CACHED_INPUT in samples.columns else []
    if PHASE in samples.columns:
        return samples.select(*SAMPLE_FIELDS, *cached, pl.col(PHASE).cast(pl.String))
    return columns_of(samples, [*SAMPLE_FIELDS, *cached])


def _split(
    chunk: pl.DataFrame, keys: list[str], fields: list[str]
) -> dict[tuple[Any, ...], pl.DataFrame]:
    """The chunk's samples by group key (values in `keys` order), in order of first row.

    Columns are picked before the split, not per part: a select per part per chunk cost more
    than the split itself. A chunk of one sweep (the usual file) is split by its load alone,
    in about 0.6x the time of splitting by both; and where each load's rows are one run (a tool
    writes one load's requests after another's) the parts are slices of the chunk: no copy.
    Otherwise a few loads (FILTER_GROUPS) are each filtered out of the chunk, and more are
    partitioned, the parts put in order here, by their first line (`fields` ends with ROW),
    rather than by polars (about half the partition's time)."""
    rest = [k for k in keys if k != "sweep"]
    name = chunk["sweep"][0] if rest and chunk["sweep"].n_unique() == 1 else None
    by = rest if name is not None else keys
    if name is not None and (runs := key_runs(chunk, by, MAX_RUNS)) is not None:
        picked = columns_of(chunk, fields)
        return {(name, *values): picked.slice(start, stop - start) for values, start, stop in runs}
    filtered = key_groups(chunk, by, fields, FILTER_GROUPS) if name is not None else None
    if filtered is not None:
        return {(name, *values): part for values, part in filtered}
    parts = chunk.select(*by, *fields).partition_by(by, maintain_order=False)
    found: list[tuple[int, tuple[Any, ...], pl.DataFrame]] = []
    for part in parts:
        if not part[ROW].is_sorted():  # each part's rows in file order, whatever the split did
            part = part.sort(ROW)
        first = part.row(0)  # the keys, then the fields, ROW last
        values = first[: len(by)]
        kept = columns_of(part, fields)
        found.append((first[-1], (name, *values) if name is not None else values, kept))
    found.sort(key=lambda item: item[0])
    return {values: part for _, values, part in found}


def _narrow_lengths(chunk: pl.DataFrame) -> pl.DataFrame:
    """Token counts as 32-bit integers when they fit (they almost always do): a quarter less
    memory per request. A chunk with a larger count keeps 64 bits, for the limits check to
    name it."""
    lengths = [c for c in LENGTHS if c in chunk.columns]
    top = chunk.select(pl.max_horizontal(pl.col(lengths).abs().max())).item()
    if top is not None and top > INT32_MAX:
        return chunk
    return chunk.with_columns(pl.col(lengths).cast(pl.Int32))


def attach_requests(
    file: str, groups: list[RequestGroup], sweeps: list[ParsedSweep], errors: list[RowError]
) -> None:
    by_name = {s.name: s for s in sweeps}
    for group in groups:
        name, concurrency, rate = group.sweep, group.concurrency, group.request_rate
        sweep = by_name.get(str(name))
        if sweep is None:
            errors.append(
                RowError(file, f"no sweep named {name!r} in this upload", group.first_row, "sweep")
            )
            continue
        matches = _matching_points(sweep.points, concurrency, rate)
        load = f"concurrency {concurrency}" if concurrency is not None else f"rate {rate}"
        if len(matches) != 1:
            problem = "no point" if not matches else f"{len(matches)} points"
            errors.append(
                RowError(
                    file, f"sweep {name!r} has {problem} at {load}", group.first_row, "concurrency"
                )
            )
            continue
        point = matches[0]
        if point.samples is not None:
            errors.append(RowError(file, f"samples for {load} given twice", group.first_row))
            continue
        point.samples = group.samples
        given = group.samples
        if PHASE in given.columns and given[PHASE].null_count() < given.height:
            # The file says which requests were warm-up ones: count them as InferenceX does.
            point.extra.setdefault("request_accounting", phases.accounting(group.samples))


def _matching_points(points: list[ParsedPoint], concurrency: Any, rate: Any) -> list[ParsedPoint]:
    return [
        p
        for p in points
        if (concurrency is None or p.values.get("concurrency") == concurrency)
        and (rate is None or p.values.get("request_rate") == rate)
    ]
