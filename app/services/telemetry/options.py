"""What a production report is asked for (the frontier's sweep, statistic, basis, SLO, price)
and the frontier it reads windows against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.domain.pareto import Interpolation
from app.domain.point import Stat
from app.domain.prom_names import Measure

PERCENTILES = ("p50", "p90", "p99")


@dataclass(frozen=True)
class ReportOptions:
    sweep_id: int | None = None
    stat: Stat = "p50"
    basis: Literal["output", "total"] = "output"
    interpolation: Interpolation = "staircase"
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    e2el_ms: float | None = None
    attainment: float = 0.9
    min_efficiency: float | None = None
    usd_per_gpu_hour: float | None = None
    pricing: int | None = None  # a stored pricing profile, used before the inline price
    percentiles: tuple[str, ...] = PERCENTILES  # p50 … p99.9, as the read-off names them
    # An SLO preset's key, "custom" (the limits as given) or "none" (no limits); None: the
    # default preset, as every page has on a first visit.
    preset: str | None = "custom"

    def limits(self) -> dict[Measure, float]:
        given: dict[Measure, float | None] = {
            "ttft": self.ttft_ms,
            "tpot": self.tpot_ms,
            "e2el": self.e2el_ms,
        }
        return {k: v for k, v in given.items() if v is not None}


@dataclass(frozen=True)
class Frontier:
    sweep_id: int
    sweep: str
    xs: list[float]
    ys: list[float]
