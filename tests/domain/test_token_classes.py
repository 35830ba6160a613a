"""Tokens by class (issue 50): each token billed once, revenue adds up, break-even prices."""

from __future__ import annotations

import math

import polars as pl
import pytest

from app.domain.cost import break_even_api_prices
from app.domain.request_goodput import SAMPLE_SCHEMA
from app.domain.token_classes import (
    ClassPrices,
    ClassRevenue,
    break_even,
    class_revenue,
    point_share,
    token_mix,
)
from app.services.readoff.token_classes import sample_counts

# InferenceX-app#943's "normalized" API prices: $1/M uncached input and output, $0.10/M cached.
PR943 = ClassPrices(1.0, 0.10, 1.0)


def revenue_of(mix_in: float, mix_out: float, share: float, prices: ClassPrices) -> ClassRevenue:
    found = class_revenue(token_mix(mix_in, mix_out, share), prices)
    assert isinstance(found, ClassRevenue), found
    return found


def test_class_tokens_times_class_prices_add_up_to_the_revenue_for_many_mixes() -> None:
    prices = ClassPrices(0.6, 0.06, 2.4)
    for k in range(1, 60):
        tok_in, tok_out, share = 97.3 * k, 11.9 * k + 3, (k % 11) / 10
        revenue = revenue_of(tok_in, tok_out, share, prices)
        mix = revenue.mix
        by_hand = (
            mix.uncached_input_tok_s * 3600 / 1e6 * 0.6
            + mix.cached_input_tok_s * 3600 / 1e6 * 0.06
            + mix.output_tok_s * 3600 / 1e6 * 2.4
        )
        assert math.isclose(revenue.total_usd_per_hour, by_hand, rel_tol=1e-9)
        assert math.isclose(math.fsum(revenue.usd_per_hour.values()), by_hand, rel_tol=1e-9)
        assert math.isclose(
            mix.uncached_input_tok_s + mix.cached_input_tok_s, tok_in, rel_tol=1e-15
        )
        even = break_even(revenue, 2.0)
        assert even is not None
        assert math.isclose(math.fsum(even.gpu_usd_per_hour.values()), 2.0, rel_tol=1e-9)


def test_cached_tokens_are_billed_once_at_the_cached_price_not_again_at_the_input_price() -> None:
    revenue = revenue_of(9000.0, 1000.0, 0.9, PR943)
    # 900 uncached × $1 + 8,100 cached × $0.10 + 1,000 output × $1, per second, as $/hour.
    assert revenue.usd_per_hour["uncached_input"] == pytest.approx(900 * 3600 / 1e6)
    assert revenue.usd_per_hour["cached_input"] == pytest.approx(8100 * 3600 / 1e6 * 0.1)
    assert revenue.total_usd_per_hour == pytest.approx(2710 * 3600 / 1e6, rel=1e-12)
    billed_twice = (9000 * 1.0 + 8100 * 0.1 + 1000 * 1.0) * 3600 / 1e6
    assert revenue.total_usd_per_hour < billed_twice


def test_pr943_total_tokens_per_dollar_is_all_tokens_over_cache_aware_revenue() -> None:
    # The example: 8k/1k-like mix, 90 % of input a prefix hit, PR 943's normalized prices.
    # By hand: 10,000 tok/s earn $0.002710/s ⇒ 10,000 / 0.002710 = 3,690,036.9 tokens per $1.
    revenue = revenue_of(9000.0, 1000.0, 0.9, PR943)
    assert revenue.tokens_per_usd == pytest.approx(3_690_036.9, rel=0.005)
    assert revenue.tokens_per_usd == pytest.approx(10_000 / 0.002710, rel=1e-12)
    assert revenue.blended_usd_per_mtok == pytest.approx(0.271, rel=1e-12)
    # Without the cache discount the same tokens earn $1/M: 1,000,000 tokens per $1.
    uncached = revenue_of(9000.0, 1000.0, 0.0, PR943)
    assert uncached.tokens_per_usd == pytest.approx(1_000_000.0, rel=1e-12)


def test_break_even_with_a_four_to_one_output_price_ratio_is_oracle_o14() -> None:
    # O14: $2/GPU-h, 2,500 input and 2,500 output tok/s/GPU, k = 4 ⇒ $0.044444 / $0.177778.
    revenue = revenue_of(2500.0, 2500.0, 0.0, ClassPrices(1.0, None, 4.0))
    even = break_even(revenue, 2.0)
    assert even is not None
    assert even.usd_per_mtok["uncached_input"] == pytest.approx(0.044444, abs=1e-6)
    assert even.usd_per_mtok["output"] == pytest.approx(0.177778, abs=1e-6)
    assert (even.usd_per_mtok["uncached_input"], even.usd_per_mtok["output"]) == pytest.approx(
        break_even_api_prices(2.0, 2500.0, 2500.0, 4.0), rel=1e-12
    )
    assert even.gpu_usd_per_hour == pytest.approx(
        {"uncached_input": 0.4, "cached_input": 0.0, "output": 1.6}
    )


def test_cached_tokens_without_a_cached_price_are_not_billed_at_the_input_price() -> None:
    found = class_revenue(token_mix(1000.0, 100.0, 0.5), ClassPrices(1.0, None, 2.0))
    assert found == "no cached input price: give usd_per_mtok_cached_input"
    free_prices = ClassPrices(0.0, 0.0, 0.0)
    assert break_even(revenue_of(1000.0, 100.0, 0.5, free_prices), 2.0) is None


def test_a_points_own_cached_tokens_beat_its_samples_which_beat_the_servers_rate() -> None:
    stored = {"cached_input_tokens": 600.0, "prefix_cache_hit_rate": 0.2}
    first = point_share(stored, 1000.0, (70, 100))
    assert first is not None and (first.share, first.source) == (0.6, "client")
    from_samples = point_share({"prefix_cache_hit_rate": 0.2}, 1000.0, (70, 100))
    assert from_samples is not None and (from_samples.share, from_samples.source) == (0.7, "client")
    server = point_share({"prefix_cache_hit_rate": 0.2}, None, None)
    assert server is not None and (server.share, server.source) == (0.2, "measured")
    assert server.source_words == "measured by the server (its prefix-cache counters)"
    theory = point_share({"theoretical_cache_hit_rate": 0.85}, None, None)
    assert theory is not None and theory.source == "theoretical"
    # More cached than input is impossible: not a share (the next source is used).
    assert point_share({"cached_input_tokens": 1200.0}, 1000.0, None) is None


def test_request_counts_add_up_exactly_and_leave_out_requests_without_cached_tokens() -> None:
    frame = pl.DataFrame(
        {
            "point_id": [1, 1, 1, 2, 2],
            "ttft_ms": [10.0] * 5,
            "e2el_ms": [100.0] * 5,
            "output_len": [5] * 5,
            "input_len": [131_072, 1_001, 77, 500, 40],
            "ok": [True, True, True, True, False],
            "cached_input_tokens": [131_000, None, 0, 499, 40],
        },
        schema={**SAMPLE_SCHEMA, "cached_input_tokens": pl.Int64()},
    )
    counts = sample_counts(frame)
    assert counts == {1: (131_000, 131_149), 2: (499, 500)}
    cached, total = counts[1]
    assert (total - cached) + cached == 131_072 + 77


def test_a_mix_refuses_a_share_outside_zero_to_one() -> None:
    with pytest.raises(ValueError, match="cached share"):
        token_mix(10.0, 1.0, 1.5)


def test_the_clients_summed_share_beats_its_mean_and_a_theoretical_rate_stays_theoretical() -> None:
    both = {"client_cache_hit_rate": 0.75, "cached_input_tokens": 600.0}
    first = point_share(both, 1000.0, (70, 100))
    assert first is not None
    assert (first.share, first.source, first.how) == (0.75, "client", "client_cache_hit_rate")
    # Measured beats theoretical; theoretical alone is named so, never "measured".
    rates = {"prefix_cache_hit_rate": 0.5, "theoretical_cache_hit_rate": 0.9}
    measured = point_share(rates, None, None)
    assert measured is not None and (measured.share, measured.source) == (0.5, "measured")
    theory = point_share({"theoretical_cache_hit_rate": 0.9}, None, None)
    assert theory is not None and (theory.share, theory.source) == (0.9, "theoretical")
    assert "not measured" in theory.source_words
    assert point_share({"client_cache_hit_rate": 1.2}, None, None) is None
