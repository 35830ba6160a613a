"""Accounting modes (issue 37): a synthetic 8P + 8D disaggregated deployment against a 16-GPU
aggregated one, both serving 16,000 output tok/s on H100 (8 GPUs per node, 1.73 kW all-in)."""

from __future__ import annotations

import pytest

from app.domain.accounting import (
    ACCOUNTINGS,
    Deployment,
    axis_unit,
    from_per_gpu,
    per_unit,
    split_label,
    units,
)

DISAGG = Deployment(16, 8, 8, gpus_per_node=8, allin_kw_per_gpu=1.73)
AGG = Deployment(16, gpus_per_node=8, allin_kw_per_gpu=1.73)
TOK_S = 16_000.0

# Hand-computed: 16,000 ÷ 16 GPUs, ÷ 8 decode, ÷ 8 prefill, ÷ (16 ÷ 8) nodes, ÷ (16 × 1.73) kW.
ORACLE = {
    "gpu": (1000.0, 1000.0),
    "decode_gpu": (2000.0, 1000.0),
    "prefill_gpu": (2000.0, 1000.0),
    "node": (8000.0, 8000.0),
    "kw": (16_000 / 27.68, 16_000 / 27.68),
}


@pytest.mark.parametrize("mode", ACCOUNTINGS)
def test_the_8p_8d_and_16_gpu_pair_match_the_hand_oracle_in_every_mode(mode: str) -> None:
    disagg = per_unit(TOK_S, units(mode, DISAGG).count)  # type: ignore[arg-type]
    agg = per_unit(TOK_S, units(mode, AGG).count)  # type: ignore[arg-type]
    assert (disagg, agg) == pytest.approx(ORACLE[mode], rel=1e-12)
    # The same figure restated from tok/s per total GPU.
    assert from_per_gpu(1000.0, 16, units(mode, DISAGG).count) == pytest.approx(ORACLE[mode][0])  # type: ignore[arg-type]


def test_an_aggregated_sweep_reads_the_same_in_every_per_gpu_mode() -> None:
    counts = {units(m, AGG).count for m in ("gpu", "decode_gpu", "prefill_gpu")}
    assert counts == {16.0}


def test_an_uneven_split_counts_each_side_and_unknowns_say_why() -> None:
    uneven = Deployment(20, 4, 16)
    assert (units("prefill_gpu", uneven).count, units("decode_gpu", uneven).count) == (4.0, 16.0)
    half = Deployment(16, None, 8)
    assert units("prefill_gpu", half).count is None
    assert (
        units("prefill_gpu", half).reason == "disaggregated, but its prefill GPUs are not recorded"
    )
    assert units("node", AGG.__class__(16)).reason == (
        "the catalog has no GPUs per node for its hardware"
    )
    assert units("kw", Deployment(16)).count is None
    assert per_unit(100.0, None) is None and per_unit(100.0, 0.0) is None


def test_the_split_and_the_unit_are_named_in_words() -> None:
    assert split_label(8, 8) == "8P + 8D"
    assert split_label(None, None) is None
    assert split_label(None, 4) == "?P + 4D"
    assert axis_unit("decode_gpu") == "tok/s per decode GPU"
    assert axis_unit("kw") == "tok/s per kW"
