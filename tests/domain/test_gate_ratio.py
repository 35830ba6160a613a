"""The regression gate's ratio (app.domain.gate_ratio): paired only where both runs replayed the
same prompts in the same order, a pooled t interval over repeated runs, none from one run."""

from __future__ import annotations

import math

import polars as pl
import pytest

from app.domain.gate_ratio import (
    GATE_LEVEL,
    ONE_RUN_GATE,
    gate_level,
    request_ratio,
    runs_ratio,
    same_prompts,
)
from app.domain.intervals import t_quantile


def requests(inputs: list[int | None], outputs: list[int]) -> pl.DataFrame:
    return pl.DataFrame({"input_len": inputs, "output_len": outputs})


def test_the_same_prompts_are_the_same_varying_lengths_in_the_same_order() -> None:
    base = requests([120, 800, 35, 410], [50, 50, 50, 50])
    assert same_prompts(base, requests([120, 800, 35, 410], [9, 80, 50, 12])) is True
    assert same_prompts(base, requests([800, 120, 35, 410], [50] * 4)) is False  # another order
    assert same_prompts(base, requests([120, 800, 35], [50] * 3)) is False  # another count
    assert same_prompts(base, requests([120, None, 35, 410], [50] * 4)) is False
    # One input length: the outputs, request by request, must match too, and vary.
    fixed = requests([550] * 4, [151, 22, 151, 140])
    assert same_prompts(fixed, requests([550] * 4, [151, 22, 151, 140])) is True
    assert same_prompts(fixed, requests([550] * 4, [151, 151, 22, 140])) is False
    # Every request alike: nothing tells which prompt came when, so not evidence of pairing.
    alike = requests([1024] * 4, [128] * 4)
    assert same_prompts(alike, alike) is False


def test_replayed_prompts_pair_the_bootstrap_so_a_prompts_own_length_cancels() -> None:
    base = pl.Series([float(t) for t in range(1, 401)])  # good tokens, very uneven
    cand = base * 0.9  # the same prompts, every request 10 % fewer tokens
    paired = request_ratio(base, cand, 0.9, 0.95, paired=True)
    assert (paired.method, paired.paired) == ("ratio-bootstrap", True)
    assert paired.low == pytest.approx(0.9, rel=1e-12)
    assert paired.high == pytest.approx(0.9, rel=1e-12)
    unpaired = request_ratio(base, cand, 0.9, 0.95, paired=False)
    assert unpaired.paired is False
    assert unpaired.low is not None and unpaired.high is not None
    # Resampled on two draws, the sides' unevenness does not cancel: a wide interval.
    assert unpaired.low == pytest.approx(0.827005, abs=1e-6)
    assert unpaired.high == pytest.approx(0.977943, abs=1e-6)
    assert paired.below_one is True


def test_the_interval_is_centred_on_the_ratio_shown_whatever_the_unit_scale() -> None:
    base = pl.Series([float(t) for t in range(1, 201)])
    cand = base.reverse()  # other prompts: unpaired
    raw = request_ratio(base, cand, 1.0, 0.95, paired=False)
    scaled = request_ratio(base, cand, 0.5, 0.95, paired=False)  # e.g. per 2 decode GPUs
    assert raw.low is not None and raw.high is not None
    assert scaled.low == pytest.approx(raw.low / 2, rel=1e-12)
    assert scaled.high == pytest.approx(raw.high / 2, rel=1e-12)


def test_repeated_runs_give_a_pooled_t_interval_of_the_ratio_on_the_log_scale() -> None:
    base, cand = [100.0, 102.0, 98.0], [90.0, 91.0, 89.0]
    lb, lc = [math.log(v) for v in base], [math.log(v) for v in cand]
    mb, mc = sum(lb) / 3, sum(lc) / 3
    ss = sum((v - mb) ** 2 for v in lb) + sum((v - mc) ** 2 for v in lc)
    half = t_quantile(0.975, 4) * math.sqrt(ss / 4) * math.sqrt(2 / 3)
    shown = math.exp(mc - mb)  # the geometric means' ratio
    found = runs_ratio(base, cand, shown, 0.95)
    assert found.method == "ratio-t-log" and (found.n_baseline, found.n_candidate) == (3, 3)
    assert found.low == pytest.approx(shown * math.exp(-half), rel=1e-12)
    assert found.high == pytest.approx(shown * math.exp(half), rel=1e-12)
    assert found.high is not None and found.high < 1
    # One side with runs: its spread stands for both (df = 2).
    one_side = runs_ratio([100.0], cand, 0.9, 0.95)
    assert one_side.known and one_side.n_baseline == 1


def test_one_run_a_side_has_no_interval_and_says_the_tolerance_alone_decides() -> None:
    found = runs_ratio([100.0], [97.0], 0.97, 0.95)
    assert (found.low, found.high, found.reason) == (None, None, ONE_RUN_GATE)
    assert found.below_one is None


def test_the_gate_reads_its_ratio_at_98_percent_or_the_checks_level_when_higher() -> None:
    # One-sided: identical builds fall below an interval's low tail half its complement.
    assert GATE_LEVEL == 0.98
    assert (gate_level(0.95), gate_level(0.99)) == (0.98, 0.99)
