"""Vendor claims against physics (metrics §5.4, oracle O6) and the questions a claim leaves open."""

from __future__ import annotations

import pytest

from app.domain.claim_physics import check_physics
from app.domain.claims import (
    Claim,
    claim_context,
    fmt,
    on_basis,
    open_questions,
    per_gpu_tok_s,
    spec_decode_state,
    weight_precision,
)
from app.domain.roofline import HardwareSpec, ModelArch
from tests.helpers import doc

H200 = HardwareSpec(mem_bw_tb_s=4.8, memory_gb=141, bf16_tflops=989, fp8_tflops=1979)
B200 = HardwareSpec(8.0, 180, 2250, 4500, 9000)
LLAMA_70B = ModelArch(70.0, layers=80, kv_heads=8, head_dim=128, d_model=8192)
DEEPSEEK_V3 = ModelArch(
    671, 37, layers=61, d_model=7168, kv_lora_rank=512, rope_dim=64, experts=256, top_k=8
)
PER_USER_3000 = Claim(3000, "per_user", "output", precision="FP8", model="Llama 3.1 70B")
AGGREGATE_3000 = Claim(3000, "system", "output", precision="FP8", batch=64)


def test_o6_per_user_3000_is_impossible_without_44x_acceptance_and_needs_210_tb_s() -> None:
    physics = check_physics(PER_USER_3000, LLAMA_70B, H200)
    assert physics.verdict == "impossible"
    assert physics.ceiling_tok_s_user == doc("68.24")
    assert physics.required_bandwidth_tb_s == doc("210")
    assert physics.required_accepted_length == doc("44")
    assert physics.summary.startswith("impossible without ~44× speculative acceptance")
    assert "it needs 210 TB/s, not 4.8 TB/s" in physics.summary
    steps = {s.label: s for s in physics.steps}
    assert steps["Bytes read per step"].value == doc("70.3355")
    assert steps["Bytes read per step"].unit == "GB"
    assert steps["Memory time per step"].value == doc("14.6532")
    assert steps["KV cache per token"].value == 327_680
    assert steps["Memory bandwidth"].formula == "1 GPU × 4.8 TB/s"
    assert physics.context is not None and physics.context.step_tokens == 1024
    assert physics.assumptions == ("ISL/OSL not stated: a 1,024-token context",)


def test_o6_aggregate_3000_at_batch_64_is_physically_possible_under_3358_3() -> None:
    physics = check_physics(AGGREGATE_3000, LLAMA_70B, H200)
    assert physics.verdict == "physically possible"
    assert physics.ceiling_batch == 64
    assert physics.ceiling_tok_s == doc("3,358.3")
    assert physics.ceiling_tok_s_user == doc("52.47")
    assert physics.compute_bound_tok_s == pytest.approx(1979e12 / (2 * 70e9))
    assert physics.b_max == 169  # floor((126.9e9 − 70e9) / (1,024 × 327,680))
    assert physics.summary == "physically possible: 3,000 ≤ 3,358.3 tok/s at batch 64 (B_max 169)"


def test_an_aggregate_claim_without_a_batch_is_checked_at_b_max() -> None:
    physics = check_physics(Claim(3000, "per_gpu", "output", precision="fp8"), LLAMA_70B, H200)
    assert physics.ceiling_batch == physics.b_max == 169
    assert physics.verdict == "physically possible"


def test_a_stated_interactivity_limits_the_batch_to_the_users_that_keep_it() -> None:
    claim = Claim(3000, "system", "output", precision="fp8", interactivity_tok_s_user=60)
    physics = check_physics(claim, LLAMA_70B, H200)
    assert physics.ceiling_batch == 29
    assert physics.ceiling_tok_s_user is not None and physics.ceiling_tok_s_user >= 60
    assert physics.verdict == "possible only with speculative decoding"
    assert physics.required_accepted_length == pytest.approx(3000 / physics.ceiling_tok_s)


def test_an_interactivity_above_the_batch_one_ceiling_is_impossible_at_any_batch() -> None:
    claim = Claim(1000, "system", "output", precision="fp8", interactivity_tok_s_user=100)
    assert check_physics(claim, LLAMA_70B, H200).verdict == "impossible"


def test_a_claim_above_the_compute_bound_is_impossible() -> None:
    claim = Claim(20_000, "per_gpu", "output", precision="fp8")
    physics = check_physics(claim, LLAMA_70B, H200)
    assert physics.verdict == "impossible"
    assert "compute bound 14,136 tok/s" in physics.summary


def test_speculative_decoding_stated_makes_a_small_excess_possible_only_with_it() -> None:
    claim = Claim(150, "per_user", "output", precision="fp8", spec_decode="EAGLE-3")
    physics = check_physics(claim, LLAMA_70B, H200)
    assert physics.verdict == "possible only with speculative decoding"
    ceiling = physics.ceiling_tok_s_user
    assert ceiling is not None
    assert physics.required_accepted_length == pytest.approx(150 / ceiling)
    assert "(stated)" in physics.summary
    off = check_physics(
        Claim(150, "per_user", "output", precision="fp8", spec_decode="none"), LLAMA_70B, H200
    )
    assert off.verdict == "impossible"
    generous = check_physics(PER_USER_3000, LLAMA_70B, H200, accepted_length=50)
    assert generous.verdict == "possible only with speculative decoding"


def test_o7_moe_per_user_claim_uses_active_params_at_batch_one() -> None:
    claim = Claim(1000, "per_user", "output", gpu_scope="node", scope_gpus=8, precision="fp8")
    step = check_physics(
        Claim(1, "per_user", "output", "node", 8, isl=0, osl=0, precision="fp8"), DEEPSEEK_V3, H200
    )
    assert step.ceiling_tok_s_user == doc("1,037.8")
    physics = check_physics(claim, DEEPSEEK_V3, H200)
    assert physics.verdict == "physically possible"
    weights = next(s for s in physics.steps if s.label == "Weights read per step")
    assert weights.value == doc("37.0")
    assert "coverage 0.03125" in weights.formula


def test_a_model_that_does_not_fit_makes_a_system_claim_impossible() -> None:
    claim = Claim(100, "system", "output", precision="bf16")
    physics = check_physics(claim, DEEPSEEK_V3, H200)
    assert physics.verdict == "impossible"
    assert physics.summary.startswith("impossible: the weights alone take 1,342 GB")


def test_a_per_gpu_claim_on_one_gpu_grows_to_the_fewest_gpus_that_hold_the_weights() -> None:
    claim = Claim(1000, "per_gpu", "output", precision="fp8")
    physics = check_physics(claim, DEEPSEEK_V3, H200)
    assert physics.num_gpus == 8
    assert "a 8-GPU deployment assumed" in physics.assumptions[-1]


def test_without_a_model_spec_or_hardware_the_verdict_says_what_is_missing() -> None:
    physics = check_physics(PER_USER_3000, None, H200, missing=("a model spec for 'X'",))
    assert physics.verdict == "cannot check"
    assert physics.summary == "cannot check (missing: a model spec for 'X')"
    assert check_physics(PER_USER_3000, LLAMA_70B, None).missing == ("hardware spec",)


def test_a_total_basis_claim_without_isl_osl_is_held_to_the_compute_bound_only() -> None:
    claim = Claim(10_000, "per_gpu", "total", precision="fp8")
    physics = check_physics(claim, LLAMA_70B, H200)
    assert physics.verdict == "physically possible"
    assert physics.summary == "physically possible: 10,000 ≤ compute bound 14,136 tok/s"
    per_user = check_physics(Claim(50, "per_user", "total"), LLAMA_70B, H200)
    assert per_user.verdict == "cannot check"


def test_a_total_basis_claim_with_isl_osl_is_compared_on_its_output_share() -> None:
    claim = Claim(6000, "system", "total", precision="fp8", isl=1024, osl=1024, batch=64)
    physics = check_physics(claim, LLAMA_70B, H200)
    assert physics.compared_tok_s == 3000
    assert physics.context is not None and physics.context.step_tokens == 1536


def test_no_precision_assumes_the_most_generous_fp4() -> None:
    physics = check_physics(Claim(100, "per_user", "output"), LLAMA_70B, B200)
    assert physics.weight_precision == "fp4"
    assert physics.assumptions[0].startswith("precision not stated: fp4 weights assumed")


def test_context_is_isl_plus_half_osl_for_steps_and_isl_plus_osl_for_capacity() -> None:
    both = claim_context(1024, 2048)
    assert (both.step_tokens, both.capacity_tokens) == (2048, 3072)
    assert claim_context(None, None).rule == "not stated: 1,024 tokens assumed"
    assert claim_context(8192, None).step_tokens == 8192
    assert claim_context(None, 1000).capacity_tokens == 1000


def test_claims_normalise_to_tok_s_per_gpu_and_across_token_bases() -> None:
    node = Claim(30_000, "system", "output", "node", 8)
    assert per_gpu_tok_s(node) == (3750.0, "30,000 tok/s ÷ 8 GPUs")
    user = Claim(250, "per_user", "output", "node", 8, batch=4)
    assert per_gpu_tok_s(user)[0] == 125.0
    total = Claim(8000, "per_gpu", "total", isl=3000, osl=1000)
    assert on_basis(8000, total, "output") == 2000
    assert on_basis(2000, Claim(2000, "per_gpu", "output", isl=3000, osl=1000), "total") == 8000
    assert on_basis(8000, Claim(8000, "per_gpu", "total"), "output") is None


def test_free_text_precision_and_speculative_decoding_are_read_forgivingly() -> None:
    assert [weight_precision(t) for t in ("NVFP4", "FP8 W8A8", "bf16", "MXFP4 MoE", "", None)] == [
        "fp4",
        "fp8",
        "bf16",
        "fp4",
        None,
        None,
    ]
    assert [spec_decode_state(t) for t in (None, " ", "none", "MTP")] == [
        "unknown",
        "unknown",
        "none",
        "stated",
    ]


def test_open_questions_ask_for_everything_the_claim_leaves_out() -> None:
    questions = open_questions(Claim(30_000, "system", "total", "node", 8))
    joined = " ".join(questions)
    for topic in (
        "speed per user",
        "concurrency",
        "whole node",
        "output tokens",
        "ISL/OSL",
        "precision",
        "speculative decoding",
        "latency limits",
        "Which model",
        "When was it measured",
        "Where was it published",
        "Which harness measured it",
    ):
        assert topic in joined, topic
    full = Claim(
        250,
        "per_user",
        "output",
        "node",
        8,
        model="DeepSeek-R1",
        precision="fp4",
        batch=1,
        isl=1024,
        osl=2048,
        spec_decode="none",
        source_url="https://example.com",
        dated=True,
        provenance="vendor",
    )
    assert open_questions(full) == []


def test_formula_numbers_keep_six_significant_digits() -> None:
    assert [fmt(70.33554432), fmt(3358.300619), fmt(210.0), fmt(327680.0)] == [
        "70.3355",
        "3,358.3",
        "210",
        "327,680",
    ]
