"""The catalog kept per process (app.store.catalog_cache): one row read while nothing changed,
and every change, whoever makes it, seen by the next request of every process."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from app.services.seed import seed
from app.store import catalog_cache
from app.store.db import make_sessionmaker
from app.store.models import PricingProfile, SloPreset
from tests.conftest import trigger_events

CATALOG_TABLES = {"hardware", "model_spec", "pricing_profile", "slo_preset", "vendor_claim"}
# A row of each catalog table the seed stores, by its key column.
SEEDED_ROW = {
    "hardware": ("key", "H100"),
    "model_spec": ("key", "llama-3.1-70b"),
    "pricing_profile": ("key", "ix-2026-04-h100-costh"),
    "slo_preset": ("key", "chat-interactive"),
    "vendor_claim": ("id", 1),
}


def token(engine: Engine) -> str:
    with engine.connect() as conn:
        return str(conn.execute(text("SELECT token FROM catalog_version")).scalar_one())


def preset_names(client: TestClient) -> list[str]:
    page = BeautifulSoup(client.get("/").text, "html.parser")
    return [o.text for o in page.select("#slo-preset option")][1:]  # after "custom limits"


def test_every_catalog_table_has_the_triggers_that_renew_the_token(engine: Engine) -> None:
    wanted = {(t, e) for t in CATALOG_TABLES for e in ("INSERT", "UPDATE", "DELETE")}
    assert trigger_events(engine, "catalog_token") == wanted


@pytest.mark.parametrize("table", sorted(CATALOG_TABLES))
def test_an_update_or_a_delete_of_any_catalog_row_renews_the_token(
    engine: Engine, seeded: None, table: str
) -> None:
    column, value = SEEDED_ROW[table]
    before = token(engine)
    with engine.begin() as conn:  # plain SQL, as psql would send it
        conn.execute(
            text(f"UPDATE {table} SET {column} = {column} WHERE {column} = :v"), {"v": value}
        )
    updated = token(engine)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM vendor_claim"))  # claims may name the hardware
        conn.execute(text(f"DELETE FROM {table} WHERE {column} = :v"), {"v": value})
    assert len({before, updated, token(engine)}) == 3


def test_seeding_renews_the_token(engine: Engine, session: Session) -> None:
    before = token(engine)
    seed(session)
    session.commit()
    assert token(engine) != before


def test_explore_reads_one_row_of_the_catalog_while_it_is_unchanged(
    client: TestClient, seeded: None, statements: list[str]
) -> None:
    client.get("/")
    statements.clear()
    assert client.get("/").status_code == 200
    read = " ".join(statements).lower()
    assert "from catalog_version" in read
    for table in CATALOG_TABLES:
        assert f"from {table}" not in read


def test_a_change_made_by_another_process_shows_on_the_next_page(
    make_client: Callable[..., TestClient], engine: Engine, seeded: None
) -> None:
    one, other = make_client(), make_client()  # two apps, each with its engine and its cache
    assert "Chat (interactive)" in preset_names(one)
    with make_sessionmaker(engine)() as session:  # a third: a script, another replica
        preset = session.get(SloPreset, "chat-interactive")
        assert preset is not None
        preset.name = "Chat, renamed"
        session.commit()
    assert "Chat, renamed" in preset_names(one)
    assert "Chat, renamed" in preset_names(other)


def test_a_change_rolled_back_is_never_served(engine: Engine, seeded: None) -> None:
    factory = make_sessionmaker(engine)
    with factory() as session:
        preset = session.get(SloPreset, "chat-interactive")
        assert preset is not None
        preset.name = "never committed"
        session.flush()
        inside = catalog_cache.current(session)
        session.rollback()
    assert "never committed" in [p.name for p in inside.slo_presets]
    with factory() as session:
        names = [p.name for p in catalog_cache.current(session).slo_presets]
    assert "never committed" not in names
    assert "Chat (interactive)" in names


def test_the_kept_rows_read_outside_any_session(engine: Engine, seeded: None) -> None:
    with make_sessionmaker(engine)() as session:
        kept = catalog_cache.current(session)
        session.commit()
    # Detached, with every column loaded: nothing to refresh from a closed session.
    assert {p.key for p in kept.slo_presets} >= {"chat-interactive"}
    assert all(p.usd_per_gpu_hour is not None or p.capex_usd for p in kept.profiles)
    assert kept.allin_kw["h100"] > 0


def test_a_value_derived_from_the_kept_catalog_is_made_once_until_the_catalog_changes(
    engine: Engine, seeded: None
) -> None:
    made: list[int] = []

    def count(kept: catalog_cache.Catalog) -> int:
        made.append(len(kept.profiles))
        return len(kept.profiles)

    factory = make_sessionmaker(engine)
    for _ in range(2):
        with factory() as session:
            assert catalog_cache.current(session).derived("profiles", count) == made[0]
    assert len(made) == 1
    with factory() as session:
        first = "(SELECT MIN(id) FROM pricing_profile)"
        session.execute(text(f"DELETE FROM pricing_profile WHERE id = {first}"))
        session.commit()
    with factory() as session:
        assert catalog_cache.current(session).derived("profiles", count) == made[0] - 1
    assert len(made) == 2


def test_explore_offers_a_price_set_added_after_the_page_was_first_shown(
    client: TestClient, engine: Engine, seeded: None
) -> None:
    def offered() -> list[str]:
        page = BeautifulSoup(client.get("/").text, "html.parser")
        return [str(o["value"]) for o in page.select("select[name=price_set] option")]

    before = offered()
    assert "costr@2031-01-01" not in before
    with make_sessionmaker(engine)() as session:
        session.add(
            PricingProfile(
                name="H100 rental, later", kind="rental", hardware="H100", usd_per_gpu_hour=2.0,
                utilization=1.0, tier="costr", as_of=dt.date(2031, 1, 1),
            )
        )  # fmt: skip
        session.commit()
    after = offered()
    assert set(after) - set(before) == {"costr@2031-01-01"}
