"""A point's request-sample digest, which enters its sweep's content hash
(app.ingest.content_hash): the sha256 of the samples' CSV text as polars writes their typed
frame (full float precision), so the same samples give the same bytes whichever importer read
them. Session fields are written only when given and the phase only when some request is a
warm-up one, so samples stored before them keep their digest.

Writing that text is most of an upload's hashing (a million requests: ~0.15 s of CPU, as
long as `read_csv` takes to read the file on two cores). Polars writes it and hashlib hashes it
with the GIL released, so the points of a large sweep are digested on a few threads at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import IO, cast

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
    """The digest of each frame, in order (on a few threads when there is much to write)."""
    if len(frames) < 2 or sum(f.height for f in frames) < PARALLEL_MIN_ROWS:
        return [frame_digest(f) for f in frames]
    workers = min(THREADS, len(frames))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sample-digest") as pool:
        return list(pool.map(frame_digest, frames))


class _Digest:
    """A file-like sink for polars' CSV writer that only hashes what it is given."""

    def __init__(self) -> None:
        self.sha256 = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.sha256.update(data)
        return len(data)

    def flush(self) -> None:
        pass
