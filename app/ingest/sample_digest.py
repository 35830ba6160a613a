"""A point's request-sample digest, which enters its sweep's content hash
(app.ingest.content_hash): the sha256 of the samples' CSV text as polars writes their typed
frame (full float precision), so the same samples give the same bytes whichever importer read
them. Session fields are written only when given and the phase only when some request is a
warm-up one, so samples stored before them keep their digest.

Writing that text is most of an upload's hashing (a million requests: ~0.15 s of CPU, as
long as `read_csv` takes to read the file on two cores). Polars writes it and hashlib hashes it
with the GIL released, so the points of a large sweep are digested on a few helper threads at
once, and a per-request file's points are started as soon as their samples are attached
(`start`): the checks, the warnings and the catalog's match run meanwhile.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any, Protocol, cast

import polars as pl

from app.domain.phases import PHASE, has_warmup

# A request's session and turn (issue 49) are optional: null for a single-turn run, and left
# out of the digest then, so every sweep stored before keeps its hash.
SESSION_FIELDS: tuple[str, ...] = ("session_id", "turn_index")
THREADS = 4  # points digested at once (a thread's share waits on the CSV writer's own threads)
PARALLEL_MIN_ROWS = 20_000  # below this, starting threads costs about what they save


def frame_digest(frame: pl.DataFrame) -> str:
    """The digest of one point's samples, `frame` as ParsedPoint.samples_frame(any_int_width=True)
    gives them (a 32-bit count writes the same text as a 64-bit one)."""
    digest = _Digest()  # polars writes the CSV into the hash: no copy of the text is made
    unused = [c for c in SESSION_FIELDS if frame[c].null_count() == frame.height]
    unused += [] if has_warmup(frame) else [PHASE]
    frame.drop(unused).write_csv(cast(IO[bytes], digest), float_precision=None)
    return digest.sha256.hexdigest()


def frame_digests(frames: Sequence[pl.DataFrame]) -> list[str]:
    """The digest of each frame, in order (on the helper threads when there is much to write)."""
    if len(frames) < 2 or sum(f.height for f in frames) < PARALLEL_MIN_ROWS:
        return [frame_digest(f) for f in frames]
    return list(_helpers().map(frame_digest, frames))


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


def point_digests(points: Sequence[Digested]) -> dict[int, str]:
    """Each point's samples digest by position, points without samples left out: a digest
    started when its samples were attached is taken (while they are still those samples),
    the others are computed, on the helper threads."""
    started = {
        i: p.started.digest
        for i, p in enumerate(points)
        if p.started is not None and p.started.source is p.samples and p.sample_count
    }
    rest = [(i, p) for i, p in enumerate(points) if p.sample_count and i not in started]
    computed = frame_digests([p.samples_frame(any_int_width=True) for _, p in rest])
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
