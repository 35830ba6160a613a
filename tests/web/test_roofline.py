"""/api/roofline (oracles O5–O8 through the API), each point's share, and the Explore series."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers import doc, upload_id

# One H200 serving a 70B FP8 model; TPOT 20 ms at concurrency 1 (50 tok/s/user).
H200_70B = (
    b"sweep,hardware,num_gpus,model,precision,isl,osl,concurrency,tpot_p50_ms,output_tok_s\n"
    b"h200-70b,H200,1,llama-3.1-70b,fp8,1024,1024,1,20,50\n"
    b"h200-70b,H200,1,llama-3.1-70b,fp8,1024,1024,64,40,1600\n"
)
H100_70B = (
    b"sweep,hardware,num_gpus,model,precision,concurrency,tpot_p50_ms,output_tok_s\n"
    b"h100-70b,H100,8,llama-3.1-70b,fp8,8,25,2400\n"
)


def roofline(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/roofline", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_o5_8b_bf16_on_h100_is_memory_bound_at_batch_1_and_64(
    client: TestClient, catalog: None
) -> None:
    base = {"hardware": "h100", "gpus": 1, "model": "Llama 3.1 8B", "ctx": 4096, "params_b": 8}
    one = roofline(client, **base)
    assert one["kv_bytes_per_token"] == 131_072
    assert one["step"]["bytes_per_step"] / 1e9 == doc("16.5369")
    assert one["step"]["step_s"] * 1e3 == doc("4.9364")
    assert one["step"]["interactivity_tok_s_user"] == doc("202.6")
    many = roofline(client, **base, batch=64, attention="false")["step"]
    assert many["bytes_per_step"] / 1e9 == doc("50.3597")
    assert many["step_s"] * 1e3 == doc("15.0328")
    assert many["interactivity_tok_s_user"] == doc("66.52")
    assert many["aggregate_tok_s"] == doc("4,257.4")
    assert many["compute_s"] * 1e3 == doc("1.04")
    assert many["bound"] == "memory"


def test_o6_70b_fp8_on_one_h200_ceilings_and_b_max_83_at_ctx_2048(
    client: TestClient, catalog: None
) -> None:
    base = {"hardware": "H200", "gpus": 1, "model": "llama-3.1-70b", "precision": "fp8"}
    one = roofline(client, **base, ctx=1024, params_b=70)
    assert one["step"]["bytes_per_step"] / 1e9 == doc("70.3355")
    assert one["step"]["interactivity_tok_s_user"] == doc("68.24")
    many = roofline(client, **base, ctx=1024, params_b=70, batch=64)["step"]
    assert many["interactivity_tok_s_user"] == doc("52.47")
    assert many["aggregate_tok_s"] == doc("3,358.3")
    # The catalog's 70.55B parameters: (126.9e9 − 70.55e9) / (2,048 × 327,680) = 83.97.
    capacity = roofline(client, **base, ctx=2048)
    assert capacity["b_max"] == 83
    assert capacity["curve"][-1]["batch"] == 83
    assert [p["batch"] for p in capacity["curve"][:6]] == [1, 2, 3, 4, 6, 8]


def test_o7_deepseek_v3_fp8_on_8_h200_batch_one_ceiling_and_expert_coverage(
    client: TestClient, catalog: None
) -> None:
    base = {"hardware": "H200", "gpus": 8, "model": "deepseek-v3", "precision": "fp8", "ctx": 0}
    one = roofline(client, **base)
    assert one["step"]["interactivity_tok_s_user"] == doc("1,037.8")
    assert one["kv_bytes_per_token"] == 70_272
    assert one["b_max"] is None and one["curve"] == []
    assert roofline(client, **base, batch=64)["step"]["expert_coverage"] == doc("0.86892")


def test_o8_prefill_ttft_lower_bound_for_70b_at_2048_tokens_on_h100(
    client: TestClient, catalog: None
) -> None:
    base = {"hardware": "H100", "model": "llama-3.1-70b", "precision": "fp8", "params_b": 70}
    full = roofline(client, **base, isl=2048, attention="false")["prefill"]
    assert full["flops"] == pytest.approx(2.8672e14)
    assert full["ttft_lower_bound_s"] == doc("0.1449")
    half = roofline(client, **base, isl=2048, attention="false", mfu=0.5)["prefill"]
    assert half["ttft_lower_bound_s"] == doc("0.2898")
    with_attention = roofline(client, **base, isl=2048)["prefill"]
    assert with_attention["attention_share"] * 100 == doc("1.92")


def test_each_measured_point_shows_its_share_of_the_ceiling_at_its_concurrency(
    client: TestClient, catalog: None
) -> None:
    sweep = upload_id(client, ("sweep.csv", H200_70B))
    body = roofline(client, sweep=sweep, ctx=1024, params_b=70)
    assert body["inputs"] | {"sweep": None} == body["inputs"] | {
        "hardware": "H200",
        "gpus": 1,
        "model": "llama-3.1-70b",
        "precision": "fp8",
        "ctx": 1024,
        "sweep": None,
    }
    first, second = body["points"]
    assert first["batch"] == 1
    assert first["interactivity_tok_s_user"] == 50.0
    assert first["share_of_ceiling"] == pytest.approx(50 / (4.8e12 / 70.33554432e9))
    assert second["batch"] == 64
    assert second["ceiling_tok_s_per_gpu"] == doc("3,358.3")
    assert second["throughput_share"] == pytest.approx(1600 / second["ceiling_tok_s_per_gpu"])
    # Without ctx the sweep's ISL + OSL/2 = 1,536 tokens is used.
    assert roofline(client, sweep=sweep)["inputs"]["ctx"] == 1536


def test_unknown_hardware_model_or_precision_is_refused_with_the_field_named(
    client: TestClient, catalog: None
) -> None:
    cases = {
        "hardware": {"hardware": "TPU9", "model": "llama-3.1-8b"},
        "model": {"hardware": "H100", "model": "gpt-9"},
        "precision": {"hardware": "H100", "model": "llama-3.1-8b", "precision": "fp3"},
    }
    for field, params in cases.items():
        response = client.get("/api/roofline", params=params)
        assert response.status_code == 422
        assert response.json()["errors"][0]["field"] == field
    assert "TPU9" in client.get("/api/roofline", params=cases["hardware"]).json()["detail"]


def test_explore_draws_one_dashed_physics_limit_per_gpu_type_and_count_when_asked(
    client: TestClient, catalog: None
) -> None:
    ids = [upload_id(client, ("sweep.csv", H200_70B)), upload_id(client, ("sweep.csv", H100_70B))]
    params: dict[str, Any] = {"sweep": ids, "picked": 1, "preset": "custom", "tpot_ms": 50}
    plain = client.get("/api/explore", params=params).json()["figure"]["data"]
    assert [t for t in plain if t.get("meta") == "roofline"] == []
    asked = {**params, "roofline_model": "llama-3.1-70b", "roofline_precision": "fp8"}
    asked["roofline_ctx"] = 1024
    body = client.get("/api/explore", params=asked).json()
    curves = [t for t in body["figure"]["data"] if t.get("meta") == "roofline"]
    assert [c["name"] for c in curves] == [
        "Physics limit · H200 × 1 · llama-3.1-70b fp8 · ctx 1,024",
        "Physics limit · H100 × 8 · llama-3.1-70b fp8 · ctx 1,024",
    ]
    assert all(c["line"]["dash"] == "dash" for c in curves)
    # Catalog 70.55B: 4.8e12 / (70.55e9 + 1,024 × 327,680) B per step.
    assert curves[0]["x"][0] == pytest.approx(4.8e12 / (70.55e9 + 1024 * 327_680))
    assert "roofline_model=llama-3.1-70b" in body["query"]


def test_the_explore_form_offers_the_physics_limit_and_claims_controls(
    client: TestClient, catalog: None
) -> None:
    upload_id(client, ("sweep.csv", H200_70B))
    page = BeautifulSoup(client.get("/?roofline_model=deepseek-v3").text, "html.parser")
    chosen = page.select_one("#r-model option[selected]")
    assert chosen is not None and chosen["value"] == "deepseek-v3"
    assert page.select_one("label[for=r-ctx]") is not None
    options = [o["value"] for o in page.select("#c-claims option")]
    assert options == ["matching", "all", "examples", "none"]


def test_inputs_too_large_for_a_double_are_refused_and_the_largest_allowed_stay_finite(
    client: TestClient, catalog: None
) -> None:
    base = {"hardware": "h100", "gpus": 1, "model": "Llama 3.1 8B"}
    for field, value in (("ctx", 10**30), ("batch", 10**30), ("params_b", 1e300), ("isl", 10**30)):
        refused = client.get("/api/roofline", params={**base, field: value})
        assert refused.status_code == 422, field
        assert refused.json()["errors"][0]["field"] == field
    largest = {"ctx": 10_000_000, "batch": 1_000_000, "params_b": 1_000_000, "isl": 10_000_000}
    step = roofline(client, **base, **largest)["step"]
    assert all(
        step[k] is not None and step[k] > 0 for k in ("memory_s", "step_s", "aggregate_tok_s")
    )
