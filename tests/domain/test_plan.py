"""Capacity planning oracles, computed by hand in the comments (app/domain/plan.py)."""

from __future__ import annotations

import pytest

from app.domain import plan
from app.domain.plan import Demand, RequestShape, StepOption


def test_replicas_gpus_and_utilisation_follow_peak_and_headroom() -> None:
    # Average 100 req/s, peak 1.5× = 150, headroom 0.2 ⇒ sized for 180 req/s.
    # 7 req/s per 8-GPU replica ⇒ ⌈180 / 7⌉ = ⌈25.714⌉ = 26 replicas = 208 GPUs.
    # Capacity 26 × 7 = 182 req/s ⇒ peak 150/182 = 0.824176, average 100/182 = 0.549451.
    demand = Demand("requests_per_s", 100.0, peak_to_average=1.5, headroom=0.2)
    sizing = plan.size_fleet(demand, goodput_per_replica=7.0, gpus_per_replica=8)
    assert (sizing.replicas, sizing.gpus) == (26, 208)
    assert sizing.utilization_peak == pytest.approx(150 / 182, rel=1e-12)
    assert sizing.utilization_average == pytest.approx(100 / 182, rel=1e-12)
    assert sizing.utilization_peak == pytest.approx(0.824176, abs=5e-7)


def test_an_exact_multiple_needs_no_extra_replica_despite_float_rounding() -> None:
    # 0.1 × 3 = 0.30000000000000004 and 0.3 / 0.1 = 2.9999999999999996: both are 3 replicas.
    assert plan.size_fleet(Demand("requests_per_s", 0.1 * 3), 0.1, 1).replicas == 3
    assert plan.size_fleet(Demand("requests_per_s", 0.3), 0.1, 1).replicas == 3
    # 12 × 1.2 = 14.4 sized ÷ 4.8 per replica = 3 exactly.
    assert plan.size_fleet(Demand("requests_per_s", 12.0, headroom=0.2), 4.8, 2).replicas == 3
    # Just above a multiple needs one more: 3.000001 ÷ 1 ⇒ 4.
    assert plan.size_fleet(Demand("requests_per_s", 3.000001), 1.0, 1).replicas == 4


def test_headroom_caps_utilisation_at_peak() -> None:
    # Headroom 0.25: 100 req/s of 10 req/s replicas ⇒ ⌈125/10⌉ = 13; peak use 100/130 ≤ 1/1.25.
    sizing = plan.size_fleet(Demand("requests_per_s", 100.0, headroom=0.25), 10.0, 4)
    assert (sizing.replicas, sizing.gpus) == (13, 52)
    assert sizing.utilization_peak == pytest.approx(100 / 130)
    assert sizing.utilization_peak <= 1 / 1.25


def test_monthly_cost_power_and_effective_cost_per_mtok() -> None:
    # 208 GPUs at $2/GPU-hour × 730 h = $303,680/month.
    monthly = plan.usd_per_month(2.0, 208)
    assert monthly == pytest.approx(303_680.0, rel=1e-12)
    # 1.73 kW all-in per GPU × 208 = 359.84 kW; × 730 h ÷ 1000 = 262.6832 MWh/month.
    kw = plan.fleet_kw(1.73, 208)
    assert kw == pytest.approx(359.84, rel=1e-12)
    assert plan.mwh_per_month(kw) == pytest.approx(262.6832, rel=1e-12)
    # Average 100 req/s × 500 output tokens = 50,000 tok/s ⇒ 50,000 × 3600 × 730 ÷ 1e6
    # = 131,400 Mtok/month; $303,680 ÷ 131,400 = $2.311111/Mtok.
    assert plan.usd_per_mtok_at_average(monthly, 50_000.0) == pytest.approx(2.311111, abs=5e-7)
    assert plan.usd_per_mtok_at_average(monthly, 0.0) is None


def test_token_demand_converts_with_measured_lengths() -> None:
    shape = RequestShape(input_tokens=1000.0, output_tokens=200.0)
    assert plan.unit_per_request("requests_per_s", shape) == 1.0
    assert plan.unit_per_request("output_tok_s", shape) == 200.0
    # tokens/day counts input + output: 1200 tokens × 86,400 s per (req/s).
    assert plan.unit_per_request("tokens_per_day", shape) == 103_680_000.0
    assert shape.tokens("total") == 1200.0
    assert shape.tokens("input") == 1000.0
    assert plan.unit_per_request("tokens_per_day", RequestShape(None, 200.0)) is None
    assert plan.unit_per_request("output_tok_s", RequestShape(1000.0, None)) is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"average": 0.0}, "requests_per_s must be a finite number > 0"),
        ({"average": float("inf")}, "requests_per_s must be a finite number > 0"),
        ({"average": 1.0, "peak_to_average": 0.5}, "peak_to_average must be ≥ 1"),
        ({"average": 1.0, "headroom": -0.1}, "headroom must be ≥ 0"),
    ],
)
def test_a_demand_outside_its_range_is_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Demand("requests_per_s", **kwargs)


# Hand-built crossover case: A serves 10 req/s per replica for $1,000/month, B 25 req/s for
# $2,000/month; no peak factor or headroom; demand 20 ⇒ chart range 2 … 200.
#   (0, 10]: A 1000 < B 2000 → A      (10, 20]: A 2000 = B 2000 → tie keeps A
#   (20, 25]: A 3000 > B 2000 → B     (25, 30]: A 3000 < B 4000 → A
#   (30, 40]: A 4000 = B 4000 → A     (40, 50]: A 5000 > B 4000 → B
#   beyond 50, B costs 80 $/req/s against A's 100 and A never drops below B again
#   ((75, 80]: 8000 = 8000 keeps B; (125, 130]: 13000 > 12000).
A = StepOption("A", goodput_per_replica=10.0, usd_per_month_per_replica=1000.0)
B = StepOption("B", goodput_per_replica=25.0, usd_per_month_per_replica=2000.0)


def test_crossovers_are_where_the_cheapest_step_line_changes() -> None:
    found, exact = plan.crossovers([A, B], 2.0, 200.0, sizing_factor=1.0)
    assert exact is True
    assert [(c.demand, c.from_key, c.to_key) for c in found] == [
        (20.0, "A", "B"),
        (25.0, "B", "A"),
        (40.0, "A", "B"),
    ]


def test_peak_and_headroom_move_every_crossover_by_their_product() -> None:
    # Sizing factor 2 × 1.25 = 2.5: each breakpoint k × goodput ÷ 2.5 ⇒ 8, 10, 16.
    found, _ = plan.crossovers([A, B], 0.8, 80.0, sizing_factor=2.5)
    assert [(c.demand, c.to_key) for c in found] == [(8.0, "B"), (10.0, "A"), (16.0, "B")]


def test_a_step_line_starts_each_level_at_its_breakpoint() -> None:
    xs, ys, exact = plan.step_curve(A, 2.0, 50.0, sizing_factor=1.0)
    assert exact is True
    assert xs == [2.0, 10.0, 20.0, 30.0, 40.0, 50.0]
    assert ys == [1000.0, 2000.0, 3000.0, 4000.0, 5000.0, 5000.0]


def test_too_many_steps_are_sampled_on_a_geometric_grid() -> None:
    xs, ys, exact = plan.step_curve(A, 2.0, 200_000.0, sizing_factor=1.0, max_steps=50)
    assert exact is False
    assert len(xs) == 50
    assert xs[0] == 2.0 and xs[-1] == 200_000.0
    assert ys[-1] == 20_000 * 1000.0


def test_one_option_has_no_crossover() -> None:
    assert plan.crossovers([A], 2.0, 200.0, 1.0) == ([], True)


def test_the_cost_just_above_a_breakpoint_adds_one_replica() -> None:
    # At exactly 20 req/s A needs 2 replicas ($2,000); anything above needs 3 ($3,000).
    assert A.cost(20.0, 1.0) == 2000.0
    assert A.cost_above(20.0, 1.0) == 3000.0
    assert A.cost_above(19.5, 1.0) == 2000.0
