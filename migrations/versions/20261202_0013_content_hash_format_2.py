"""sweep content hash, format 2: every stored sweep rehashed

Revision ID: 20261202_0013
Revises: 20261202_0012
Create Date: 2026-12-02 10:30:00

An upload finds a sweep it already stored by the content hash of its description and
measurements. Format 1 wrote every point as JSON text and hashed that, which took longer than
storing the points; format 2 (app.ingest.content_hash) hashes the doubles as they are. So that
re-uploading a file still finds its sweep, each stored sweep is rehashed from the description
it was uploaded with, its points and its request samples:

- Stored as uploaded (format 1 of what is stored gives the stored hash): rehashed as it is.
- Its upload's warnings added to the notes: format 1 with trailing lines of the notes left off
  finds the notes as uploaded, and those are hashed.
- Edited since: nothing finds the description it was uploaded with, so it is hashed as it
  stands; its original file then uploads as a new sweep.

Downgrade hashes every sweep in format 1 as it stands (the notes as stored).

Both formats are written out here as they were at this revision, not imported from the app, so
a later change to app.ingest.content_hash cannot change what this migration did.
"""

import hashlib
import json
import math
from collections.abc import Callable, Iterator, Sequence
from io import BytesIO
from typing import Any

import numpy as np
import polars as pl
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261202_0013"
down_revision: str | Sequence[str] | None = "20261202_0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As format 1 and this revision's tables have them.
META = (
    "sweep", "hardware", "num_gpus", "model", "engine", "engine_version", "precision",
    "spec_decode", "isl", "osl", "workload", "num_prefill_gpus", "num_decode_gpus", "notes",
    "measured_at",
)  # fmt: skip
POINT = (
    "achieved_concurrency", "concurrency", "duration_s", "e2el_mean_ms", "e2el_p50_ms",
    "e2el_p90_ms", "e2el_p95_ms", "e2el_p99_ms", "goodput_requests_per_s", "goodput_slo",
    "input_len", "itl_mean_ms", "itl_p50_ms", "itl_p90_ms", "itl_p95_ms", "itl_p99_ms",
    "num_failed", "num_requests", "output_len", "output_tok_s", "request_rate",
    "requests_per_s", "total_tok_s", "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms",
    "tpot_p95_ms", "tpot_p99_ms", "ttft_mean_ms", "ttft_p50_ms", "ttft_p90_ms", "ttft_p95_ms",
    "ttft_p99_ms",
)  # fmt: skip
SAMPLE = ("ttft_ms", "e2el_ms", "output_len", "input_len", "ok")
BATCH = 500  # sweeps per round of queries


def upgrade() -> None:
    _rehash(_format_1, _format_2)


def downgrade() -> None:
    _rehash(_format_2, _format_1)


Hasher = Callable[[dict[str, Any], list[dict[str, Any]], list[tuple[int, str]]], str]


def _rehash(old: Hasher, new: Hasher) -> None:
    bind = op.get_bind()
    ids = [row[0] for row in bind.execute(sa.text("SELECT id FROM sweep ORDER BY id"))]
    updates: list[dict[str, Any]] = []
    taken: set[str] = set()
    for at in range(0, len(ids), BATCH):
        for sweep_id, meta, points, stored in _sweeps(bind, ids[at : at + BATCH]):
            samples = _sample_digests(bind, sweep_id)
            digest = new(_as_uploaded(old, meta, points, samples, stored), points, samples)
            if digest in taken:  # the same content twice (edited alike): keep both rows
                digest = hashlib.sha256(f"{digest}:{sweep_id}".encode()).hexdigest()
            taken.add(digest)
            updates.append({"id": sweep_id, "digest": digest})
    # Two passes, so no new hash meets an old one still stored under the unique constraint.
    update = sa.text("UPDATE sweep SET content_hash = :digest WHERE id = :id")
    if updates:
        bind.execute(update, [{"id": u["id"], "digest": f"~{u['id']}"} for u in updates])
        bind.execute(update, updates)


def _sweeps(
    bind: sa.Connection, ids: list[int]
) -> Iterator[tuple[int, dict[str, Any], list[dict[str, Any]], str]]:
    columns = ", ".join("name" if k == "sweep" else k for k in META)
    rows = bind.execute(
        sa.text(f"SELECT id, content_hash, {columns} FROM sweep WHERE id IN :ids").bindparams(
            sa.bindparam("ids", expanding=True)
        ),
        {"ids": ids},
    ).all()
    points: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
    found = bind.execute(
        sa.text(
            f"SELECT sweep_id, {', '.join(POINT)} FROM point WHERE sweep_id IN :ids "
            "ORDER BY sweep_id, position"
        ).bindparams(sa.bindparam("ids", expanding=True)),
        {"ids": ids},
    )
    for row in found:
        points[row[0]].append({k: v for k, v in zip(POINT, row[1:], strict=True) if v is not None})
    for row in rows:
        meta = dict(zip(META, row[2:], strict=True))
        yield row[0], meta, points[row[0]], row[1]


def _sample_digests(bind: sa.Connection, sweep_id: int) -> list[tuple[int, str]]:
    """(position, sha256 of its samples' CSV text) of each point with samples, block by block:
    a point's samples are contiguous and in order across a sweep's blocks."""
    blocks = bind.execute(
        sa.text("SELECT data FROM sample_block WHERE sweep_id = :id ORDER BY seq"),
        {"id": sweep_id},
    )
    digests: dict[int, Any] = {}
    for (data,) in blocks:
        frame = pl.read_parquet(BytesIO(bytes(data)))
        parts = frame.partition_by("position", maintain_order=True, as_dict=True)
        for (position,), part in parts.items():
            first = position not in digests
            digest = digests.setdefault(position, hashlib.sha256())
            text = part.select(SAMPLE).write_csv(include_header=first, float_precision=None)
            digest.update(text.encode())
    return [(p, d.hexdigest()) for p, d in sorted(digests.items())]


def _as_uploaded(
    old: Hasher,
    meta: dict[str, Any],
    points: list[dict[str, Any]],
    samples: list[tuple[int, str]],
    stored: str,
) -> dict[str, Any]:
    """The description the stored hash was made of: as stored, or with the upload's warnings
    left off the notes; as stored when neither gives the stored hash (edited since)."""
    if not meta.get("notes") or old(meta, points, samples) == stored:
        return meta
    lines = str(meta["notes"]).split("\n")
    for keep in range(len(lines) - 1, -1, -1):
        for notes in ["\n".join(lines[:keep])] if keep else [None, ""]:
            if old({**meta, "notes": notes}, points, samples) == stored:
                return {**meta, "notes": notes}
    return meta


def _format_2(
    meta: dict[str, Any], points: list[dict[str, Any]], samples: list[tuple[int, str]]
) -> str:
    head = FORMAT_2 + _meta_json(meta, META) + b"\n"
    return _digest(head, *_point_arrays(points), samples)


def _format_1(
    meta: dict[str, Any], points: list[dict[str, Any]], samples: list[tuple[int, str]]
) -> str:
    by_position = dict(samples)
    doc = {
        "meta": {k: _norm(meta.get(k)) for k in META},
        "points": [
            {"s": by_position.get(i), "v": {k: _norm(p.get(k)) for k in POINT}}
            for i, p in enumerate(points)
        ],
    }
    text = json.dumps(doc, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        return int(value) if value.is_integer() else repr(value)
    return value


# Format 2 as app.ingest.content_hash wrote it at this revision (from a list of points).
FORMAT_2 = b"paretoscope sweep content 2\n"
NUMERIC = tuple(sorted(c for c in POINT if c != "goodput_slo"))
TEXT = ("goodput_slo",)
_COLUMN_INDEX = {name: i for i, name in enumerate(NUMERIC)}
_ENCODER = json.JSONEncoder(default=str, separators=(",", ":"))
Other = tuple[int, str, Any]  # (point, column, value) of a value that is not a double


def _meta_json(meta: dict[str, Any], keys: Sequence[str]) -> bytes:
    doc = {}
    for k in sorted(keys):
        value = meta.get(k)
        doc[k] = _norm(value) if value.__class__ is float else value
    return _ENCODER.encode(doc).encode()


def _point_arrays(points: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, list[Other]]:
    """The doubles (points x NUMERIC), which were measured, and the other values by point."""
    n = len(points)
    values = np.zeros((n, len(NUMERIC)), dtype=np.float64)
    measured = np.zeros((n, len(NUMERIC)), dtype=np.uint8)
    others: list[Other] = []
    for i, point in enumerate(points):
        for name, value in point.items():
            if value is None:
                continue
            if name in _COLUMN_INDEX:
                try:
                    number = float(value)
                except (TypeError, ValueError, OverflowError):
                    others.append((i, name, _text(value)))
                    continue
                values[i, _COLUMN_INDEX[name]] = number
                measured[i, _COLUMN_INDEX[name]] = 1
            elif name in TEXT:
                others.append((i, name, _text(value)))
    values[np.isnan(values)] = np.nan  # one NaN, whatever its payload
    values[values == 0.0] = 0.0  # -0.0 becomes 0.0
    order = {name: k for k, name in enumerate((*NUMERIC, *TEXT))}
    others.sort(key=lambda o: (o[0], order[o[1]]))
    return np.ascontiguousarray(values), np.ascontiguousarray(measured), others


def _digest(
    head: bytes,
    values: np.ndarray,
    measured: np.ndarray,
    others: list[Other],
    samples: Sequence[tuple[int, str]],
) -> str:
    digest = hashlib.sha256(head + len(values).to_bytes(8, "little"))
    digest.update(values.data)
    digest.update(measured.data)
    listed = [[i, c, v] for i, c, v in others]
    digest.update(_compact(listed) if listed else b"[]")
    digest.update(_compact([list(s) for s in samples]) if samples else b"[]")
    return digest.hexdigest()


def _text(value: Any) -> Any:
    return value if isinstance(value, str | int | bool) else str(value)


def _compact(value: Any) -> bytes:
    return _ENCODER.encode(value).encode()
