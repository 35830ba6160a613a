"""columnar request samples: one zstd Parquet block per sweep (per million requests)

Revision ID: 20261201_0003
Revises: 0001
Create Date: 2026-12-01 06:30:00

Moves every stored request sample into `sample_block` (sweep by sweep, so memory stays bounded
by the largest sweep) and drops `request_sample`; the downgrade moves them back. The block format
is written out here, not imported from the app, so this migration keeps meaning what it meant.
"""

from collections.abc import Sequence
from io import BytesIO

import polars as pl
import sqlalchemy as sa
from alembic import op

revision: str = "20261201_0003"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BLOCK_ROWS = 1_000_000
SCHEMA: dict[str, pl.DataType] = {
    "position": pl.Int32(),
    "ttft_ms": pl.Float64(),
    "e2el_ms": pl.Float64(),
    "output_len": pl.Int64(),
    "input_len": pl.Int64(),
    "ok": pl.Boolean(),
}
FIELDS = ("ttft_ms", "e2el_ms", "output_len", "input_len", "ok")


def _block_table() -> sa.Table:
    return sa.table(
        "sample_block",
        sa.column("sweep_id", sa.Integer()),
        sa.column("seq", sa.Integer()),
        sa.column("rows", sa.Integer()),
        sa.column("counts", sa.JSON()),
        sa.column("data", sa.LargeBinary()),
    )


def _sample_table() -> sa.Table:
    return sa.table(
        "request_sample",
        sa.column("point_id", sa.Integer()),
        *(sa.column(c) for c in FIELDS),
    )


def upgrade() -> None:
    op.create_table(
        "sample_block",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sweep_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["sweep_id"],
            ["sweep.id"],
            name=op.f("fk_sample_block_sweep_id_sweep"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sample_block")),
    )
    with op.batch_alter_table("sample_block", schema=None) as batch_op:
        batch_op.create_index("ix_sample_block_sweep_seq", ["sweep_id", "seq"], unique=True)

    bind = op.get_bind()
    sweep_ids = bind.execute(
        sa.text(
            "SELECT DISTINCT p.sweep_id FROM request_sample r JOIN point p ON p.id = r.point_id"
            " ORDER BY p.sweep_id"
        )
    ).scalars()
    blocks = _block_table()
    for sweep_id in list(sweep_ids):
        rows = bind.execute(
            sa.text(
                "SELECT p.position, r.ttft_ms, r.e2el_ms, r.output_len, r.input_len, r.ok"
                " FROM request_sample r JOIN point p ON p.id = r.point_id"
                " WHERE p.sweep_id = :sweep ORDER BY p.position, r.id"
            ),
            {"sweep": sweep_id},
        ).all()
        frame = pl.DataFrame([tuple(r) for r in rows], schema=SCHEMA, orient="row")
        for seq, start in enumerate(range(0, frame.height, BLOCK_ROWS)):
            block = frame.slice(start, BLOCK_ROWS)
            counts = {str(p): n for p, n in sorted(block.group_by("position").len().rows())}
            buffer = BytesIO()
            block.write_parquet(buffer, compression="zstd", statistics=False)
            bind.execute(
                blocks.insert().values(
                    sweep_id=sweep_id,
                    seq=seq,
                    rows=block.height,
                    counts=counts,
                    data=buffer.getvalue(),
                )
            )

    with op.batch_alter_table("request_sample", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_request_sample_point_id"))
    op.drop_table("request_sample")


def downgrade() -> None:
    op.create_table(
        "request_sample",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("point_id", sa.Integer(), nullable=False),
        sa.Column("ttft_ms", sa.Float(), nullable=True),
        sa.Column("e2el_ms", sa.Float(), nullable=True),
        sa.Column("output_len", sa.Integer(), nullable=True),
        sa.Column("input_len", sa.Integer(), nullable=True),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["point_id"],
            ["point.id"],
            name=op.f("fk_request_sample_point_id_point"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_request_sample")),
    )
    with op.batch_alter_table("request_sample", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_request_sample_point_id"), ["point_id"], unique=False)

    bind = op.get_bind()
    samples = _sample_table()
    blocks = bind.execute(
        sa.text("SELECT sweep_id, data FROM sample_block ORDER BY sweep_id, seq")
    ).all()
    for sweep_id, data in blocks:
        points = bind.execute(
            sa.text("SELECT position, id FROM point WHERE sweep_id = :sweep"), {"sweep": sweep_id}
        ).all()
        ids = pl.DataFrame(
            [tuple(p) for p in points],
            schema={"position": pl.Int32(), "point_id": pl.Int64()},
            orient="row",
        )
        frame = pl.read_parquet(BytesIO(bytes(data))).join(
            ids, on="position", how="inner", maintain_order="left"
        )
        rows = frame.select("point_id", *FIELDS).to_dicts()
        for start in range(0, len(rows), 50_000):
            bind.execute(samples.insert(), rows[start : start + 50_000])

    with op.batch_alter_table("sample_block", schema=None) as batch_op:
        batch_op.drop_index("ix_sample_block_sweep_seq")
    op.drop_table("sample_block")
