"""Cost per million tokens under rental or ownership pricing, tokens per MW, break-even API prices.

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.domain.bounds import number_problem

HOURS_PER_YEAR = 8760.0
HOURS_PER_MONTH = HOURS_PER_YEAR / 12  # 730 h, the colocation billing month
TOKENS_PER_MTOK = 1e6
SECONDS_PER_HOUR = 3600.0


def capital_recovery_factor(rate: float, years: float) -> float:
    """CRF = r(1+r)^n / ((1+r)^n − 1) per year; straight line 1/n when r = 0; n > 0, r > −1."""
    if not years > 0:
        raise ValueError(f"life must be > 0 years, got {years}")
    if not rate > -1:
        raise ValueError(f"cost of capital must be > −100 %, got {rate}")
    if rate == 0:
        return 1.0 / years
    growth = math.pow(1.0 + rate, years)
    return rate * growth / (growth - 1.0)


@dataclass(frozen=True)
class OwnershipInputs:
    """Per-GPU ownership parameters; cost_of_capital is a fraction (0.10 = 10 %), power in kW IT."""

    capex_usd: float
    life_years: float
    cost_of_capital: float
    power_kw: float
    pue: float
    usd_per_kwh: float
    colo_usd_per_kw_month: float = 0.0
    other_opex_pct_per_year: float = 0.0

    def __post_init__(self) -> None:
        for name in ("capex_usd", "power_kw", "pue", "usd_per_kwh", "colo_usd_per_kw_month"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be ≥ 0")
        if self.other_opex_pct_per_year < 0:
            raise ValueError("other_opex_pct_per_year must be ≥ 0")


@dataclass(frozen=True)
class HourlyCost:
    """Ownership cost of one GPU per hour, by component, in USD; total is their sum."""

    capital_usd_per_hour: float
    power_usd_per_hour: float
    colo_usd_per_hour: float
    opex_usd_per_hour: float
    total_usd_per_gpu_hour: float


def ownership_breakdown(inputs: OwnershipInputs) -> HourlyCost:
    """capex·CRF/8760 + kW·PUE·$/kWh + colo $/kW-month·kW/730 + opex %/yr·capex/8760, USD/GPU-h.

    Colocation is billed on IT kW (no PUE); PUE applies to the electricity bill only.
    """
    capital = (
        inputs.capex_usd
        * capital_recovery_factor(inputs.cost_of_capital, inputs.life_years)
        / HOURS_PER_YEAR
    )
    power = inputs.power_kw * inputs.pue * inputs.usd_per_kwh
    colo = inputs.colo_usd_per_kw_month * inputs.power_kw / HOURS_PER_MONTH
    opex = inputs.other_opex_pct_per_year / 100.0 * inputs.capex_usd / HOURS_PER_YEAR
    return HourlyCost(
        capital_usd_per_hour=capital,
        power_usd_per_hour=power,
        colo_usd_per_hour=colo,
        opex_usd_per_hour=opex,
        total_usd_per_gpu_hour=capital + power + colo + opex,
    )


def usd_per_useful_hour(usd_per_gpu_hour: float, utilization: float = 1.0) -> float | None:
    """Cost of one GPU-hour spent serving, hourly cost ÷ utilization; None when utilization is 0."""
    _check_utilization(utilization)
    if utilization <= 0:
        return None
    return usd_per_gpu_hour / utilization


def usd_per_mtok(
    usd_per_gpu_hour: float, tok_s_per_gpu: float | None, utilization: float = 1.0
) -> float | None:
    """$/Mtok = hourly cost·1e6 / (3600·tok/s/GPU·utilization); None if throughput or u is ≤ 0.

    Utilization is the share of paid hours spent serving at this throughput, in [0, 1].
    """
    _check_utilization(utilization)
    if tok_s_per_gpu is None or not tok_s_per_gpu > 0 or math.isinf(tok_s_per_gpu):
        return None
    if utilization <= 0:
        return None
    return usd_per_gpu_hour / (utilization * tok_s_per_gpu * SECONDS_PER_HOUR / TOKENS_PER_MTOK)


def tok_s_per_mw(tok_s_per_gpu: float | None, allin_kw: float) -> float | None:
    """Tok/s per MW of all-in power, tok/s/GPU·1000/kW; None if throughput is missing or kW ≤ 0."""
    if tok_s_per_gpu is None or tok_s_per_gpu < 0 or not allin_kw > 0:
        return None
    return tok_s_per_gpu * 1000.0 / allin_kw


def tokens_per_joule(tok_s: float | None, watts: float | None) -> float | None:
    """Tokens per joule = tok/s ÷ W (a watt is a joule per second); None if either is missing,
    not finite, or the power is ≤ 0. Both for the same GPUs: per GPU, or the deployment's."""
    if tok_s is None or watts is None or not math.isfinite(tok_s) or tok_s < 0:
        return None
    if not watts > 0 or not math.isfinite(watts):
        return None
    return tok_s / watts


def break_even_api_prices(
    usd_per_gpu_hour: float,
    input_tok_s_per_gpu: float,
    output_tok_s_per_gpu: float,
    output_to_input_ratio: float,
) -> tuple[float, float] | None:
    """API prices ($/Mtok in, $/Mtok out = k·in) whose revenue equals the hourly cost.

    p_in = C / (3600e-6·(tok_in + k·tok_out)); None when that weighted throughput is ≤ 0.
    """
    if input_tok_s_per_gpu < 0 or output_tok_s_per_gpu < 0 or output_to_input_ratio < 0:
        raise ValueError("throughputs and the price ratio must be ≥ 0")
    for value in (input_tok_s_per_gpu, output_tok_s_per_gpu, output_to_input_ratio):
        problem = number_problem(value)  # 5e-324 tok/s would make a price of infinity
        if problem:
            raise ValueError(problem)
    weighted = input_tok_s_per_gpu + output_to_input_ratio * output_tok_s_per_gpu
    if not weighted > 0:
        return None
    usd_per_mtok_in = usd_per_gpu_hour / (SECONDS_PER_HOUR / TOKENS_PER_MTOK * weighted)
    return usd_per_mtok_in, output_to_input_ratio * usd_per_mtok_in


def _check_utilization(utilization: float) -> None:
    """Reject utilization outside [0, 1] (a fraction of paid hours)."""
    if not 0.0 <= utilization <= 1.0:
        raise ValueError(f"utilization must be in [0, 1], got {utilization}")
