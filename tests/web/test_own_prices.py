"""Prices are never borrowed: a sweep is priced only by its own GPU's price or the user's own
$/GPU-hour; anything else is unknown, with the reason, on every page, export and command."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.services.seed import SEED_DIR, seed
from tests.conftest import FIXTURES
from tests.factories import post_files

PRICE_SET = "costr@2026-09-08"
SET_LABEL = "InferenceX 3-year rental · Sep 2026"
NO_A100 = "no A100 price in this set: enter $/GPU-hour"
# LLMPerf's Anyscale run, stored as four A100s: the price set has no A100 price.
LLMPERF = ("summary_anyscale_70b.json", "individual_anyscale_70b.json")
SLO = {"ttft_ms": 1000, "tpot_ms": 100}


@pytest.fixture
def priced(session: Session, tmp_path: Path) -> None:
    """The hardware catalog and the price profiles of seed_data/ (no seed sweeps)."""
    for name in ("hardware.csv", "pricing.csv"):
        shutil.copy(SEED_DIR / name, tmp_path / name)
    seed(session, tmp_path)
    session.commit()


def upload_a100(client: TestClient) -> int:
    files = [(n, (FIXTURES / "llmperf" / n).read_bytes()) for n in LLMPERF]
    response = post_files(client, *files, hardware="A100", num_gpus=4)
    assert response.status_code == 201, response.text
    [sweep] = response.json()["sweeps"]
    return int(sweep["id"])


def readoff_row(client: TestClient, **params: Any) -> dict[str, str]:
    response = client.get("/api/export/readoff.csv", params=params)
    assert response.status_code == 200, response.text
    [row] = csv.DictReader(io.StringIO(response.text))
    return row


@pytest.mark.usefixtures("priced")
def test_the_readoff_csv_never_writes_another_gpus_price_on_an_a100_row(
    client: TestClient,
) -> None:
    sweep = upload_a100(client)
    row = readoff_row(client, sweep=sweep, price_set=PRICE_SET, **SLO)
    assert row["hardware"] == "A100"
    assert row[f"usd_per_gpu_hour [{SET_LABEL}]"] == ""  # never B200's 3.7
    assert row[f"usd_per_mtok [{SET_LABEL}]"] == ""
    assert row[f"usd_per_mtok_reason [{SET_LABEL}]"] == NO_A100
