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
let go of the GIL), and a per-request file's points are started as soon as their samples are
attached (`start`): the checks, the warnings and the catalog's match run meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any, Protocol, cast

import numpy as np
import polars as pl

from app.domain.phases import PHASE, has_warmup

# A request's session and turn (issue 49) are optional: null for a single-turn run, and left
# out of the digest then, so every sweep stored before keeps its hash.
SESSION_FIELDS: tuple[str, ...] = ("session_id", "turn_index")
THREADS = 4  # points digested at once (polars and hashlib let go of the GIL)
PARALLEL_MIN_ROWS = 20_000  # below this, starting threads costs about what they save


CSV = 1  # format 1: the samples' CSV text (sweeps stored before migration 20261208_values)
VALUES = 2  # format 2: their typed values
VALUES_FORMAT = b"paretoscope samples 2\n"


def frame_digest(frame: pl.DataFrame, digest_format: int = VALUES) -> str:
    """The digest of one point's samples, `frame` as ParsedPoint.samples_frame(any_int_width=True)
    gives them (a 32-bit count hashes as a 64-bit one), in `digest_format`."""
    unused = [c for c in SESSION_FIELDS if frame[c].null_count() == frame.height]
    unused += [] if has_warmup(frame) else [PHASE]
    hashed = frame.drop(unused)
    return _csv_digest(hashed) if digest_format == CSV else _values_digest(hashed)


def _values_digest(frame: pl.DataFrame) -> str:
    columns = [(name, _kind(frame[name].dtype), frame[name].null_count()) for name in frame.columns]
    sha256 = hashlib.sha256(VALUES_FORMAT)
    sha256.update(json.dumps([frame.height, columns], separators=(",", ":")).encode())
    for name, kind, nulls in columns:
        for part in _value_bytes(frame[name], kind):
            sha256.update(part)
        if nulls:
            sha256.update(np.packbits(frame[name].is_not_null().to_numpy()).data)
    return sha256.hexdigest()


def _kind(dtype: pl.DataType) -> str:
    if dtype.is_float():
        return "float"
    if dtype.is_integer():
        return "int"
    return "bool" if dtype == pl.Boolean() else "text"


def _value_bytes(values: pl.Series, kind: str) -> list[memoryview | bytes]:
    """The column's values as the digest hashes them (nulls as zero, or empty text)."""
    if kind == "float":
        doubles = values.cast(pl.Float64).fill_null(0.0).fill_nan(float("nan")).to_numpy()
        return [_little(doubles + 0.0, "<f8")]  # + 0.0: -0.0 is 0.0
    if kind == "int":
        return [_little(values.cast(pl.Int64).fill_null(0).to_numpy(), "<i8")]
    if kind == "bool":
        return [_little(values.fill_null(False).to_numpy(), "u1")]
    text = values.cast(pl.String).fill_null("")
    lengths = text.str.len_bytes().cast(pl.Int64).to_numpy()
    return [_little(lengths, "<i8"), text.str.join("").item().encode()]


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
    started when its samples were attached is taken (while they are still those samples),
    the others are computed, on the helper threads. Format 1 (a stored sweep's, to find it)
    is never started: it is computed here."""
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
