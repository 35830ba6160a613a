"""A point's request-sample digest, which enters its sweep's content hash
(app.ingest.content_hash): the sha256 of the samples' typed values, so the same samples give
the same bytes whichever importer read them. Session fields are hashed only when given and the
phase only when some request is a warm-up one, so samples stored before them keep their digest.

What is hashed (`VALUES`, format 2), after `VALUES_FORMAT`: the row count, and each column's
name, kind and null count as compact JSON; then column by column, in the frame's order, its
values as little-endian bytes: floats as doubles (null as 0.0, -0.0 as 0.0, every NaN as one
NaN), integers as 64-bit (a 32-bit count hashes as a 64-bit one), booleans as one byte each,
text as each value's UTF-8 length (64-bit) and then the values' bytes joined; a column with
nulls is followed by its validity, one bit per value (numpy's packbits).

Format 1 (`CSV`) hashed the CSV text polars writes of the frame (full float precision): writing
that text took three times as long as hashing the values (a million requests: ~0.13 s of CPU
against ~0.05 s), and an upload is CPU-bound on two cores. Sweeps stored before migration
20261208_values keep their format-1 hash, marked in `sweep.sample_digest`; an upload still
finds them (app.store.sample_digest_formats), and moves a sweep it finds to format 2.

The points of a large sweep are digested on a few helper threads at once (polars and hashlib
let go of the GIL). A large upload starts them once its sample blocks are encoded (`start`,
from app.store.sweep_save), so that the blocks go into the database while they run; a digest
computed when it was not started is kept for the next hash of the same samples.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any, Protocol, cast

import numpy as np
import polars as pl

from app.domain.phases import PHASE, has_warmup
from app.ingest.frames import columns_of

# A request's session and turn (issue 49) are optional: null for a single-turn run, and left
# out of the digest then, so every sweep stored before keeps its hash.
SESSION_FIELDS: tuple[str, ...] = ("session_id", "turn_index")
# Points digested at once (polars and hashlib let go of the GIL), at most one per core: on two
# cores, four 25,000-request points four at once took a quarter more CPU than two at once and
# twice the page faults (each thread's copies in memory of its own), for no less wall time.
THREADS = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 4)
PARALLEL_MIN_ROWS = 20_000  # below this, starting threads costs about what they save
SLICE_ROWS = 65_536  # rows hashed at a time (a multiple of 8, for the validity bits)


CSV = 1  # format 1: the samples' CSV text (sweeps stored before migration 20261208_values)
VALUES = 2  # format 2: their typed values
VALUES_FORMAT = b"paretoscope samples 2\n"


def frame_digest(frame: pl.DataFrame, digest_format: int = VALUES) -> str:
    """The digest of one point's samples, `frame` as ParsedPoint.samples_frame(any_int_width=True)
    gives them (a 32-bit count hashes as a 64-bit one), in `digest_format`."""
    unused = [c for c in SESSION_FIELDS if frame[c].null_count() == frame.height]
    unused += [] if has_warmup(frame) else [PHASE]
    # Not a drop: a query, ~1 ms here while the other digest threads and the upload send theirs.
    hashed = columns_of(frame, [c for c in frame.columns if c not in unused])
    return _csv_digest(hashed) if digest_format == CSV else _values_digest(hashed)


def _values_digest(frame: pl.DataFrame) -> str:
    columns = [(name, _kind(frame[name].dtype), frame[name].null_count()) for name in frame.columns]
    sha256 = hashlib.sha256(VALUES_FORMAT)
    sha256.update(json.dumps([frame.height, columns], separators=(",", ":")).encode())
    parts: Iterable[memoryview | bytes]
    if frame.height <= SLICE_ROWS:
        parts = _frame_bytes(frame, columns)
    else:
        slices = [frame.slice(start, SLICE_ROWS) for start in range(0, frame.height, SLICE_ROWS)]
        parts = (part for column in columns for part in _column_bytes(slices, *column))
    for part in parts:
        sha256.update(part)
    return sha256.hexdigest()


def _frame_bytes(
    frame: pl.DataFrame, columns: list[tuple[str, str, int]]
) -> list[memoryview | bytes]:
    """Every column's bytes, in order, from one select (and one more for the texts): a
    point of a few requests costs two queries, not four per column. Sequential selects: the
    expressions are cheap, and a parallel select of 25,000 requests took 0.5 ms to their
    0.2 (the digest threads already run beside each other)."""
    made = frame.select_seq(_expressions(columns))
    texts = [name for name, kind, _ in columns if kind == "text"]
    joined = frame.select_seq(_joined_text(name) for name in texts).row(0) if texts else ()
    text_bytes = dict(zip(texts, joined, strict=True))
    parts: list[memoryview | bytes] = []
    for name, kind, nulls in columns:
        parts.extend(_values(made[name], _LITTLE[kind]))
        if kind == "text":
            parts.append(text_bytes[name].encode())
        if nulls:
            parts.append(np.packbits(made[f"{name} valid"].to_numpy()).tobytes())
    return parts


def _column_bytes(
    slices: list[pl.DataFrame], name: str, kind: str, nulls: int
) -> Iterator[memoryview | bytes]:
    """A large column's bytes, made a slice of rows at a time: the same bytes as made at once,
    but each slice's copies are small and used again for the next one, where a million rows'
    copies took fresh memory (a page fault every 4 KB) at each step."""
    valid: list[bytes] = []
    for part in slices:
        made = part.select_seq(_expressions([(name, kind, nulls)]))
        yield from _values(made[name], _LITTLE[kind])
        if nulls:  # a slice's validity packs whole bytes: SLICE_ROWS is a multiple of 8
            valid.append(np.packbits(made[f"{name} valid"].to_numpy()).tobytes())
    if kind == "text":  # every length first, then every value's bytes
        for part in slices:
            yield part.select_seq(_joined_text(name)).item().encode()
    yield from valid


# What each kind of column hashes as: its values (nulls as zero), or a text's byte lengths.
_LITTLE = {"float": "<f8", "int": "<i8", "bool": "u1", "text": "<i8"}


def _expressions(columns: list[tuple[str, str, int]]) -> list[pl.Expr]:
    """Each column's values as hashed, and its validity where it has nulls."""
    made = []
    for name, kind, nulls in columns:
        value = pl.col(name)
        if kind == "float":  # every NaN as one NaN, -0.0 as 0.0
            doubles = value.cast(pl.Float64).fill_null(0.0).fill_nan(float("nan"))
            value = pl.when(doubles == 0.0).then(0.0).otherwise(doubles)
        elif kind == "int":
            value = value.cast(pl.Int64).fill_null(0)
        elif kind == "bool":
            value = value.fill_null(False).cast(pl.UInt8)
        else:
            value = value.cast(pl.String).str.len_bytes().fill_null(0).cast(pl.Int64)
        made.append(value.alias(name))
        if nulls:
            made.append(pl.col(name).is_not_null().alias(f"{name} valid"))
    return made


def _joined_text(name: str) -> pl.Expr:
    return pl.col(name).cast(pl.String).fill_null("").str.join("")


def _kind(dtype: pl.DataType) -> str:
    if dtype.is_float():
        return "float"
    if dtype.is_integer():
        return "int"
    return "bool" if dtype == pl.Boolean() else "text"


def _values(series: pl.Series, dtype: str) -> list[memoryview]:
    """A column's bytes chunk by chunk, in order: hashed one after another they are the bytes
    of the whole column, without joining a column of a multi-chunk frame (a per-request file
    is read in pieces) into a copy of it first."""
    return [_little(chunk.to_numpy(), dtype) for chunk in series.get_chunks()]


def _little(values: np.ndarray[Any, Any], dtype: str) -> memoryview:
    """The array's bytes in this little-endian dtype, contiguous (no copy when they are)."""
    return np.ascontiguousarray(values, dtype=dtype).data


def _csv_digest(frame: pl.DataFrame) -> str:
    digest = _Digest()  # polars writes the CSV into the hash: no copy of the text is made
    frame.write_csv(cast(IO[bytes], digest), float_precision=None)
    return digest.sha256.hexdigest()


def frame_digests(frames: Sequence[pl.DataFrame], digest_format: int = VALUES) -> list[str]:
    """The digest of each frame, in order (on the helper threads when there is much to hash)."""
    if len(frames) < 2 or sum(f.height for f in frames) < PARALLEL_MIN_ROWS:
        return [frame_digest(f, digest_format) for f in frames]
    return list(_helpers().map(frame_digest, frames, [digest_format] * len(frames)))


@dataclass(frozen=True)
class Started:
    """A digest under way on a helper thread, of the samples `source` (a point's own frame:
    the digest stands for the point's samples only while they are still that frame)."""

    source: object
    digest: Future[str]


def _done(source: pl.DataFrame, digest: str) -> Started:
    computed: Future[str] = Future()
    computed.set_result(digest)
    return Started(source, computed)


def start(source: pl.DataFrame, frame: pl.DataFrame) -> Started:
    """Digest `frame` (`source` as ParsedPoint.samples_frame gives it) on a helper thread."""
    return Started(source, _helpers().submit(frame_digest, frame))


class Digested(Protocol):
    """A point as the digests read it (app.ingest.parsed.ParsedPoint)."""

    samples: Any
    started: Started | None

    @property
    def sample_count(self) -> int: ...

    def samples_frame(self, any_int_width: bool = False) -> pl.DataFrame: ...


def point_digests(points: Sequence[Digested], digest_format: int = VALUES) -> dict[int, str]:
    """Each point's samples digest by position, points without samples left out: a digest
    started or kept before is taken (while they are still those samples), the others are
    computed, on the helper threads, and kept. Format 1 (a stored sweep's, to find it) is never
    started or kept: it is computed here."""
    started = (
        {
            i: p.started.digest
            for i, p in enumerate(points)
            if p.started is not None and p.started.source is p.samples and p.sample_count
        }
        if digest_format == VALUES
        else {}
    )
    rest = [(i, p) for i, p in enumerate(points) if p.sample_count and i not in started]
    frames = [p.samples_frame(any_int_width=True) for _, p in rest]
    computed = frame_digests(frames, digest_format)
    if digest_format == VALUES:  # kept for the next hash of these samples (a frame never changes)
        for (_, point), digest in zip(rest, computed, strict=True):
            if isinstance(point.samples, pl.DataFrame):
                point.started = _done(point.samples, digest)
    found = {i: d.result() for i, d in started.items()}
    found.update((i, d) for (i, _), d in zip(rest, computed, strict=True))
    return dict(sorted(found.items()))


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _helpers() -> ThreadPoolExecutor:
    """The process's digest threads, started on first use and shared by every upload."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="sample-digest")
        return _pool


class _Digest:
    """A file-like sink for polars' CSV writer that only hashes what it is given."""

    def __init__(self) -> None:
        self.sha256 = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.sha256.update(data)
        return len(data)

    def flush(self) -> None:
        pass
