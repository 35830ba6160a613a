"""Decode roofline, KV capacity and prefill bounds."""

from __future__ import annotations

import pytest

from app.domain.roofline import (
    Deployment,
    HardwareSpec,
    ModelArch,
    bytes_per_param,
    compute_bound_tok_s,
    curve_batches,
    decode_step,
    expert_coverage,
    kv_bytes_per_token,
    max_batch,
    moe_split_params,
    prefill_ttft_lower_bound_s,
    roofline_curve,
    weight_bytes_read,
)

H100 = HardwareSpec(mem_bw_tb_s=3.35, memory_gb=80, bf16_tflops=989, fp8_tflops=1979)
B200 = HardwareSpec(8.0, 180, 2250, 4500, 9000)
M4_MAX = HardwareSpec(mem_bw_tb_s=0.546, memory_gb=128)
LLAMA_8B = ModelArch(8.0, layers=32, kv_heads=8, head_dim=128, d_model=4096)
LLAMA_70B = ModelArch(70.0, layers=80, kv_heads=8, head_dim=128, d_model=8192)
DEEPSEEK_V3 = ModelArch(
    671, 37, layers=61, d_model=7168, kv_lora_rank=512, rope_dim=64, experts=256, top_k=8
)


def test_bytes_per_param_by_precision_name() -> None:
    assert [bytes_per_param(p) for p in ("BF16", "fp16", "fp8", "int8", "fp4", "int4")] == [
        2,
        2,
        1,
        1,
        0.5,
        0.5,
    ]
    with pytest.raises(ValueError):
        bytes_per_param("fp6")


def test_tflops_fall_back_to_the_next_wider_format() -> None:
    assert H100.tflops("fp4") == 1979
    assert H100.tflops("int8") == 1979
    assert B200.tflops("fp4") == 9000
    assert M4_MAX.tflops("bf16") is None


def test_kv_bytes_per_token_for_gqa_and_mla() -> None:
    assert kv_bytes_per_token(LLAMA_70B, 2) * 128 * 1024 == 40 * 2**30  # 40 GiB at 128k
    assert kv_bytes_per_token(DEEPSEEK_V3, 1) == 61 * 576
    with pytest.raises(ValueError):
        kv_bytes_per_token(ModelArch(8.0), 2)


@pytest.mark.parametrize(("batch", "share"), [(1, 0.031), (8, 0.224), (64, 0.869), (256, 0.9997)])
def test_expert_coverage_matches_the_doc(batch: int, share: float) -> None:
    assert expert_coverage(batch, 256, 8) == pytest.approx(share, abs=5e-4)


def test_expert_coverage_of_an_empty_batch_is_zero() -> None:
    assert expert_coverage(0, 256, 8) == 0.0


def test_moe_weights_read_grow_from_active_to_total_with_batch() -> None:
    shared, routed = moe_split_params(DEEPSEEK_V3)
    assert shared + routed == pytest.approx(671e9)
    assert shared + routed * 8 / 256 == pytest.approx(37e9)
    assert weight_bytes_read(DEEPSEEK_V3, 1, 1.0) == pytest.approx(37e9)
    reads = [weight_bytes_read(DEEPSEEK_V3, b, 1.0) for b in (1, 8, 64, 1024)]
    assert reads == sorted(reads)
    assert reads[-1] == pytest.approx(671e9, rel=1e-6)


def test_dense_weights_read_do_not_depend_on_batch() -> None:
    assert weight_bytes_read(LLAMA_8B, 1, 2.0) == weight_bytes_read(LLAMA_8B, 512, 2.0) == 16e9


def test_moe_arch_is_validated() -> None:
    with pytest.raises(ValueError):
        ModelArch(10.0, 20.0)
    with pytest.raises(ValueError):
        ModelArch(10.0, 2.0, experts=8)
    with pytest.raises(ValueError):
        moe_split_params(ModelArch(100.0, 1.0, experts=8, top_k=2))


def test_decode_turns_compute_bound_at_large_batch_and_short_context() -> None:
    step = decode_step(
        LLAMA_8B, H100, 2048, 16, Deployment(weight_precision="fp8", kv_precision="fp8")
    )
    assert step.bound == "compute"
    assert step.step_s == step.compute_s


def test_speculative_decoding_multiplies_the_token_rates() -> None:
    plain = decode_step(LLAMA_8B, H100, 4, 2048)
    spec = decode_step(LLAMA_8B, H100, 4, 2048, Deployment(accepted_length=2.5))
    assert spec.interactivity_tok_s_user == pytest.approx(2.5 * plain.interactivity_tok_s_user)
    assert spec.step_s == plain.step_s


def test_tensor_parallel_gpus_share_bandwidth_and_per_gpu_rate_divides() -> None:
    one = decode_step(LLAMA_70B, H100, 32, 2048, Deployment(weight_precision="fp8"))
    eight = decode_step(LLAMA_70B, H100, 32, 2048, Deployment(weight_precision="fp8", num_gpus=8))
    assert eight.step_s == pytest.approx(one.step_s / 8)
    assert eight.tok_s_per_gpu == pytest.approx(eight.aggregate_tok_s / 8)


def test_bandwidth_efficiency_slows_the_step() -> None:
    full = decode_step(LLAMA_8B, H100, 1, 0).step_s
    assert decode_step(LLAMA_8B, H100, 1, 0, Deployment(bw_efficiency=0.8)).step_s == pytest.approx(
        full / 0.8
    )


def test_apple_gpu_without_tflops_is_purely_bandwidth_bound() -> None:
    step = decode_step(LLAMA_8B, M4_MAX, 1, 0, Deployment(weight_precision="int4"))
    assert step.bound == "memory" and step.compute_s == 0
    assert step.interactivity_tok_s_user == pytest.approx(0.546e12 / 4e9)
    assert prefill_ttft_lower_bound_s(LLAMA_8B, M4_MAX, 512) is None
    assert compute_bound_tok_s(LLAMA_8B, M4_MAX, "bf16") is None


def test_compute_bound_throughput_uses_active_params() -> None:
    assert compute_bound_tok_s(LLAMA_8B, H100, "bf16") == pytest.approx(989e12 / 16e9)


def test_decode_step_rejects_invalid_inputs() -> None:
    with pytest.raises(ValueError):
        decode_step(LLAMA_8B, H100, 0, 100)
    with pytest.raises(ValueError):
        decode_step(LLAMA_8B, H100, 1, 100, Deployment(bw_efficiency=1.5))
    with pytest.raises(ValueError):
        decode_step(LLAMA_8B, H100, 1, 100, Deployment(accepted_length=0.5))


def test_max_batch_is_zero_when_weights_do_not_fit() -> None:
    assert max_batch(LLAMA_70B, H100, 4096) == 0  # 140 GB of BF16 weights on one 80 GB GPU
    assert max_batch(LLAMA_70B, H100, 4096, Deployment(num_gpus=4)) > 0


def test_max_batch_counts_every_expert_as_resident() -> None:
    assert max_batch(DEEPSEEK_V3, B200, 4096, Deployment(weight_precision="fp8")) == 0
    assert max_batch(DEEPSEEK_V3, B200, 4096, Deployment(weight_precision="fp8", num_gpus=8)) > 0


def test_curve_batches_are_two_per_doubling_and_end_at_b_max() -> None:
    assert curve_batches(0) == []
    assert curve_batches(1) == [1]
    assert curve_batches(20) == [1, 2, 3, 4, 6, 8, 12, 16, 20]
    assert curve_batches(24)[-1] == 24
    assert len(curve_batches(10**9)) <= 64


def test_roofline_curve_trades_interactivity_for_throughput() -> None:
    curve = roofline_curve(LLAMA_8B, H100, 4096)
    assert curve[0].batch == 1
    assert curve[-1].batch == max_batch(LLAMA_8B, H100, 4096)
    xs = [p.interactivity_tok_s_user for p in curve]
    ys = [p.tok_s_per_gpu for p in curve]
    assert xs == sorted(xs, reverse=True)
    assert ys == sorted(ys)
    assert all(p.bound == "memory" for p in curve)


def test_roofline_curve_is_empty_when_nothing_fits() -> None:
    assert roofline_curve(LLAMA_70B, H100, 4096) == []
