"""InferenceX's measured power fields (issue 37): InferenceX's two Kimi K2.5 rows with the power
fields `utils/aggregate_power.py` writes added, valid at concurrency 32 and marked invalid at 64,
stored as the points' measured GPU power and energy; tokens per joule measured beside the
catalog estimate on a stated token basis, unknown with the reason where the power is invalid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.ingest.tools._inferencex_power import power_covariates
from app.services.readoff.energy import INVALID
from app.store.models import Hardware
from tests.conftest import FIXTURES
from tests.helpers import soup, upload_id

ROWS = {
    c: FIXTURES / "inferencemax" / f"agg_kimik2.5_8k1k_int4_vllm_mi355x_tp8_mtp_conc{c}.json"
    for c in (32, 64)
}
TOTAL_PER_GPU = 157.12165563281164  # the conc-32 row's tput_per_gpu (input + output tok/s)
OUTPUT_PER_GPU = 17.57057269511527  # its output_tput_per_gpu


def _with_power(tmp_path: Path) -> list[tuple[str, bytes]]:
    """The rows with power: 8 GPUs at 500 W each (4 kW) over 600 s at concurrency 32, and a
    measurement that failed its checks at 64 (power_valid 0, the power fields left out)."""
    out = []
    for conc, path in ROWS.items():
        row = json.loads(path.read_text())
        row |= {"power_metric_schema_version": 2, "power_valid": int(conc == 32)}
        if conc == 32:
            row |= {
                "avg_power_w": 500.0,
                "avg_total_gpu_power_w": 4000.0,
                "total_gpu_energy_j": 2_400_000.0,
                "joules_per_total_token": 4000.0 / (TOTAL_PER_GPU * 8),
                "joules_per_output_token": 4000.0 / (OUTPUT_PER_GPU * 8),
            }
        written = tmp_path / path.name
        written.write_text(json.dumps(row))
        out.append((written.name, written.read_bytes()))
    return out


def test_measured_power_gives_tokens_per_joule_beside_the_estimate_on_its_token_basis(
    client: TestClient, session: Session, seeded: None, tmp_path: Path
) -> None:
    sweep = upload_id(client, *_with_power(tmp_path))
    points = client.get(f"/api/sweeps/{sweep}").json()["points"]
    assert [(p["extra"].get("gpu_power_w"), p["extra"].get("gpu_energy_j")) for p in points] == [
        (4000.0, 2_400_000.0),
        (None, None),
    ]
    assert points[1]["extra"]["gpu_power_invalid"] == 1.0
    hardware = session.get(Hardware, "MI355X")
    assert hardware is not None and hardware.allin_kw is not None
    # TPOT p50 ≤ 250 ms: the operating point is concurrency 32 (230 ms; 64 is at 302 ms).
    for basis, per_gpu in (("total", TOTAL_PER_GPU), ("output", OUTPUT_PER_GPU)):
        url = f"/api/readoff?sweep={sweep}&tpot_ms=250&percentile=p50&basis={basis}"
        joules = client.get(url).json()["results"][0]["tokens_per_joule"]
        # All 8 GPUs' tok/s ÷ their 4,000 W, the inverse of InferenceX's own J per token.
        assert joules["measured"] == pytest.approx(per_gpu * 8 / 4000.0, rel=1e-12)
        assert joules["estimate"] == pytest.approx(per_gpu / (hardware.allin_kw * 1000), 1e-12)
        assert (joules["token_basis"], joules["measured_reason"]) == (basis, None)
    assert joules["measured"] == pytest.approx(1 / (4000.0 / (OUTPUT_PER_GPU * 8)), rel=1e-12)
    # Without a limit the operating point is concurrency 64, whose power was marked invalid.
    invalid = client.get(f"/api/readoff?sweep={sweep}").json()["results"][0]["tokens_per_joule"]
    assert (invalid["measured"], invalid["measured_reason"]) == (None, INVALID)
    assert invalid["estimate"] is not None
    page = f"/?sweep={sweep}&tpot_ms=400&ttft_ms=60000&percentile=p50"
    row = soup(client.get(page), expect=200).select_one("#readoff-table tbody tr")
    shown = row.select_one(".tok-j-measured")
    assert (shown.text, shown["title"]) == ("tok/J measured unknown: power marked invalid", INVALID)
    heads = [
        th.get_text(" ", strip=True)
        for th in soup(client.get(f"/sweeps/{sweep}"), expect=200).select("#covariates-table th")
    ]
    assert heads[-3:] == [
        "measured GPU power (W)",
        "measured GPU energy (J)",
        "GPU power marked invalid",
    ]


def test_power_is_read_from_totals_then_per_gpu_or_role_figures_and_only_when_valid() -> None:
    assert power_covariates({}, 8, None, None) == {}
    assert power_covariates({"power_valid": 0, "avg_power_w": 500.0}, 8, None, None) == {
        "gpu_power_invalid": 1.0
    }
    # Per GPU × GPUs where the total is missing.
    assert power_covariates({"power_valid": "1", "avg_power_w": 350.0}, 4, None, None) == {
        "gpu_power_w": 1400.0
    }
    # aggregate_power.py's multi-node example: 2 prefill GPUs at 400 W, 2 decode at 300 W.
    roles = {"power_valid": 1, "prefill_avg_power_w": 400.0, "decode_avg_power_w": 300.0}
    roles |= {"prefill_gpu_energy_j": 48000.0, "decode_gpu_energy_j": 36000.0}
    assert power_covariates(roles, 4, 2, 2) == {"gpu_power_w": 1400.0, "gpu_energy_j": 84000.0}
    assert power_covariates({"power_valid": 1, "avg_total_gpu_power_w": -1}, 4, None, None) == {}
