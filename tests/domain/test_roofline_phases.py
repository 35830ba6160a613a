"""Prefill and decode sized apart (issue 50): a model may activate other parameters per token
in each phase; the decode roofline uses the decode count and the prefill bound the prefill's."""

from __future__ import annotations

import pytest

from app.domain.claim_physics import check_physics
from app.domain.claims import Claim
from app.domain.roofline import (
    Deployment,
    HardwareSpec,
    ModelArch,
    compute_bound_tok_s,
    decode_step,
    max_batch,
    prefill_flops,
    prefill_ttft_lower_bound_s,
)

H200 = HardwareSpec(mem_bw_tb_s=4.8, memory_gb=141, bf16_tflops=989, fp8_tflops=1979)
# DeepSeek V4.1-Flash-like: MoE with MLA KV, about 8B active per token in prefill, 16B in decode
# (the figures issue 50 quotes; the shape is made up, so attention FLOPs are left out).
FLASH = ModelArch(
    total_params_b=100.0,
    active_params_b=16.0,
    layers=40,
    kv_lora_rank=512,
    rope_dim=64,
    experts=64,
    top_k=4,
    prefill_active_params_b=8.0,
    decode_active_params_b=16.0,
)
FP8 = Deployment(weight_precision="fp8", kv_precision="fp8")


def test_the_decode_ceiling_reads_the_decode_phases_16b_and_prefill_counts_8b() -> None:
    step = decode_step(FLASH, H200, 1, 1, FP8, attention_flops=False)
    kv = 40 * (512 + 64) * 1.0  # MLA bytes per token, one token of context
    assert step.bytes_per_step == pytest.approx(16e9 + kv, rel=1e-12)
    assert step.interactivity_tok_s_user == pytest.approx(4.8e12 / (16e9 + kv), rel=1e-12)
    assert step.flops_per_step == 2 * 16e9
    assert prefill_flops(FLASH, 2048, attention=False) == 2 * 8e9 * 2048
    ttft = prefill_ttft_lower_bound_s(FLASH, H200, 2048, precision="fp8", attention=False)
    assert ttft == pytest.approx(2 * 8e9 * 2048 / 1979e12, rel=1e-12)
    assert compute_bound_tok_s(FLASH, H200, "fp8") == pytest.approx(1979e12 / (2 * 16e9))
    assert FLASH.phase_words() == "prefill 8B, decode 16B active per token"


def test_one_active_count_serves_both_phases_when_none_is_given() -> None:
    plain = ModelArch(total_params_b=8.0, active_params_b=8.0, layers=32, kv_heads=8, head_dim=128)
    assert plain.prefill_active_params == plain.decode_active_params == 8e9
    assert plain.phase_words() is None
    with pytest.raises(ValueError, match="decode_active_params_b"):
        ModelArch(total_params_b=8.0, decode_active_params_b=9.0, layers=1, kv_heads=1, head_dim=1)


def test_the_kv_cache_at_long_context_bounds_the_batch_by_memory_left_after_weights() -> None:
    # 100 GB of FP8 weights on one H200: 0.9 × 141 GB − 100 GB = 26.9 GB for KV.
    kv = 40 * (512 + 64) * 1.0
    for ctx in (4_096, 131_072):
        expected = int((0.9 * 141e9 - 100e9) // (ctx * kv))
        assert max_batch(FLASH, H200, ctx, FP8) == expected
    # 131,072 tokens × 23,040 B = 3.02 GB per sequence: 26.9 / 3.02 = 8.9 ⇒ 8 sequences.
    assert max_batch(FLASH, H200, 131_072, FP8) == 8


def test_the_claim_audit_checks_a_claim_at_decodes_16b_and_says_so() -> None:
    claim = Claim(3000, "per_user", "output", precision="FP8", model="V4.1 Flash-like")
    physics = check_physics(claim, FLASH, H200)
    steps = {s.label: s for s in physics.steps}
    phases = steps["Active parameters by phase"]
    assert phases.formula == "prefill 8B, decode 16B active per token: decode's used here"
    assert phases.value == 16.0
    # Batch 1 reads the decode phase's 16B FP8 weights (an 8B count would read 8 GB).
    assert steps["Weights read per step"].value == pytest.approx(16.0, rel=1e-12)
    aggregate = check_physics(Claim(3000, "system", "output", precision="FP8"), FLASH, H200)
    bound = {s.label: s for s in aggregate.steps}["Compute bound"]
    assert bound.formula.endswith("16e9 active params in decode)")
    assert aggregate.compute_bound_tok_s == pytest.approx(1979e12 / (2 * 16e9))
