"""Plan's physics (issue 50): each planned system's decode ceiling with the decode phase's active
parameters, its prefill bound with the prefill phase's, and the KV cache bounding the batch at
long context, in /api/plan and on the Plan page, which says so."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.domain.roofline import Deployment, decode_step, max_batch
from app.schemas.answers.plan import PlanOut
from tests.domain.test_roofline_phases import FLASH, H200
from tests.helpers import soup, upload_id
from tests.web.test_roofline_phases_api import FLASH_SPEC

SERVED = Deployment(weight_precision="fp8", kv_precision="bf16")
# 130,000-token prompts, 2,144 output tokens: a sequence holds 131,072 tokens on average.
POINTS = (
    b"sweep,hardware,num_gpus,model,precision,concurrency,tpot_p50_ms,output_tok_s,"
    b"input_len,output_len\n"
    b"long,H200,1,v41-flash-like,fp8,2,20,90,130000,2144\n"
    b"long,H200,1,v41-flash-like,fp8,8,30,240,130000,2144\n"
)


def plan_physics(client: TestClient, sweep: int) -> dict[str, Any]:
    params = {"sweep": sweep, "requests_per_s": 1, "tpot_ms": 60, "tpot_percentile": "p50"}
    response = client.get("/api/plan", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    PlanOut.model_validate(body)
    [found] = body["physics"]
    return dict(found)


def test_plan_sizes_decode_with_16b_and_prefill_with_8b_and_the_kv_cache_binds(
    client: TestClient, catalog: None
) -> None:
    assert client.post("/api/models", json=FLASH_SPEC).status_code == 201
    sweep = upload_id(client, ("long.csv", POINTS))
    physics = plan_physics(client, sweep)
    assert (physics["prefill_active_params_b"], physics["decode_active_params_b"]) == (8.0, 16.0)
    assert physics["phases"] == "prefill 8B, decode 16B active per token"
    # Prefill: H200 FP8 dense FLOPS ÷ (2 × 8B) prompt tokens per second per GPU.
    assert physics["prefill_bound_tok_s_per_gpu"] == pytest.approx(1979e12 / (2 * 8e9))
    # KV: 40 layers × (512 + 64) × 2 bytes per token; 0.9 × 141 GB − 100 GB of weights left.
    assert physics["kv_bytes_per_token"] == 40 * 576 * 2
    assert physics["ctx_tokens"] == 131_072
    b_max = max_batch(FLASH, H200, 131_072, SERVED)
    assert physics["kv_max_batch"] == b_max == 4
    # The operating point runs 8 sequences: more than fit, so the KV cache binds there.
    assert (physics["batch"], physics["kv_binds"]) == (8, True)
    ceiling = decode_step(FLASH, H200, 4, 131_072, SERVED).tok_s_per_gpu
    assert physics["decode_ceiling_tok_s_per_gpu"] == pytest.approx(ceiling, rel=1e-12)
    assert "it binds at concurrency 8" in physics["words"]


def test_the_plan_page_says_which_active_parameters_each_phase_uses(
    client: TestClient, catalog: None
) -> None:
    assert client.post("/api/models", json=FLASH_SPEC).status_code == 201
    sweep = upload_id(client, ("long.csv", POINTS))
    params = {"sweep": sweep, "picked": 1, "preset": "custom", "tpot_ms": 60}
    page = soup(client.get("/plan", params={**params, "tpot_percentile": "p50"}), 200)
    row = page.select_one(f"#physics-table tr[data-sweep='{sweep}']")
    assert row is not None and "kv-binds" in row["class"]
    assert row.select_one(".phases").get_text(strip=True) == "8B · 16B"
    assert row.select_one(".kv-bound").get_text(" ", strip=True) == "4 binds"
    words = row.select_one(".physics-words").get_text()
    assert words.startswith("decode ceiling with 16B active per token, prefill bound with 8B")
    assert "Prefill and decode sized apart" in page.select_one("#plan-physics").get_text()


def test_a_system_without_a_model_spec_has_no_ceiling_and_says_why(
    client: TestClient, catalog: None
) -> None:
    sweep = upload_id(client, ("long.csv", POINTS.replace(b"v41-flash-like", b"mystery-7b")))
    physics = plan_physics(client, sweep)
    assert physics["decode_ceiling_tok_s_per_gpu"] is None
    assert physics["reason"] == "no model spec matches 'mystery-7b'"
