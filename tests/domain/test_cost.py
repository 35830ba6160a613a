"""Cost per million tokens, ownership breakdown, tokens per MW and break-even prices."""

from __future__ import annotations

import pytest

from app.domain.cost import (
    OwnershipInputs,
    break_even_api_prices,
    capital_recovery_factor,
    ownership_breakdown,
    tok_s_per_mw,
    usd_per_mtok,
    usd_per_useful_hour,
)


def test_crf_is_straight_line_at_zero_rate() -> None:
    assert capital_recovery_factor(0.0, 4) == 0.25


def test_crf_approaches_straight_line_as_rate_goes_to_zero() -> None:
    assert capital_recovery_factor(1e-9, 4) == pytest.approx(0.25, rel=1e-6)


def test_crf_of_one_year_is_one_plus_rate() -> None:
    assert capital_recovery_factor(0.08, 1) == pytest.approx(1.08)


@pytest.mark.parametrize(("rate", "years"), [(0.1, 0), (0.1, -1), (-1.0, 4)])
def test_crf_rejects_impossible_inputs(rate: float, years: float) -> None:
    with pytest.raises(ValueError):
        capital_recovery_factor(rate, years)


def test_ownership_components_sum_to_the_total() -> None:
    inputs = OwnershipInputs(
        capex_usd=30_000,
        life_years=5,
        cost_of_capital=0.08,
        power_kw=1.2,
        pue=1.4,
        usd_per_kwh=0.1,
        colo_usd_per_kw_month=120,
        other_opex_pct_per_year=5,
    )
    cost = ownership_breakdown(inputs)
    parts = (
        cost.capital_usd_per_hour
        + cost.power_usd_per_hour
        + cost.colo_usd_per_hour
        + cost.opex_usd_per_hour
    )
    assert cost.total_usd_per_gpu_hour == pytest.approx(parts)
    assert cost.opex_usd_per_hour == pytest.approx(0.05 * 30_000 / 8760)
    assert cost.colo_usd_per_hour == pytest.approx(120 * 1.2 / 730)  # no PUE on colocation
    assert cost.power_usd_per_hour == pytest.approx(1.2 * 1.4 * 0.1)


def test_ownership_rejects_negative_inputs() -> None:
    with pytest.raises(ValueError):
        OwnershipInputs(-1, 4, 0.1, 1, 1.3, 0.08)


@pytest.mark.parametrize("throughput", [None, 0.0, -5.0, float("inf")])
def test_cost_per_mtok_needs_positive_throughput(throughput: float | None) -> None:
    assert usd_per_mtok(2.0, throughput) is None


def test_lower_utilization_raises_cost_proportionally() -> None:
    full = usd_per_mtok(2.0, 1000)
    half = usd_per_mtok(2.0, 1000, utilization=0.5)
    assert full is not None and half == pytest.approx(2 * full)


def test_zero_utilization_has_no_cost_per_token() -> None:
    assert usd_per_mtok(2.0, 1000, utilization=0.0) is None
    assert usd_per_useful_hour(2.0, 0.0) is None


@pytest.mark.parametrize("utilization", [-0.1, 1.01])
def test_utilization_outside_zero_to_one_is_rejected(utilization: float) -> None:
    with pytest.raises(ValueError):
        usd_per_mtok(2.0, 1000, utilization=utilization)


def test_free_gpu_hours_cost_nothing_per_token() -> None:
    assert usd_per_mtok(0.0, 1000) == 0.0


def test_tokens_per_mw_need_positive_inputs() -> None:
    assert tok_s_per_mw(3000, 0) is None
    assert tok_s_per_mw(None, 2.0) is None
    assert tok_s_per_mw(0, 2.0) == 0


def test_break_even_prices_recover_the_hourly_cost() -> None:
    prices = break_even_api_prices(3.0, 9000, 1000, 5)
    assert prices is not None
    p_in, p_out = prices
    assert p_out == pytest.approx(5 * p_in)
    assert (9000 * p_in + 1000 * p_out) * 3600 / 1e6 == pytest.approx(3.0)


def test_break_even_without_throughput_is_none_and_negative_is_rejected() -> None:
    assert break_even_api_prices(2.0, 0, 0, 4) is None
    with pytest.raises(ValueError):
        break_even_api_prices(2.0, -1, 10, 4)
