"""Alembic migrations create exactly the models' schema, and run down and up again."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, inspect, select, text
from sqlalchemy.orm import Session

from app.domain.columns import POINT_COLUMN_NAMES
from app.ingest import UploadFile
from app.services.upload import save as uploads
from app.settings import PROJECT_ROOT
from app.store import samples as sample_store
from app.store import sweeps
from app.store.db import make_engine, make_sessionmaker
from app.store.migrate import alembic_config, upgrade_to_head
from app.store.models import Base, SampleBlock, Sweep
from tests.ingest.test_all_fixtures import FIELDS, FOLDERS, files_of

SEED_SWEEPS = PROJECT_ROOT / "seed_data" / "sweeps"
MIGRATIONS = PROJECT_ROOT / "migrations"


def _imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def test_no_migration_imports_the_app_so_a_later_change_cannot_rewrite_history() -> None:
    versions = sorted((MIGRATIONS / "versions").glob("*.py"))
    assert len(versions) >= 12
    importing_app = {
        path.name: sorted(m for m in _imported_modules(path) if m.split(".")[0] == "app")
        for path in versions
    }
    assert {name: found for name, found in importing_app.items() if found} == {}


def test_the_migration_runner_takes_only_its_connection_and_the_models_from_the_app() -> None:
    """env.py reads the database URL, opens the app's engine (its SQLite pragmas) and hands the
    models to autogenerate; what an upgrade does stays in the frozen revisions."""
    from_app = {m for m in _imported_modules(MIGRATIONS / "env.py") if m.split(".")[0] == "app"}
    assert from_app == {"app.settings", "app.store.db", "app.store.models"}


def test_upgrade_head_matches_the_models(engine: Engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


@pytest.mark.postgres
def test_postgres_keeps_sample_blocks_out_of_line_without_compressing_them_again(
    postgres_migrated: str,
) -> None:
    # EXTERNAL: the LZ4 blocks are not run through pglz.
    assert _storage(postgres_migrated, "sample_block") == ("e", None)


@pytest.mark.postgres
def test_postgres_keeps_point_blocks_in_their_row_up_to_8_kb_and_never_compresses_them(
    postgres_migrated: str,
) -> None:
    assert _storage(postgres_migrated, "point_block") == ("e", ["toast_tuple_target=8160"])


def _storage(url: str, table: str) -> tuple[str, list[str] | None]:
    """How Postgres stores the table's `data` column, and the table's storage options."""
    engine = make_engine(url)  # SQLite has no storage setting to check
    with engine.connect() as conn:
        storage = conn.execute(
            text(
                "SELECT attstorage FROM pg_attribute "
                "WHERE attrelid = CAST(:t AS regclass) AND attname = 'data'"
            ),
            {"t": table},
        ).scalar_one()
        options = conn.execute(
            text("SELECT reloptions FROM pg_class WHERE oid = CAST(:t AS regclass)"), {"t": table}
        ).scalar_one()
    engine.dispose()
    return storage, options


def test_downgrade_then_upgrade_round_trips(database_url: str, engine: Engine) -> None:
    command.downgrade(alembic_config(database_url), "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    upgrade_to_head(database_url)
    assert set(Base.metadata.tables) <= set(inspect(engine).get_table_names())


def test_the_upgrade_relabels_what_an_older_seed_stored(database_url: str, engine: Engine) -> None:
    command.downgrade(alembic_config(database_url), "0001")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO sweep (name, hardware, num_gpus, source_kind, source_tool, "
                "content_hash) VALUES ('Demo', 'H100', 8, 'measured', 'seed_data/make_demo.py', "
                "'h1'), ('Mine', 'H100', 8, 'measured', 'vllm', 'h2')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO vendor_claim (vendor, hardware, gpu_scope, scope_gpus, value_tok_s, "
                "measures, token_basis) VALUES "
                "('Worked example (metrics-and-costs O6), not a vendor', 'H200', 'gpu', 1, "
                "3000, 'per_user', 'output'), ('NVIDIA', 'B200', 'node', 8, 250, 'per_user', "
                "'output')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO pricing_profile (key, name, kind, usd_per_gpu_hour, utilization, "
                "tier) VALUES ('ix-2026-04-h100-costh', 'a', 'rental', 1.3, 1, 'costh'), "
                "('ix-2026-04-h100-costr', 'b', 'rental', 1.3, 1, 'costr')"
            )
        )
    upgrade_to_head(database_url)
    with engine.connect() as conn:
        kinds = dict(conn.execute(text("SELECT name, source_kind FROM sweep")).all())
        examples = dict(conn.execute(text("SELECT vendor, example FROM vendor_claim")).all())
        prices = dict(conn.execute(text("SELECT key, kind FROM pricing_profile")).all())
    assert kinds == {"Demo": "demo", "Mine": "measured"}
    assert examples == {
        "Worked example (metrics-and-costs O6), not a vendor": True,
        "NVIDIA": False,
    }
    assert prices == {"ix-2026-04-h100-costh": "ownership", "ix-2026-04-h100-costr": "rental"}


def test_rehashing_keeps_every_stored_sweep_found_by_its_file(
    database_url: str, engine: Engine
) -> None:
    """Format 2 -> 1 -> 2 through migration 0013 gives each sweep its upload's hash again: its
    notes with the upload's warnings left off, its samples hashed block by block (here the
    demo's in blocks of 75 requests, so its points straddle blocks). An edited sweep is
    hashed as it stands, so only its file uploads as a new sweep. Migration 20261208_values
    then marks the sweeps with samples as hashed with format-1 sample digests (0013 wrote them
    so); uploading their files again finds them, and moves them to format 2."""
    demo = [SEED_SWEEPS / "demo_llama70b_1k1k.csv", SEED_SWEEPS / "demo_llama70b_1k1k.requests.csv"]
    paths = [p for f in FOLDERS for p in files_of(f)] + demo
    files = [UploadFile(p.name, p.read_bytes()) for p in paths]
    with make_sessionmaker(engine)() as session:
        saved = uploads.store(session, files, FIELDS)
        with_samples = next(s.id for s in saved if s.name.startswith("Demo"))  # 9 points, samples
        blocks = select(SampleBlock.data).where(SampleBlock.sweep_id == with_samples)
        frame = pl.concat(
            map(sample_store.decode, session.scalars(blocks.order_by(SampleBlock.seq)))
        )
        session.execute(delete(SampleBlock).where(SampleBlock.sweep_id == with_samples))
        parts = frame.partition_by("position", maintain_order=True, as_dict=True)
        sample_store.write(session, with_samples, ((p, f) for (p,), f in parts.items()), size=75)
        edited = next(s.id for s in saved if s.id != with_samples)
        session.commit()
        hashes = dict(session.execute(select(Sweep.id, Sweep.content_hash)).all())
        # Downgrading below 20261206_grouping drops `config`: a sweep with one is hashed
        # without it when it comes back (the InferenceX sweep's layout).
        configured = set(session.scalars(select(Sweep.id).where(Sweep.config.is_not(None))))
        sampled = set(session.scalars(select(SampleBlock.sweep_id).distinct()))
        sweeps.update_sweep(session, edited, {"workload": "edited after upload"})
        session.commit()
    # 25: SGLang's offline and online files join where one configuration ran at other loads.
    assert len(hashes) == 25 and any("no TPOT statistic" in n for n in _notes(engine))

    command.downgrade(alembic_config(database_url), "20261202_0012")
    formatted_1 = dict(_hashes(engine))
    assert not set(formatted_1.values()) & set(hashes.values())
    upgrade_to_head(database_url)
    again = dict(_hashes(engine))
    assert len(configured) == 1 and len(sampled) == 3 and with_samples in sampled
    kept = {i for i in again if i != edited and i not in configured | sampled}
    assert {i: again[i] for i in kept} == {i: hashes[i] for i in kept}
    assert again[edited] not in hashes.values()
    with engine.connect() as conn:
        marked = conn.execute(text("SELECT id FROM sweep WHERE sample_digest = 1")).scalars()
        assert set(marked) == sampled
    assert not {again[i] for i in sampled} & set(hashes.values())

    with make_sessionmaker(engine)() as session:
        uploads.store(session, files, FIELDS)
        session.commit()
    assert len(_hashes(engine)) == 27  # the edited sweep's and the configured one's stored anew
    moved = dict(_hashes(engine))
    assert {i: moved[i] for i in sampled} == {i: hashes[i] for i in sampled}
    with engine.connect() as conn:
        assert not conn.execute(text("SELECT id FROM sweep WHERE sample_digest = 1")).all()


def _hashes(engine: Engine) -> list[tuple[int, str]]:
    with engine.connect() as conn:
        return [(r[0], r[1]) for r in conn.execute(text("SELECT id, content_hash FROM sweep"))]


def _notes(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return [r[0] for r in conn.execute(text("SELECT notes FROM sweep")) if r[0]]


def test_a_server_on_a_database_at_another_revision_refuses_to_start_and_says_why(
    database_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Uploads would not find sweeps stored before migration 0013 (another hash), so a
    server without its own migration step checks the schema before it answers anything."""
    command.downgrade(alembic_config(database_url), "20261202_0012")
    try:
        with pytest.raises(RuntimeError) as refused:
            make_client()
        assert "schema is at revision 20261202_0012, and this version of Paretoscope needs " in str(
            refused.value
        )
        assert "run `paretoscope db upgrade`" in str(refused.value)
    finally:
        upgrade_to_head(database_url)
    assert make_client().get("/healthz").status_code == 200


def test_points_move_into_blocks_and_back_with_every_value(
    database_url: str, engine: Engine
) -> None:
    """Migration 0014 and its downgrade: each sweep's points, in order, with every column and
    their extra fields, read the same from rows and from blocks."""
    paths = [p for f in FOLDERS for p in files_of(f)] + [SEED_SWEEPS / "demo_llama70b_1k1k.csv"]
    files = [UploadFile(p.name, p.read_bytes()) for p in paths]
    with make_sessionmaker(engine)() as session:
        uploads.store(session, files, FIELDS)
        session.commit()
        before = _stored_points(session)
    assert sum(len(p) for p in before.values()) > 90
    assert any(e for points in before.values() for *_, e in points)  # some extra fields

    command.downgrade(alembic_config(database_url), "20261202_0013")
    with engine.connect() as conn:
        rows = conn.execute(
            text(f"SELECT sweep_id, position, {', '.join(POINT_COLUMN_NAMES)}, extra FROM point")
        ).all()
    as_rows: dict[int, list[tuple[Any, ...]]] = {}
    for sweep_id, position, *values, extra in sorted(rows, key=lambda r: (r[0], r[1])):
        extra = json.loads(extra) if isinstance(extra, str) else extra
        as_rows.setdefault(sweep_id, []).append((position, *values, extra))
    assert as_rows == {s: p for s, p in before.items() if p}

    upgrade_to_head(database_url)
    with make_sessionmaker(engine)() as session:
        assert _stored_points(session) == before


def _stored_points(session: Session) -> dict[int, list[tuple[Any, ...]]]:
    return {
        sweep.id: [
            (p.position, *(getattr(p, c) for c in POINT_COLUMN_NAMES), p.extra)
            for p in sweep.points
        ]
        for sweep in session.scalars(select(Sweep))
    }
