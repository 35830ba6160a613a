"""Request samples stored columnar: compressed Parquet blocks per sweep, written and read by
polars.

No Python object is made per sample: a block is encoded from a frame and decoded into one.
Decoded sweeps are cached per process by (database, sweep id, content hash, point ids), like
points: samples never change after upload, and a re-used id has another hash or other points.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterable
from concurrent.futures import Executor, ThreadPoolExecutor

import numpy as np
import polars as pl
from cachetools import LRUCache
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from app.domain.phases import profiled
from app.domain.request_goodput import STORED_SAMPLE_SCHEMA as SAMPLE_SCHEMA
from app.ingest.parsed import OPTIONAL_SAMPLE_SCHEMA, SAMPLE_FRAME_SCHEMA, ParsedSweep
from app.store.db import in_values
from app.store.models import PointBlock, SampleBlock, Sweep
from app.store.point_blocks import point_id, sweep_of

ENCODERS = 2  # sample blocks encoded at once
BLOCK_ROWS = 250_000  # ~2.5 MB compressed: bounded memory per write (the encoder buffers a block)
# The writer gathers a row group's rows into one buffer before encoding it: in row groups of
# this size a block's rows are never all copied at once (a first upload of 100k requests:
# ~1,100 fewer page faults, its server CPU ~5 ms less; +0.5% bytes, reads alike).
ROW_GROUP_ROWS = 65_536
BLOCK_SCHEMA: dict[str, pl.DataType] = {
    "position": pl.Int32(),
    **SAMPLE_FRAME_SCHEMA,
    **OPTIONAL_SAMPLE_SCHEMA,
}
# What the store reads back: the samples, and the optional columns (null where not given).
STORED_SCHEMA: dict[str, pl.DataType] = {**SAMPLE_SCHEMA, **OPTIONAL_SAMPLE_SCHEMA}
CACHE_ROWS = 8_000_000  # ~300 MB of decoded samples per process at most


def decode(data: bytes) -> pl.DataFrame:
    frame = pl.read_parquet(io.BytesIO(data))
    # Blocks written before an optional column (cached tokens, issue 50) or sessions and turns
    # (issue 49) existed read it as unknown (null).
    missing = [pl.lit(None, t).alias(c) for c, t in BLOCK_SCHEMA.items() if c not in frame.columns]
    return frame.with_columns(missing) if missing else frame


# A block's rows: (point position, its samples, first row, rows) for each point it holds.
Piece = tuple[int, pl.DataFrame, int, int]


def plans(frames: Iterable[tuple[int, pl.DataFrame]], size: int = BLOCK_ROWS) -> list[list[Piece]]:
    """Frames of (position, samples) cut into blocks of at most `size` rows, in order, as the
    pieces each block takes: from the frames' heights alone, no query."""
    out: list[list[Piece]] = []
    pending: list[Piece] = []
    rows = 0
    for position, frame in frames:
        start, left = 0, frame.height
        while left:
            take = min(left, size - rows)
            pending.append((position, frame, start, take))
            start, left, rows = start + take, left - take, rows + take
            if rows == size:
                out.append(pending)
                pending, rows = [], 0
    if pending:
        out.append(pending)
    return out


def block(pieces: list[Piece]) -> pl.DataFrame:
    """A block's rows in BLOCK_SCHEMA from its points' own series, sliced and cast where the
    type differs, with no query (each has a fixed cost, more while the digest threads send
    theirs). An optional column no point of the block has is left out (read back as null, as
    blocks written before it existed are)."""
    named = [c for c in BLOCK_SCHEMA if c != "position"]  # a decoded block has it: set again
    columns = [c for c in named if any(c in f.columns for _, f, _, _ in pieces)]
    parts = [_piece(frame, start, rows, at, columns) for at, frame, start, rows in pieces]
    made = parts[0]
    for part in parts[1:]:
        made = made.vstack(part)  # chunks appended, not copied
    return made


def _piece(
    frame: pl.DataFrame, start: int, rows: int, position: int, columns: list[str]
) -> pl.DataFrame:
    made = [pl.Series("position", np.full(rows, position, dtype=np.int32))]
    for name in columns:
        dtype = BLOCK_SCHEMA[name]
        if name not in frame.columns:  # another point of the block has it
            made.append(pl.Series(name, [], dtype=dtype).clear(rows))
            continue
        values = frame.get_column(name).slice(start, rows)
        made.append(values if values.dtype == dtype else values.cast(dtype))
    return pl.DataFrame(made)


def encode(pieces: list[Piece]) -> bytes:
    """A block's bytes: its pieces' rows (`block`) as Parquet."""
    # LZ4: encodes in 0.6x zstd's time for 1.3x its size (request timings compress poorly
    # either way). Blocks written as zstd before read the same: Parquet names its codec per
    # column chunk.
    buffer = io.BytesIO()
    block(pieces).write_parquet(
        buffer, compression="lz4", statistics=False, row_group_size=ROW_GROUP_ROWS
    )
    return buffer.getvalue()


class Encoding:
    """A sweep's sample blocks, each encoded on a helper thread as soon as it is asked for,
    before the sweep has an id: an upload encodes them while it checks the sweeps and stores
    their rows (polars and the driver let go of the GIL), and stores each block while the next
    ones are encoded (a large upload's digests run meanwhile: app.store.sweep_save)."""

    def __init__(
        self,
        encoder: Executor,
        frames: Iterable[tuple[int, pl.DataFrame]],
        size: int = BLOCK_ROWS,
    ) -> None:
        # Cut here from the heights alone; typed, joined and encoded there, so the caller
        # goes on at once.
        self._blocks = [encoder.submit(_encoded, pieces) for pieces in plans(frames, size)]

    def write(self, session: Session, sweep_id: int) -> int:
        """Store the blocks as the samples of `sweep_id`; rows written."""
        total = 0
        for seq, encoding in enumerate(self._blocks):
            rows, block = encoding.result()
            session.execute(insert(SampleBlock), [{"sweep_id": sweep_id, "seq": seq, **block}])
            total += rows
        return total

    def wait(self) -> None:
        """Until every block is encoded (an encoding's error raised here)."""
        for encoding in self._blocks:
            encoding.result()

    def cancel(self) -> None:
        """Leave the blocks not yet encoded (the sweep was stored before, or the upload failed)."""
        for encoding in self._blocks:
            encoding.cancel()


class UploadEncodings:
    """The sample blocks of an upload's sweeps, encoding on helper threads from the moment they
    are started: an upload starts them as soon as the samples are attached to their points, so
    they encode while the sweeps are checked, the hardware is matched, the content hashes are
    looked up and the sweeps and points go in."""

    def __init__(self, sweeps: Iterable[ParsedSweep] = ()) -> None:
        # Two at a time: on two cores the hashes and the blocks of a million requests then
        # keep both busy.
        self._pool = ThreadPoolExecutor(max_workers=ENCODERS, thread_name_prefix="sample-blocks")
        self._by_sweep: dict[int, Encoding | None] = {}
        self.start(sweeps)

    def start(self, sweeps: Iterable[ParsedSweep]) -> None:
        """Start encoding the blocks of these sweeps whose samples are typed frames (attached,
        never changed after). Samples kept as rows are typed when taken, after the checks
        (a value no column holds is refused there, naming the point)."""
        for item in sweeps:
            if id(item) in self._by_sweep or item.table_rows is not None:
                continue  # a canonical file's table has no samples
            framed = (p.samples is None or isinstance(p.samples, pl.DataFrame) for p in item.points)
            if all(framed):  # a point without samples has nothing to type
                self._by_sweep[id(item)] = _sweep_encoding(self._pool, item)

    def of(self, sweep: ParsedSweep) -> Encoding | None:
        """The sweep's blocks, started now if they were not, kept for `take` (a sweep stored
        first and then found stored already is stored again with the same blocks)."""
        if id(sweep) not in self._by_sweep:
            self._by_sweep[id(sweep)] = _sweep_encoding(self._pool, sweep)
        return self._by_sweep[id(sweep)]

    def take(self, sweep: ParsedSweep) -> Encoding | None:
        """The sweep's blocks, started now if they were not (None: it has no samples)."""
        encoding = self.of(sweep)
        del self._by_sweep[id(sweep)]
        return encoding

    def close(self) -> None:
        """Leave the blocks no sweep took (stored before, or the upload failed)."""
        for unused in self._by_sweep.values():
            if unused is not None:
                unused.cancel()
        self._by_sweep.clear()
        self._pool.shutdown(wait=True)

    def __enter__(self) -> UploadEncodings:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _sweep_encoding(encoder: Executor, item: ParsedSweep) -> Encoding | None:
    """The sweep's sample blocks, encoding; None without samples (a canonical file's table
    never has any: samples attach to a point list)."""
    if item.table_rows is not None or not any(p.sample_count for p in item.points):
        return None
    # Any count width: blocks are cast to their schema as they are encoded.
    points = enumerate(item.points)
    frames = [(i, p.samples_frame(any_int_width=True)) for i, p in points if p.sample_count]
    return Encoding(encoder, frames)


def write(
    session: Session,
    sweep_id: int,
    frames: Iterable[tuple[int, pl.DataFrame]],
    size: int = BLOCK_ROWS,
) -> int:
    """Store the samples of one sweep (point position, frame of SAMPLE_FIELDS); rows written.

    Blocks are encoded on a helper thread, each while the database stores the one before: on
    Postgres the server spends about as long keeping a block as polars spends encoding it."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sample-blocks") as encoder:
        return Encoding(encoder, frames, size).write(session, sweep_id)


def _encoded(pieces: list[Piece]) -> tuple[int, dict[str, object]]:
    counts: dict[int, int] = {}
    for position, _, _, rows in pieces:
        counts[position] = counts.get(position, 0) + rows
    rows = sum(counts.values())
    header = {"rows": rows, "counts": {str(p): n for p, n in sorted(counts.items())}}
    return rows, {**header, "data": encode(pieces)}


def counts_by_point(session: Session, point_ids: list[int]) -> dict[int, int]:
    """Number of request samples of each point that has any (from block headers, no decoding)."""
    if not point_ids:
        return {}
    at = counts_by_position(session, sorted({sweep_of(i)[0] for i in point_ids}))
    return {i: at[key] for i in point_ids if (key := sweep_of(i)) in at}


def counts_by_position(session: Session, sweep_ids: list[int]) -> dict[tuple[int, int], int]:
    """Number of request samples at each (sweep id, point position) that has any, from the
    block headers alone (nothing decoded)."""
    out: dict[tuple[int, int], int] = {}
    if not sweep_ids:
        return out
    query = select(SampleBlock.sweep_id, SampleBlock.counts).where(
        in_values(session, SampleBlock.sweep_id, sorted(set(sweep_ids)))
    )
    for sweep_id, counts in session.execute(query):
        for position, n in counts.items():
            key = (sweep_id, int(position))
            out[key] = out.get(key, 0) + int(n)
    return out


def _height(frame: pl.DataFrame) -> int:
    return frame.height


class _FrameCache:
    """Least recently used decoded sweeps, bounded by their total number of samples."""

    def __init__(self, max_rows: int) -> None:
        self.max_rows = max_rows
        self._frames: LRUCache[tuple[str, int, str, int], pl.DataFrame] = LRUCache(
            max_rows, getsizeof=_height
        )
        self._lock = threading.Lock()  # an LRUCache reorders itself on every read

    def get(self, key: tuple[str, int, str, int]) -> pl.DataFrame | None:
        with self._lock:
            return self._frames.get(key)

    def put(self, key: tuple[str, int, str, int], frame: pl.DataFrame) -> None:
        if frame.height > self.max_rows:
            return
        with self._lock:
            self._frames[key] = frame

    def clear(self) -> None:
        with self._lock:
            self._frames.clear()


cache = _FrameCache(CACHE_ROWS)


def samples_frame(session: Session, point_ids: list[int], warmup: bool = False) -> pl.DataFrame:
    """Request samples of these points as a STORED_SCHEMA frame, by sweep id, point position and
    request order (empty when there are none): the profiled ones, and the warm-up ones too
    only with `warmup` (an export, which must import again as the same sweep)."""
    wanted = set(point_ids)
    if not wanted:
        return pl.DataFrame(schema=STORED_SCHEMA)
    sweep_ids = sorted({sweep_of(i)[0] for i in wanted})
    rows = session.execute(
        select(Sweep.id, Sweep.content_hash, PointBlock.points)
        .join(PointBlock, PointBlock.sweep_id == Sweep.id)
        .where(in_values(session, Sweep.id, sweep_ids))
    ).all()
    points = {s: [(point_id(s, p), p) for p in range(n)] for s, _, n in rows}
    wanted_sweeps = {s: (digest, points[s]) for s, digest, _ in sorted(rows)}
    frames = by_sweep(session, wanted_sweeps, warmup)
    parts = []
    for sweep_id in sorted(frames):
        frame = frames[sweep_id]
        mine = {p for p, _ in points[sweep_id]}
        parts.append(frame if mine <= wanted else frame.filter(pl.col("point_id").is_in(wanted)))
    return pl.concat(parts) if parts else pl.DataFrame(schema=STORED_SCHEMA)


def by_sweep(
    session: Session, sweeps: dict[int, tuple[str, list[tuple[int, int]]]], warmup: bool = False
) -> dict[int, pl.DataFrame]:
    """Each sweep's samples (SAMPLE_SCHEMA) from its content hash and (point id, position)
    pairs; decoded once per process, then served from the cache. Read-offs see the profiled
    requests only (app.domain.phases); `warmup` keeps the warm-up ones too."""
    database = str(session.get_bind().engine.url)
    out: dict[int, pl.DataFrame] = {}
    missing = []
    keys = {s: (database, s, digest, hash(tuple(pairs))) for s, (digest, pairs) in sweeps.items()}
    for sweep_id, key in keys.items():
        hit = cache.get(key)
        if hit is None:
            missing.append(sweep_id)
        else:
            out[sweep_id] = hit if warmup else profiled(hit)
    decoded: dict[int, list[pl.DataFrame]] = {s: [] for s in missing}
    if missing:
        statement = (
            select(SampleBlock.sweep_id, SampleBlock.data)
            .where(SampleBlock.sweep_id.in_(missing))
            .order_by(SampleBlock.sweep_id, SampleBlock.seq)
        )
        for sweep_id, data in session.execute(statement):
            decoded[sweep_id].append(decode(data))
    for sweep_id, parts in decoded.items():
        frame = _with_point_ids(sweep_id, parts, sweeps[sweep_id][1])
        cache.put(keys[sweep_id], frame)
        out[sweep_id] = frame if warmup else profiled(frame)
    return out


def _with_point_ids(
    sweep_id: int, parts: list[pl.DataFrame], pairs: list[tuple[int, int]]
) -> pl.DataFrame:
    """The decoded blocks as one frame with each sample's point id, for the points asked."""
    if not parts:
        return pl.DataFrame(schema=STORED_SCHEMA)
    frame = pl.concat(parts, how="vertical_relaxed", rechunk=False)
    positions = [pos for _, pos in pairs]
    if any(p != point_id(sweep_id, pos) for p, pos in pairs):
        keys = pl.DataFrame(
            {"position": positions, "point_id": [p for p, _ in pairs]},
            schema={"position": pl.Int32(), "point_id": pl.Int64()},
        )
        joined = frame.join(keys, on="position", how="inner", maintain_order="left")
        return joined.select(pl.col(c).cast(t) for c, t in STORED_SCHEMA.items())
    # A point's id is its sweep's id times the stride plus its position (point_blocks): no
    # join of every sample against the points, only the samples of points not asked dropped.
    ids = pl.lit(point_id(sweep_id, 0), pl.Int64) + pl.col("position").cast(pl.Int64)
    # implode: the positions as one list to look in (polars deprecates a bare Series here).
    asked = pl.col("position").is_in(pl.Series(positions, dtype=pl.Int32).implode())
    return frame.filter(asked).select(
        ids.alias("point_id"),
        *(pl.col(c).cast(t) for c, t in STORED_SCHEMA.items() if c != "point_id"),
    )
