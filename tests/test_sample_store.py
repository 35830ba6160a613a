"""Request samples live in columnar blocks: written and read by polars, moved by the migration."""

from __future__ import annotations

import io

import polars as pl
from alembic import command
from sqlalchemy import Engine, func, inspect, select, text
from sqlalchemy.orm import Session

from app.ingest.parsed import ParsedPoint, ParsedSweep
from app.store import samples as sample_store
from app.store import sweep_save
from app.store import sweeps as q
from app.store.db import make_sessionmaker
from app.store.migrate import alembic_config, upgrade_to_head
from app.store.models import SampleBlock
from app.store.point_blocks import point_id

REQUESTS = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n"
    b"mini,1,120.5,3090.25,100,512,true\nmini,1,,,,512,false\nmini,4,190,190,1,512,true\n"
)


def _sweep(
    name: str, samples: list[list[tuple[float | None, float | None, int | None, int, bool]]]
) -> ParsedSweep:
    points = [
        ParsedPoint(
            {"concurrency": float(i + 1), "output_tok_s": 100.0 * (i + 1)}, samples=s or None
        )
        for i, s in enumerate(samples)
    ]
    return ParsedSweep({"sweep": name, "hardware": "H100", "num_gpus": 8}, points, "x.csv", "test")


def test_samples_read_back_in_point_and_request_order_with_their_point_ids(
    session: Session,
) -> None:
    first = [(10.0, 100.0, 5, 7, True), (None, None, None, 7, False)]
    third = [(30.5, 300.25, 9, 7, True)]
    saved = sweep_save.save_parsed(session, [_sweep("a", [first, [], third])])
    session.commit()
    ids = [p.id for p in q.get_sweep(session, saved[0].sweep.id).points]
    frame = sample_store.samples_frame(session, ids)
    # The last columns (session, turn, phase, cached input tokens) are unknown: these samples
    # do not give them.
    assert frame.rows() == [
        (ids[0], 10.0, 100.0, 5, 7, True, None, None, None, None),
        (ids[0], None, None, None, 7, False, None, None, None, None),
        (ids[2], 30.5, 300.25, 9, 7, True, None, None, None, None),
    ]
    assert q.sample_counts(session, ids) == {ids[0]: 2, ids[2]: 1}
    only_third = sample_store.samples_frame(session, [ids[2]])
    assert only_third["point_id"].to_list() == [ids[2]]


def test_requests_beyond_a_block_start_the_next_block_in_order() -> None:
    big = [(float(i), float(i) + 1.0, i, 3, i % 5 != 0) for i in range(25)]
    columns = list(sample_store.BLOCK_SCHEMA)[1:6]  # no session or turn: single-turn rows
    frames = [
        (0, pl.DataFrame(big[:10], orient="row", schema=columns)),
        (1, pl.DataFrame(big[10:], orient="row", schema=columns)),
    ]
    blocks = [sample_store.block(pieces) for pieces in sample_store.plans(frames, size=7)]
    assert [b.height for b in blocks] == [7, 7, 7, 4]
    assert pl.concat(blocks)["ttft_ms"].to_list() == [float(i) for i in range(25)]
    assert pl.concat(blocks)["position"].to_list() == [0] * 10 + [1] * 15


def test_a_block_of_more_rows_than_a_row_group_is_written_in_several_and_reads_back_whole() -> None:
    rows = 2 * sample_store.ROW_GROUP_ROWS + 1_000  # three row groups, the last one short
    columns = list(sample_store.SAMPLE_FRAME_SCHEMA)[:5]
    values = [(float(i), float(i) + 0.5, i % 900, 512, i % 7 != 0) for i in range(rows)]
    first = rows // 3  # the points' pieces end inside row groups, not at their edges
    frames = [
        (0, pl.DataFrame(values[:first], orient="row", schema=columns)),
        (1, pl.DataFrame(values[first:], orient="row", schema=columns)),
    ]
    [pieces] = sample_store.plans(frames)
    made = sample_store.block(pieces)
    decoded = sample_store.decode(sample_store.encode(pieces))
    assert decoded.n_chunks() == 3  # polars reads each row group as a chunk of its own
    assert decoded.select(made.columns).equals(made)
    assert decoded["position"].to_list() == [0] * first + [1] * (rows - first)


def test_a_sweep_written_in_many_blocks_stores_them_in_order_and_reads_back_whole(
    session: Session,
) -> None:
    samples = [(float(i), float(i) + 1.0, i, 3, i % 5 != 0) for i in range(25)]
    saved = sweep_save.save_parsed(session, [_sweep("blocks", [[], []])])
    sweep = saved[0].sweep
    ids = [p.id for p in sweep.points]
    columns = list(sample_store.SAMPLE_FRAME_SCHEMA)[:5]  # no session or turn: single-turn rows
    frames = [
        (0, pl.DataFrame(samples[:10], orient="row", schema=columns)),
        (1, pl.DataFrame(samples[10:], orient="row", schema=columns)),
    ]
    # Blocks after the first are encoded on a helper thread while the one before is stored.
    assert sample_store.write(session, sweep.id, frames, size=7) == 25
    session.commit()
    stored = session.execute(
        select(SampleBlock.seq, SampleBlock.rows, SampleBlock.counts).order_by(SampleBlock.seq)
    ).all()
    assert [tuple(b) for b in stored] == [
        (0, 7, {"0": 7}),
        (1, 7, {"0": 3, "1": 4}),
        (2, 7, {"1": 7}),
        (3, 4, {"1": 4}),
    ]
    frame = sample_store.samples_frame(session, ids)
    assert frame["ttft_ms"].to_list() == [float(i) for i in range(25)]
    assert frame["point_id"].to_list() == [ids[0]] * 10 + [ids[1]] * 15


def test_a_block_holds_compressed_parquet_and_counts_by_position(session: Session) -> None:
    samples = [(float(i % 50), 1000.0 + i % 70, i % 100 + 1, 512, True) for i in range(20_000)]
    saved = sweep_save.save_parsed(session, [_sweep("c", [samples, samples[:5]])])
    session.commit()
    block = session.scalars(select(SampleBlock)).one()
    assert (block.sweep_id, block.seq, block.rows) == (saved[0].sweep.id, 0, 20_005)
    assert block.counts == {"0": 20_000, "1": 5}
    assert block.data[:4] == b"PAR1"
    # 20,005 requests of five columns take 800 KB as rows; the block is a small fraction.
    assert len(block.data) < 60_000


def test_a_block_written_as_zstd_before_reads_back_as_the_same_samples(session: Session) -> None:
    samples = [(10.5 + i, 900.25 + i, i + 1, 512, i % 3 != 0) for i in range(1_000)]
    saved = sweep_save.save_parsed(session, [_sweep("z", [samples])])
    session.commit()
    ids = [p.id for p in q.get_sweep(session, saved[0].sweep.id).points]
    block = session.scalars(select(SampleBlock)).one()
    written = sample_store.decode(block.data)
    older = io.BytesIO()  # as blocks were written before LZ4
    written.write_parquet(older, compression="zstd", statistics=False)
    assert older.getvalue() != block.data
    block.data = older.getvalue()
    session.commit()
    sample_store.cache.clear()
    frame = sample_store.samples_frame(session, ids)
    assert (
        frame.drop("point_id", "session_id", "turn_index", "phase", "cached_input_tokens").rows()
        == samples
    )


def test_a_block_written_before_cached_input_tokens_reads_them_as_unknown(
    session: Session,
) -> None:
    samples = [(10.5 + i, 900.25 + i, i + 1, 512, True) for i in range(10)]
    saved = sweep_save.save_parsed(session, [_sweep("old", [samples])])
    session.commit()
    ids = [p.id for p in q.get_sweep(session, saved[0].sweep.id).points]
    block = session.scalars(select(SampleBlock)).one()
    older = io.BytesIO()  # as blocks were written before the column existed
    sample_store.decode(block.data).drop("cached_input_tokens").write_parquet(older)
    block.data = older.getvalue()
    session.commit()
    sample_store.cache.clear()
    frame = sample_store.samples_frame(session, ids)
    assert frame["cached_input_tokens"].null_count() == 10
    assert (
        frame.drop("point_id", "session_id", "turn_index", "phase", "cached_input_tokens").rows()
        == samples
    )


def test_deleting_a_sweep_deletes_its_sample_blocks(session: Session) -> None:
    saved = sweep_save.save_parsed(session, [_sweep("d", [[(1.0, 2.0, 2, 3, True)]])])
    session.commit()
    q.delete_sweep(session, saved[0].sweep.id)
    session.commit()
    assert session.scalar(select(func.count()).select_from(SampleBlock)) == 0


def test_the_migration_moves_request_rows_into_blocks_and_back(
    database_url: str, engine: Engine
) -> None:
    config = alembic_config(database_url)
    command.downgrade(config, "0001")
    assert "request_sample" in inspect(engine).get_table_names()
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO sweep (id, name, hardware, num_gpus, source_kind, content_hash)"
                " VALUES (1, 's', 'H100', 8, 'measured', 'h1'),"
                " (2, 't', 'H100', 8, 'measured', 'h2')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO point (id, sweep_id, position, output_tok_s, extra) VALUES"
                " (11, 1, 0, 1.0, '{}'), (12, 1, 1, 2.0, '{}'), (21, 2, 0, 3.0, '{}')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO request_sample (id, point_id, ttft_ms, e2el_ms, output_len,"
                " input_len, ok) VALUES (1, 12, 5.5, 50.25, 10, 4, true),"
                " (2, 11, 1.5, 10.0, 2, 4, true), (3, 11, NULL, NULL, NULL, 4, false),"
                " (4, 21, 7.0, 70.0, 3, 4, true)"
            )
        )
    upgrade_to_head(database_url)
    assert "request_sample" not in inspect(engine).get_table_names()
    # A point's id is now its sweep's id and its position (migration 0014).
    a, b, c = point_id(1, 0), point_id(1, 1), point_id(2, 0)
    with make_sessionmaker(engine)() as session:
        frame = sample_store.samples_frame(session, [a, b, c])
        # Blocks written before sessions and turns (issue 49) and cached input tokens (issue 50)
        # read them as null.
        assert frame.drop("session_id", "turn_index", "phase", "cached_input_tokens").rows() == [
            (a, 1.5, 10.0, 2, 4, True),
            (a, None, None, None, 4, False),
            (b, 5.5, 50.25, 10, 4, True),
            (c, 7.0, 70.0, 3, 4, True),
        ]
        assert q.sample_counts(session, [a, b, c]) == {a: 2, b: 1, c: 1}
    sample_store.cache.clear()
    command.downgrade(config, "0001")
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT p.sweep_id, p.position, r.ttft_ms, r.e2el_ms, r.output_len,"
                " r.input_len, r.ok FROM request_sample r JOIN point p ON p.id = r.point_id"
                " ORDER BY r.id"
            )
        ).all()
    assert [tuple(r) for r in rows] == [
        (1, 0, 1.5, 10.0, 2, 4, True),
        (1, 0, None, None, None, 4, False),
        (1, 1, 5.5, 50.25, 10, 4, True),
        (2, 0, 7.0, 70.0, 3, 4, True),
    ]
    upgrade_to_head(database_url)
