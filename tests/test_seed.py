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


def test_the_seed_holds_twenty_gpus_and_sixty_five_price_profiles(session: Session) -> None:
    seed(session)
    session.commit()
    assert (count(session, Hardware), count(session, PricingProfile)) == (20, 65)


def test_every_rented_gpu_has_a_sourced_rental_price_and_an_all_in_kw(session: Session) -> None:
    seed(session)
    session.commit()
    rented = ("H100", "H200", "B200", "B300", "GB200", "GB300", "MI300X", "MI325X", "MI355X")
    for key in (*rented, "A100", "A100-40GB", "L40S", "RTX4090"):
        gpu = session.get(Hardware, key)
        assert gpu is not None and gpu.allin_kw is not None and gpu.allin_kw > 0, key
        prices = session.query(PricingProfile).filter_by(hardware=key, kind="rental").all()
        assert prices and all(p.source and p.usd_per_gpu_hour for p in prices), key


def test_the_new_rental_prices_are_the_quoted_figures_with_their_dates(session: Session) -> None:
    seed(session)
    session.commit()
    got = {
        p.key: (p.hardware, p.usd_per_gpu_hour, None if p.as_of is None else str(p.as_of))
        for p in session.query(PricingProfile).filter(PricingProfile.tier == "market")
        if p.hardware in ("A100", "A100-40GB", "L40S", "RTX4090")
    }
    assert got == {
        "mkt-2026-05-mercatus-a100-hyperscaler": ("A100", 2.25, "2026-05-01"),
        "mkt-2026-05-mercatus-a100-specialty": ("A100", 1.3, "2026-05-01"),
        "mkt-aws-capacity-block-a100-40gb": ("A100-40GB", 1.844, None),
        "mkt-2025-08-aws-g6e-l40s": ("L40S", 1.861, "2025-08-12"),
        "mkt-2025-08-runpod-l40s": ("L40S", 0.86, "2025-08-12"),
        "mkt-2026-06-vast-rtx4090": ("RTX4090", 0.78, "2026-06-01"),
    }


def test_the_a100_40gb_entry_has_its_own_bandwidth_and_an_estimated_all_in_kw(
    session: Session,
) -> None:
    seed(session)
    session.commit()
    a100_40 = session.get(Hardware, "A100-40GB")
    assert a100_40 is not None
    assert (a100_40.memory_gb, a100_40.mem_bw_tb_s, a100_40.bf16_tflops, a100_40.fp8_tflops) == (
        40,
        1.555,
        312,
        None,
    )
    assert (a100_40.tdp_w, a100_40.allin_kw) == (400, 0.99)
    # No InferenceX figure exists for it: the source says what the kW is based on.
    assert "estimated" in (a100_40.source or "") and "1.73/0.700" in (a100_40.source or "")
