"""Seeding: an empty database gets every catalog and sweep of seed_data/, once."""

from __future__ import annotations

import csv

from sqlalchemy.orm import Session

from app.services.seed import SEED_DIR, seed, seed_if_empty
from app.store.models import Hardware, ModelSpec, PricingProfile, SloPreset, Sweep
from tests.factories import count, sample_count


def rows(name: str) -> list[dict[str, str]]:
    with (SEED_DIR / name).open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_an_empty_database_is_seeded_with_every_catalog_row_and_sweep(session: Session) -> None:
    assert seed_if_empty(session) is True
    session.commit()
    assert count(session, Hardware) == len(rows("hardware.csv"))
    assert count(session, ModelSpec) == len(rows("models.csv"))
    assert count(session, SloPreset) == len(rows("slo_presets.csv"))
    assert count(session, PricingProfile) == len(rows("pricing.csv"))
    names = {
        r["sweep"]
        for p in (SEED_DIR / "sweeps").glob("*.csv")
        if ".requests" not in p.name
        for r in csv.DictReader(p.open(encoding="utf-8"))
    }
    assert {s.name for s in session.query(Sweep)} == names
    assert sample_count(session) > 0


def test_seeding_again_adds_nothing(session: Session) -> None:
    seed(session)
    session.commit()
    before = (count(session, Sweep), count(session, PricingProfile))
    assert seed(session)["sweeps"] == 0
    session.commit()
    assert (count(session, Sweep), count(session, PricingProfile)) == before


def test_a_database_with_data_is_not_seeded_on_start(session: Session) -> None:
    session.add(Hardware(key="X1", name="custom"))
    session.commit()
    assert seed_if_empty(session) is False
    assert count(session, Sweep) == 0


def test_seeded_prices_carry_their_date_and_source(session: Session) -> None:
    seed(session)
    session.commit()
    h100 = session.query(PricingProfile).filter_by(key="ix-2026-04-h100-costh").one()
    assert (h100.usd_per_gpu_hour, str(h100.as_of)) == (1.3, "2026-04-03")
    assert "InferenceX" in (h100.source or "")
    assert all(p.source for p in session.query(PricingProfile))


def test_seeded_mlperf_presets_are_the_o16_limits_at_p99(session: Session) -> None:
    seed(session)
    server = session.get(SloPreset, "mlperf-llama2-70b")
    interactive = session.get(SloPreset, "mlperf-llama2-70b-interactive")
    assert server is not None and interactive is not None
    assert (server.percentile, server.ttft_ms, server.tpot_ms) == ("p99", 2000, 200)
    assert (interactive.percentile, interactive.ttft_ms, interactive.tpot_ms) == ("p99", 450, 40)
