"""What every importer produces: sweeps of canonical points, before anything is stored."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import polars as pl

from app.domain import sweep_fields
from app.domain.accounting import point_split
from app.domain.phases import PHASE
from app.ingest import content_hash as hashing
from app.ingest.sample_digest import SESSION_FIELDS, VALUES, Started, point_digests, start

SAMPLE_FIELDS: tuple[str, ...] = (
    "ttft_ms",
    "e2el_ms",
    "output_len",
    "input_len",
    "ok",
    *SESSION_FIELDS,
)
SAMPLE_FRAME_SCHEMA: dict[str, pl.DataType] = {
    "ttft_ms": pl.Float64(),
    "e2el_ms": pl.Float64(),
    "output_len": pl.Int64(),
    "input_len": pl.Int64(),
    "ok": pl.Boolean(),
    "session_id": pl.String(),
    "turn_index": pl.Int32(),
    PHASE: pl.String(),  # warm-up or profiling (app.domain.phases); null: not stated
}
# Optional per-request columns: kept when a file gives them, and only then hashed, so every
# sweep stored before them keeps its hash. Input tokens served from the prefix cache (part of
# input_len: uncached = input_len − cached_input_tokens), as the client reported them (issue 50).
CACHED_INPUT = "cached_input_tokens"
OPTIONAL_SAMPLE_SCHEMA: dict[str, pl.DataType] = {CACHED_INPUT: pl.Int64()}
Samples = list[tuple[Any, ...]] | pl.DataFrame
# Columns added after hash format 2 are hashed only when given, so every sweep stored before
# them keeps its hash (and is still found as already stored).
# Provenance says who ran the harness, not what was measured: it never changes the hash.
# (SweepColumn.hashed: "always", "when given" or "never".)
HASHED_WHEN_GIVEN: tuple[str, ...] = sweep_fields.HASHED_WHEN_GIVEN
HASHED_META: tuple[str, ...] = sweep_fields.HASHED_ALWAYS


def hashed_keys(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """The description keys a sweep's hash reads: HASHED_META and the later ones it gives."""
    return HASHED_META + tuple(k for k in HASHED_WHEN_GIVEN if meta.get(k) is not None)


class PointSource(Protocol):
    """A sweep's points kept as columns (app.ingest.point_table.PointRows)."""

    def __len__(self) -> int: ...

    def materialise(self) -> list[ParsedPoint]:
        """The points as the list every importer builds."""
        ...

    def digest(self, head: bytes) -> str:
        """The content hash of these points under `head` (app.ingest.content_hash)."""
        ...

    def lengths(self) -> list[tuple[Any, Any, Any]]:
        """(input_len, output_len, num_requests) of every point; [] when none is given."""
        ...

    def may_break_limits(self, max_extra_bytes: int) -> bool:
        """False when no point can break a storage limit (`limits` checks the others)."""
        ...


@dataclass
class ParsedPoint:
    values: dict[str, Any]  # canonical point columns; absent means not measured
    row: int | None = None  # where it came from, for error messages
    extra: dict[str, Any] = field(default_factory=dict)
    samples: Samples | None = None  # rows of SAMPLE_FIELDS, or a frame of those columns
    # The samples' digest: started on a helper thread (start_digest), or kept once computed.
    started: Started | None = field(default=None, compare=False, repr=False)
    # samples_frame(any_int_width=True) of a frame of samples, with the frame it was made
    # from: the digest, the warnings and the store each ask for it (its columns are the
    # frame's own, so keeping it costs no copy).
    _typed: tuple[pl.DataFrame, pl.DataFrame] | None = field(
        default=None, compare=False, repr=False
    )

    @property
    def sample_count(self) -> int:
        return 0 if self.samples is None else len(self.samples)

    def start_digest(self) -> None:
        """Start digesting the samples for the content hash, which takes the digest later
        (once: a digest under way for these samples is kept)."""
        if self.started is not None and self.started.source is self.samples:
            return
        if isinstance(self.samples, pl.DataFrame) and self.sample_count:
            self.started = start(self.samples, self.samples_frame(any_int_width=True))

    def samples_frame(self, any_int_width: bool = False) -> pl.DataFrame:
        """The samples as a typed frame (a large canonical file stays columnar throughout).

        With `any_int_width` token counts read as 32-bit stay so: a copy of two columns saved
        where only their values matter (their CSV text, a sum, a block that casts anyway)."""
        if isinstance(self.samples, pl.DataFrame):
            frame = self.samples
            made = self._typed
            if any_int_width and made is not None and made[0] is frame:  # frames are replaced,
                return made[1]  # never changed
            given = {c: t for c, t in OPTIONAL_SAMPLE_SCHEMA.items() if c in frame.columns}
            schema = {**SAMPLE_FRAME_SCHEMA, **given}
            # Samples read typed (a per-request file's) need no cast: no query for them.
            typed = _as_typed(frame, schema, any_int_width)
            if typed is None:
                have = frame.schema
                typed = frame.select(
                    pl.col(c)
                    if c in have and _fits(have[c], t, any_int_width)
                    else pl.col(c).cast(t)
                    if c in have
                    else pl.lit(None, t).alias(c)
                    for c, t in schema.items()
                )
            if any_int_width:
                self._typed = (frame, typed)
            return typed
        rows = self.samples or []
        if rows and len(rows[0]) < len(SAMPLE_FRAME_SCHEMA):  # rows without session fields
            pad = (None,) * (len(SAMPLE_FRAME_SCHEMA) - len(rows[0]))
            rows = [(*r, *pad) for r in rows]
        return pl.DataFrame(rows, schema=SAMPLE_FRAME_SCHEMA, orient="row")


def _fits(dtype: pl.DataType, wanted: pl.DataType, any_int_width: bool) -> bool:
    """A column of `dtype` stands as `wanted` without a cast (any integer for an integer with
    `any_int_width`)."""
    return dtype == wanted or (any_int_width and dtype.is_integer() and wanted.is_integer())


def _as_typed(
    frame: pl.DataFrame, schema: dict[str, pl.DataType], any_int_width: bool
) -> pl.DataFrame | None:
    """The frame in `schema` when no column needs a cast (a per-request file's samples are
    read typed): the absent columns added as nulls in one query, none when none is absent;
    None when a column needs a cast (or is not in the schema)."""
    have = frame.schema
    for name, dtype in have.items():
        wanted = schema.get(name)
        if wanted is None or not _fits(dtype, wanted, any_int_width):
            return None
    absent = [pl.lit(None, t).alias(c) for c, t in schema.items() if c not in have]
    typed = frame.with_columns(absent) if absent else frame
    return typed if typed.columns == list(schema) else typed.select(list(schema))


class ParsedSweep:
    """One sweep of an upload: its metadata and its points.

    `points` is the list every importer builds. A canonical CSV keeps its points as columns
    instead (`table_rows`, a slice of one table for the whole file): the list is built the
    first time `points` is read, and from then on the list is the truth. Code on the store
    path reads `table_rows` while it is set, so a large file never becomes a Python object
    per point.
    """

    def __init__(
        self,
        meta: dict[str, Any],  # canonical sweep columns; absent means unknown
        points: list[ParsedPoint] | None,
        source_file: str,
        source_format: str,  # what the file was recognised as, e.g. "canonical CSV"
        first_row: int | None = None,
        warnings: list[str] | None = None,  # shown in the preview, kept in notes
        table_rows: PointSource | None = None,
    ) -> None:
        if (points is None) == (table_rows is None):
            raise ValueError("a sweep has either a list of points or table rows")
        self.meta = meta
        self._points = points
        self._table_rows = table_rows
        self.source_file = source_file
        self.source_format = source_format
        self.first_row = first_row
        self.warnings = warnings if warnings is not None else []
        # The files it was read from, where a join or its importer recorded them (else
        # `grouping.sweep_files` reads them from `source_file`).
        self.files: list[str] = []

    def __repr__(self) -> str:
        return (
            f"ParsedSweep({self.meta!r}, {self.point_count} points, {self.source_file!r}, "
            f"{self.source_format!r})"
        )

    @property
    def points(self) -> list[ParsedPoint]:
        if self._points is None:
            assert self._table_rows is not None
            self._points = self._table_rows.materialise()
            self._table_rows = None
        return self._points

    @points.setter
    def points(self, value: list[ParsedPoint]) -> None:
        self._points = value
        self._table_rows = None

    @property
    def table_rows(self) -> PointSource | None:
        """The sweep's points as a slice of its file's table, until `points` is read."""
        return self._table_rows

    @property
    def point_count(self) -> int:
        return len(self._table_rows) if self._table_rows is not None else len(self.points)

    @property
    def sample_count(self) -> int:
        """Request samples of all points (a table-backed sweep has none: samples attach to
        the point list)."""
        return 0 if self._points is None else sum(p.sample_count for p in self._points)

    @property
    def name(self) -> str:
        return str(self.meta.get("sweep") or "")

    def missing_meta(self, required: tuple[str, ...] = sweep_fields.REQUIRED_META) -> list[str]:
        return [k for k in required if self.meta.get(k) in (None, "")]

    def start_digests(self) -> None:
        """Start digesting every point's samples on the helper threads, for the content hash
        to take (app.store.sweep_save starts them once the sample blocks are encoded)."""
        for point in self._points or []:
            point.start_digest()

    def content_hash(self, digest_format: int = VALUES) -> str:
        """Digest of the canonical content: the same measurements and description hash the same
        (app.ingest.content_hash says what is hashed); `digest_format` that of the request
        samples' digests (app.ingest.sample_digest: format 1 finds a sweep stored before 2)."""
        return self.content_hashes([self.meta], digest_format)[0]

    @property
    def has_samples(self) -> bool:
        """Whether a point has request samples (only then does the digest format matter)."""
        return self._table_rows is None and any(p.sample_count for p in self.points)

    def content_hashes(
        self, metas: Sequence[Mapping[str, Any]], digest_format: int = VALUES
    ) -> list[str]:
        """The content hash of these measurements under each description: a stored sweep whose
        hash is one of them holds the same measurements (read once for all of them)."""
        heads = [hashing.head(hashing.meta_json(dict(m), hashed_keys(m))) for m in metas]
        splits = self._point_splits()
        if splits:
            heads = [head + splits for head in heads]
        if self._table_rows is not None:
            return [self._table_rows.digest(head) for head in heads]
        samples = list(point_digests(self.points, digest_format).items())
        arrays = hashing.from_values([p.values for p in self.points])
        return [arrays.digest(head, samples=samples) for head in heads]

    def _point_splits(self) -> bytes:
        """Each point's own prefill:decode split as the hash reads it (b"" when no point has
        one: every sweep stored before per-point splits keeps its hash)."""
        if self._table_rows is not None:
            return b""  # a table-backed sweep has one split (the columnar path refuses more)
        found = [point_split(p.extra) if p.extra else None for p in self.points]
        if not any(found):
            return b""
        return b"point splits " + hashing.meta_json({"splits": found}, ("splits",))


def make_samples(
    ttft_ms: list[float | None],
    e2el_ms: list[float | None],
    output_len: list[int | None],
    input_len: list[int | None],
    ok: list[bool],
    session_id: list[str | None] | None = None,
    turn_index: list[int | None] | None = None,
    phase: list[str | None] | None = None,
) -> list[tuple[Any, ...]]:
    """Request samples of one point from parallel columns (ms and tokens; None where failed),
    with each request's session and turn when the run is multi-turn, and its phase (warm-up
    or profiling) where the file states it."""
    n = len(ok)
    if not (len(ttft_ms) == len(e2el_ms) == len(output_len) == len(input_len) == n):
        raise ValueError("request sample columns differ in length")
    if session_id is None and turn_index is None and phase is None:
        return list(zip(ttft_ms, e2el_ms, output_len, input_len, ok, strict=True))
    sessions = session_id if session_id is not None else [None] * n
    turns = turn_index if turn_index is not None else [None] * n
    if phase is None:
        return list(zip(ttft_ms, e2el_ms, output_len, input_len, ok, sessions, turns, strict=True))
    columns = (ttft_ms, e2el_ms, output_len, input_len, ok, sessions, turns, phase)
    return list(zip(*columns, strict=True))


def point_label(point: ParsedPoint) -> str:
    """'at concurrency 8' / 'at rate 2.0': how a point is named in messages."""
    if point.values.get("concurrency") is not None:
        return f"at concurrency {point.values['concurrency']:g}"
    rate = point.values.get("request_rate")
    return f"at rate {rate:g}" if isinstance(rate, int | float) else f"at rate {rate}"
