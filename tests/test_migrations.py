"""Alembic migrations create exactly the models' schema, and run down and up again."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect, text

from app.store.db import make_engine
from app.store.migrate import alembic_config, downgrade_to_base, upgrade_to_head
from app.store.models import Base


def test_upgrade_head_matches_the_models(engine: Engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


@pytest.mark.postgres
def test_postgres_keeps_sample_blocks_out_of_line_without_compressing_them_again(
    postgres_migrated: str,
) -> None:
    engine = make_engine(postgres_migrated)  # SQLite has no storage setting to check
    with engine.connect() as conn:
        storage = conn.execute(
            text(
                "SELECT attstorage FROM pg_attribute "
                "WHERE attrelid = 'sample_block'::regclass AND attname = 'data'"
            )
        ).scalar_one()
    engine.dispose()
    assert storage == "e"  # EXTERNAL: the zstd blocks are not run through pglz


def test_downgrade_then_upgrade_round_trips(database_url: str, engine: Engine) -> None:
    downgrade_to_base(database_url)
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
