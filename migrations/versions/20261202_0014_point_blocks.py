"""points stored as one block per sweep, not a row per point

Revision ID: 20261202_0014
Revises: 20261202_0013
Create Date: 2026-12-02 11:00:00

A canonical file of 100,000 points spent most of its upload in the database's per-row work on
`point` (a foreign-key check and two indexes per row). `point_block` holds each sweep's points
in one block (app.store.point_blocks). Each sweep's points move, in position order; a point's id
becomes its sweep's id times 10,000,000 plus its position. Downgrade moves them back (with new
row ids).

The block format is written out here as it was at this revision (app.store.point_blocks then),
not imported from the app, so a later change to the app cannot change what this migration did.
"""

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "20261202_0014"
down_revision: str | Sequence[str] | None = "20261202_0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The columns `point` has at this revision.
POINT = (
    "concurrency", "request_rate", "achieved_concurrency", "num_requests", "num_failed",
    "duration_s", "input_len", "output_len", "ttft_mean_ms", "ttft_p50_ms", "ttft_p90_ms",
    "ttft_p95_ms", "ttft_p99_ms", "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms",
    "tpot_p99_ms", "itl_mean_ms", "itl_p50_ms", "itl_p90_ms", "itl_p95_ms", "itl_p99_ms",
    "e2el_mean_ms", "e2el_p50_ms", "e2el_p90_ms", "e2el_p95_ms", "e2el_p99_ms",
    "output_tok_s", "total_tok_s", "requests_per_s", "goodput_requests_per_s", "goodput_slo",
)  # fmt: skip
TEXT = ("goodput_slo",)
NUMERIC = tuple(c for c in POINT if c not in TEXT)
INTEGER = frozenset({"num_requests", "num_failed"})
BATCH = 1000  # sweeps per round


def upgrade() -> None:
    op.create_table(
        "point_block",
        sa.Column("sweep_id", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["sweep_id"],
            ["sweep.id"],
            name=op.f("fk_point_block_sweep_id_sweep"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("sweep_id", name=op.f("pk_point_block")),
    )
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        # Doubles barely compress: never try. A block of up to ~8 KB (a 32-point sweep of 15
        # columns is ~4 KB) stays in its row; a larger one goes out of line as it is.
        op.execute("ALTER TABLE point_block ALTER COLUMN data SET STORAGE EXTERNAL")
        op.execute("ALTER TABLE point_block SET (toast_tuple_target = 8160)")
    ids = [r[0] for r in bind.execute(sa.text("SELECT DISTINCT sweep_id FROM point ORDER BY 1"))]
    insert = sa.text("INSERT INTO point_block (sweep_id, points, data) VALUES (:s, :n, :d)")
    for at in range(0, len(ids), BATCH):
        frame = _points(bind, ids[at : at + BATCH])
        blocks = _encode_frame(frame)
        bind.execute(insert, [{"s": s, "n": n, "d": d} for s, n, d in blocks])
    op.drop_index(op.f("ix_point_sweep_position"), table_name="point")
    op.drop_table("point")


def _points(bind: sa.Connection, ids: list[int]) -> pl.DataFrame:
    rows = bind.execute(
        sa.text(
            f"SELECT sweep_id, position, extra, {', '.join(POINT)} FROM point "
            "WHERE sweep_id IN :ids ORDER BY sweep_id, position"
        ).bindparams(sa.bindparam("ids", expanding=True)),
        {"ids": ids},
    ).all()
    schema: dict[str, Any] = {"sweep_id": pl.Int64, "position": pl.Int64, "extra": pl.String}
    schema |= {c: pl.String if c in TEXT else pl.Float64 for c in POINT}
    data = [
        (r[0], r[1], r[2] if isinstance(r[2], str) or r[2] is None else json.dumps(r[2]), *r[3:])
        for r in rows
    ]
    frame = pl.DataFrame(data, schema=schema, orient="row")
    # A sweep's positions are 0, 1, 2, ... as uploads write them: its samples are keyed by them.
    expected = pl.int_range(pl.len()).over("sweep_id")
    wrong = frame.filter(pl.col("position") != expected)
    if wrong.height:
        raise RuntimeError(
            f"sweep {wrong['sweep_id'][0]}: its points' positions are not 0, 1, 2, ...; "
            "they key its request samples, so they cannot be renumbered here"
        )
    return frame.with_columns(pl.col("extra").fill_null("{}"))


def downgrade() -> None:
    op.create_table(
        "point",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sweep_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        *(
            sa.Column(
                c,
                sa.String(length=200) if c in TEXT else _point_type(c),
                nullable=c != "output_tok_s",
            )
            for c in POINT
        ),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["sweep_id"], ["sweep.id"], name=op.f("fk_point_sweep_id_sweep"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_point")),
    )
    op.create_index(op.f("ix_point_sweep_position"), "point", ["sweep_id", "position"])
    bind = op.get_bind()
    columns = ("sweep_id", "position", "extra", *POINT)
    insert = sa.text(
        f"INSERT INTO point ({', '.join(columns)}) VALUES ({', '.join(':' + c for c in columns)})"
    )
    ids = [r[0] for r in bind.execute(sa.text("SELECT sweep_id FROM point_block ORDER BY 1"))]
    for at in range(0, len(ids), BATCH):
        found = bind.execute(
            sa.text("SELECT sweep_id, data FROM point_block WHERE sweep_id IN :ids").bindparams(
                sa.bindparam("ids", expanding=True)
            ),
            {"ids": ids[at : at + BATCH]},
        )
        rows = []
        for sweep_id, data in found:
            rows += _decode(sweep_id, data)
        if rows:
            bind.execute(insert, rows)
    op.drop_table("point_block")


def _point_type(name: str) -> sa.types.TypeEngine[Any]:
    return sa.Integer() if name in ("num_requests", "num_failed") else sa.Float()


# The block as app.store.point_blocks wrote and read it at this revision: a JSON header line,
# then the numeric columns it names as little-endian doubles, point by point, then one byte per
# value, 1 where it was measured.
_ENCODER = json.JSONEncoder(separators=(",", ":"))


def _encode_frame(frame: pl.DataFrame) -> list[tuple[int, int, bytes]]:
    """(sweep id, number of points, block) of each sweep of a frame of sweep_id, position,
    extra (JSON text) and the point columns, sorted by sweep and position."""
    if frame.is_empty():
        return []
    numeric = [c for c in NUMERIC if c in frame.columns]
    texts = [c for c in TEXT if c in frame.columns]
    n = frame.height
    values = np.zeros((n, len(numeric)), dtype="<f8")
    measured = np.zeros((n, len(numeric)), dtype=np.uint8)
    for j, name in enumerate(numeric):
        column = frame[name].cast(pl.Float64)
        given = column.is_not_null().to_numpy()
        values[:, j] = np.where(given, column.to_numpy(), 0.0)
        measured[:, j] = given
    sweep_ids = frame["sweep_id"].to_numpy()
    starts = np.flatnonzero(np.diff(sweep_ids)) + 1
    bounds = zip(np.concatenate([[0], starts]), np.concatenate([starts, [n]]), strict=True)
    extras = frame["extra"]
    with_extra = np.flatnonzero((extras.is_not_null() & (extras != "{}")).to_numpy())
    text_values = {c: frame[c].to_list() for c in texts if frame[c].null_count() < n}
    out = []
    for start, stop in bounds:
        start, stop = int(start), int(stop)
        first = last = 0
        if len(with_extra):
            first, last = np.searchsorted(with_extra, [start, stop])
        header: dict[str, Any] = {"n": stop - start, "numeric": numeric}
        if text_values:
            header["text"] = {c: v[start:stop] for c, v in text_values.items()}
        if first < last:
            header["extra"] = [[int(i) - start, extras[int(i)]] for i in with_extra[first:last]]
        head = _ENCODER.encode(header).encode()
        block = b"".join(
            (head, b"\n", values[start:stop].tobytes(), measured[start:stop].tobytes())
        )
        out.append((int(sweep_ids[start]), stop - start, block))
    return out


def _decode(sweep_id: int, data: bytes) -> list[dict[str, Any]]:
    """Each point of a block as a `point` row: every column (None where not measured),
    sweep_id, position and its extra fields as JSON text."""
    raw = bytes(data)
    end = raw.index(b"\n")
    header: dict[str, Any] = json.loads(raw[:end])
    n, width = header["n"], len(header["numeric"])
    body = np.frombuffer(raw, dtype="<f8", count=n * width, offset=end + 1).reshape(n, width)
    flags = np.frombuffer(raw, dtype=np.uint8, count=n * width, offset=end + 1 + 8 * n * width)
    known = flags.reshape(n, width).astype(bool)
    extras = {int(i): text for i, text in header.get("extra", [])}
    rows: list[dict[str, Any]] = [
        {**dict.fromkeys(POINT), "sweep_id": sweep_id, "position": p} for p in range(n)
    ]
    for j, name in enumerate(header["numeric"]):
        cast = int if name in INTEGER else float
        for p, (value, given) in enumerate(zip(body[:, j].tolist(), known[:, j], strict=True)):
            rows[p][name] = cast(value) if given else None
    for name, texts in header.get("text", {}).items():
        for p, value in enumerate(texts):
            rows[p][name] = value
    for p, row in enumerate(rows):
        row["extra"] = json.dumps(json.loads(extras[p])) if p in extras else "{}"
    return rows
