"""A model spec with active parameters per phase (issue 50) through the catalog API and
/api/roofline: decode ceilings use decode's count, the prefill bound prefill's, and say so."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.helpers import upload_id

FLASH_SPEC = {
    "key": "v41-flash-like",
    "name": "V4.1 Flash-like",
    "total_params_b": 100,
    "active_params_b": 16,
    "prefill_active_params_b": 8,
    "decode_active_params_b": 16,
    "layers": 40,
    "kv_lora_rank": 512,
    "rope_dim": 64,
    "experts": 64,
    "top_k": 4,
}


def test_a_spec_with_phases_prices_decode_at_16b_and_prefill_at_8b(
    client: TestClient, catalog: None
) -> None:
    created = client.post("/api/models", json=FLASH_SPEC)
    assert created.status_code == 201, created.text
    assert created.json()["prefill_active_params_b"] == 8
    params = {"hardware": "H200", "gpus": 1, "model": "v41-flash-like", "precision": "fp8"}
    body = client.get("/api/roofline", params={**params, "ctx": 1, "isl": 2048}).json()
    inputs = body["inputs"]
    assert (inputs["prefill_active_params_b"], inputs["decode_active_params_b"]) == (8.0, 16.0)
    assert inputs["phases"] == "prefill 8B, decode 16B active per token"
    kv = 40 * (512 + 64) * 2  # BF16 KV by default
    assert body["step"]["bytes_per_step"] == pytest.approx(16e9 + kv, rel=1e-12)
    assert body["compute_bound_tok_s"] == pytest.approx(1979e12 / (2 * 16e9), rel=1e-12)
    # No d_model in the spec: prefill is its linear FLOPs alone, at 8B per prompt token.
    assert body["prefill"]["flops"] == 2 * 8e9 * 2048
    assert body["prefill"]["ttft_lower_bound_s"] == pytest.approx(2 * 8e9 * 2048 / 1979e12)


def test_a_phase_above_the_total_is_refused_naming_the_field(
    client: TestClient, catalog: None
) -> None:
    refused = client.post("/api/models", json={**FLASH_SPEC, "decode_active_params_b": 120})
    assert refused.status_code == 422
    assert "decode_active_params_b cannot exceed total_params_b" in refused.text


def test_explore_marks_where_the_kv_cache_bounds_the_batch_on_the_ceiling(
    client: TestClient, catalog: None
) -> None:
    points = (
        b"sweep,hardware,num_gpus,model,precision,concurrency,tpot_p50_ms,output_tok_s\n"
        b"kv,H200,1,llama-3.1-70b,fp8,1,20,50\nkv,H200,1,llama-3.1-70b,fp8,8,30,260\n"
    )
    sweep = upload_id(client, ("kv.csv", points))
    params = {
        "sweep": sweep,
        "picked": 1,
        "roofline_model": "llama-3.1-70b",
        "roofline_precision": "fp8",
        "roofline_ctx": 131072,
        "claims": "none",
    }
    data = client.get("/api/explore", params=params).json()["figure"]["data"]
    [curve] = [t for t in data if t.get("meta") == "roofline"]
    [bound] = [t for t in data if t.get("meta") == "kv-bound"]
    # 70.55B FP8 weights on one H200 leave 56.35 GB: 131,072 tokens × 320 KiB = 42.9 GB a
    # sequence, so the KV cache binds at batch 1, the ceiling's last (and only) batch.
    assert (bound["x"], bound["y"]) == ([curve["x"][-1]], [curve["y"][-1]])
    assert bound["text"] == [
        "KV cache full at batch 1: KV bytes/token × 131,072 tokens of context × batch ≤ memory "
        "left after the weights"
    ]
