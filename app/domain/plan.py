"""Capacity planning: from demand at an SLO to replicas, GPUs, $/month, power and crossovers.

Pure math: imports only the standard library (no web, database or settings modules).

Conventions (shown on /metrics):
- the demand given is the average; capacity is sized for peak = average × peak_to_average;
- replicas = ⌈peak × (1 + headroom) ÷ goodput per replica⌉, demand and goodput in the same unit;
- a replica is one whole deployment of the sweep (all GPUs, prefill + decode if disaggregated);
- a month is 730 hours and every GPU is paid for every hour, busy or not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.domain.cost import HOURS_PER_MONTH, SECONDS_PER_HOUR, TOKENS_PER_MTOK
from app.domain.metrics import Basis

DemandUnit = Literal["requests_per_s", "output_tok_s", "tokens_per_day", "concurrent_sessions"]
DEMAND_UNITS: tuple[DemandUnit, ...] = (
    "requests_per_s",
    "output_tok_s",
    "tokens_per_day",
    # Agents (issue 49): sized from the most concurrent sessions whose session attainment meets
    # the target (app.domain.sessions.agents_at_slo), not from request throughput.
    "concurrent_sessions",
)
Status = Literal["pass", "fail", "unknown"]
SECONDS_PER_DAY = 86_400.0
KW_PER_MW = 1000.0
# Demand ÷ capacity may land a hair above an integer through rounding (12 × 1.2 ÷ 4.8);
# a relative slack this small never adds a real replica.
CEIL_SLACK = 1e-9
CHART_LOW_MULTIPLE = 0.1
CHART_HIGH_MULTIPLE = 10.0
MAX_EXACT_BREAKPOINTS = 20_000  # beyond this, crossovers are searched on a fine geometric grid
GRID_POINTS = 2_000


@dataclass(frozen=True)
class Demand:
    """Average demand in `unit`; peak = average × peak_to_average; headroom is kept free."""

    unit: DemandUnit
    average: float
    peak_to_average: float = 1.0
    headroom: float = 0.0

    def __post_init__(self) -> None:
        if self.unit not in DEMAND_UNITS:
            raise ValueError(f"demand unit must be one of {', '.join(DEMAND_UNITS)}")
        if not (math.isfinite(self.average) and self.average > 0):
            raise ValueError(f"{self.unit} must be a finite number > 0, got {self.average}")
        if not (math.isfinite(self.peak_to_average) and self.peak_to_average >= 1):
            raise ValueError(f"peak_to_average must be ≥ 1, got {self.peak_to_average}")
        if not (math.isfinite(self.headroom) and self.headroom >= 0):
            raise ValueError(f"headroom must be ≥ 0, got {self.headroom}")

    @property
    def peak(self) -> float:
        return self.average * self.peak_to_average

    @property
    def sizing_factor(self) -> float:
        """Capacity needed per unit of average demand: peak_to_average × (1 + headroom)."""
        return self.peak_to_average * (1.0 + self.headroom)


@dataclass(frozen=True)
class RequestShape:
    """Measured mean tokens per request at the operating point (None when not measured)."""

    input_tokens: float | None
    output_tokens: float | None

    def tokens(self, basis: Basis) -> float | None:
        """Tokens per request on a token basis: output, input, or total (input + output)."""
        if basis == "output":
            return self.output_tokens
        if basis == "input":
            return self.input_tokens
        if self.input_tokens is None or self.output_tokens is None:
            return None
        return self.input_tokens + self.output_tokens


def unit_per_request(unit: DemandUnit, shape: RequestShape) -> float | None:
    """How much of `unit` one request per second is: 1, its output tokens, or its tokens × 86,400.

    tokens_per_day counts input + output tokens; None when the lengths it needs were not measured
    (and for concurrent sessions, which are not a rate of requests).
    """
    if unit == "requests_per_s":
        return 1.0
    if unit == "concurrent_sessions":
        return None
    if unit == "output_tok_s":
        out = shape.output_tokens
        return out if out is not None and out > 0 else None
    total = shape.tokens("total")
    return total * SECONDS_PER_DAY if total is not None and total > 0 else None


def missing_lengths(unit: DemandUnit) -> str:
    """Why a demand in `unit` cannot be converted to requests/s for a sweep."""
    need = "output length" if unit == "output_tok_s" else "input and output lengths"
    return f"{need} per request not measured at the operating point, needed for {unit} demand"


def ceil_replicas(ratio: float) -> int:
    """⌈ratio⌉ with a relative slack of 1e-9, so exact multiples stay exact; 0 for ratio ≤ 0."""
    if ratio <= 0:
        return 0
    return max(0, math.ceil(ratio * (1.0 - CEIL_SLACK)))


@dataclass(frozen=True)
class Sizing:
    """Replicas and GPUs for a demand, and the share of the fleet's goodput it uses."""

    replicas: int
    gpus: int
    utilization_peak: float
    utilization_average: float


def size_fleet(demand: Demand, goodput_per_replica: float, gpus_per_replica: int) -> Sizing:
    """replicas = ⌈peak × (1 + headroom) ÷ goodput⌉ (same unit); utilisation = load ÷ capacity.

    Utilisation at peak is at most 1 ÷ (1 + headroom); at average it is peak's ÷ peak_to_average.
    """
    if not (math.isfinite(goodput_per_replica) and goodput_per_replica > 0):
        raise ValueError(f"goodput per replica must be > 0, got {goodput_per_replica}")
    if gpus_per_replica <= 0:
        raise ValueError(f"a replica needs ≥ 1 GPU, got {gpus_per_replica}")
    replicas = ceil_replicas(demand.peak * (1.0 + demand.headroom) / goodput_per_replica)
    capacity = replicas * goodput_per_replica
    return Sizing(
        replicas=replicas,
        gpus=replicas * gpus_per_replica,
        utilization_peak=demand.peak / capacity,
        utilization_average=demand.average / capacity,
    )


def usd_per_month(usd_per_gpu_hour: float, gpus: int) -> float:
    """Every GPU paid for every hour of a 730-hour month: $/GPU-hour × GPUs × 730."""
    return usd_per_gpu_hour * gpus * HOURS_PER_MONTH


def fleet_kw(allin_kw_per_gpu: float, gpus: int) -> float:
    """Provisioned all-in power of the fleet in kW (catalog kW per GPU × GPUs)."""
    return allin_kw_per_gpu * gpus


def mwh_per_month(kw: float) -> float:
    """Energy of a month at that power: kW × 730 h ÷ 1000."""
    return kw * HOURS_PER_MONTH / KW_PER_MW


def usd_per_mtok_at_average(monthly_usd: float, average_tok_s: float) -> float | None:
    """Effective $/Mtok = $/month ÷ (average tok/s × 3600 × 730 ÷ 10⁶); None at zero load."""
    if not average_tok_s > 0:
        return None
    mtok_per_month = average_tok_s * SECONDS_PER_HOUR * HOURS_PER_MONTH / TOKENS_PER_MTOK
    return monthly_usd / mtok_per_month


# ---- $/month against demand: step lines and where the cheapest option changes -------------


@dataclass(frozen=True)
class StepOption:
    """One option on the demand axis: replicas of `goodput_per_replica` at a monthly price each."""

    key: str
    goodput_per_replica: float  # in the demand unit
    usd_per_month_per_replica: float

    def replicas(self, average: float, sizing_factor: float) -> int:
        return ceil_replicas(average * sizing_factor / self.goodput_per_replica)

    def cost(self, average: float, sizing_factor: float) -> float:
        return self.replicas(average, sizing_factor) * self.usd_per_month_per_replica

    def cost_above(self, average: float, sizing_factor: float) -> float:
        """$/month for a demand just above `average` (one more replica at a breakpoint)."""
        ratio = average * sizing_factor / self.goodput_per_replica
        return (math.floor(ratio * (1.0 + CEIL_SLACK)) + 1) * self.usd_per_month_per_replica

    def breakpoint(self, replicas: int, sizing_factor: float) -> float:
        """The largest average demand `replicas` replicas serve; one more replica above it."""
        return replicas * self.goodput_per_replica / sizing_factor


@dataclass(frozen=True)
class Crossover:
    """Above `demand` (average, demand unit), `to_key` is cheapest instead of `from_key`."""

    demand: float
    from_key: str
    to_key: str


def demand_range(average: float) -> tuple[float, float]:
    """The chart's demand axis: 0.1× to 10× the given average demand."""
    return average * CHART_LOW_MULTIPLE, average * CHART_HIGH_MULTIPLE


def step_curve(
    option: StepOption, low: float, high: float, sizing_factor: float, max_steps: int = 250
) -> tuple[list[float], list[float], bool]:
    """Demands and $/month for an 'hv' step line from low to high; exact unless too many steps.

    Each x is where a cost level starts (just above a breakpoint); the last x is `high`.
    Returns (xs, ys, exact); with more than max_steps steps it samples a geometric grid.
    """
    first = option.replicas(low, sizing_factor)
    last = option.replicas(high, sizing_factor)
    if last - first <= max_steps:
        xs, ys = [low], [first * option.usd_per_month_per_replica]
        for k in range(first, last):
            xs.append(option.breakpoint(k, sizing_factor))
            ys.append((k + 1) * option.usd_per_month_per_replica)
        xs.append(high)
        ys.append(last * option.usd_per_month_per_replica)
        return xs, ys, True
    grid = geometric_grid(low, high, max_steps)
    return grid, [option.cost(d, sizing_factor) for d in grid], False


def geometric_grid(low: float, high: float, n: int) -> list[float]:
    """n demands spaced evenly on a log scale from low to high inclusive."""
    ratio = (high / low) ** (1.0 / (n - 1))
    return [low * ratio**i for i in range(n - 1)] + [high]


def crossovers(
    options: Sequence[StepOption], low: float, high: float, sizing_factor: float
) -> tuple[list[Crossover], bool]:
    """Where the cheapest option changes between low and high; (crossovers, exact).

    Costs are constant on (b_j, b_{j+1}] between consecutive breakpoints of all options, so the
    cheapest is decided at each interval's right end; a tie keeps the option that was cheapest.
    Exact up to MAX_EXACT_BREAKPOINTS breakpoints, else on a geometric grid (approximate).
    """
    if len(options) < 2:
        return [], True
    count = sum(o.replicas(high, sizing_factor) - o.replicas(low, sizing_factor) for o in options)
    exact = count <= MAX_EXACT_BREAKPOINTS
    if exact:
        edges = sorted(
            {
                o.breakpoint(k, sizing_factor)
                for o in options
                for k in range(o.replicas(low, sizing_factor), o.replicas(high, sizing_factor))
            }
            | {high}
        )
        edges = [e for e in edges if low <= e <= high]
    else:
        edges = geometric_grid(low, high, GRID_POINTS)
    found: list[Crossover] = []
    current = _cheapest(options, low, sizing_factor, None)
    previous_edge = low
    for edge in edges:
        best = _cheapest(options, edge, sizing_factor, current)
        if best != current:
            found.append(Crossover(previous_edge, options[current].key, options[best].key))
            current = best
        previous_edge = edge
    return found, exact


def _cheapest(
    options: Sequence[StepOption], average: float, sizing_factor: float, keep: int | None
) -> int:
    costs = [o.cost(average, sizing_factor) for o in options]
    low = min(costs)
    if keep is not None and math.isclose(costs[keep], low, rel_tol=1e-12):
        return keep
    return costs.index(low)
