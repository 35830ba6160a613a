"""What a result's throughput is counted per, as its figures say it (app.domain.accounting)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.domain.accounting import UNIT_WORDS

if TYPE_CHECKING:  # analysis imports nothing from here: only the type is named
    from app.services.analysis import SweepAnalysis


def unit_words(result: SweepAnalysis) -> str:
    """What the result's throughput is counted per: "GPU", "decode GPU", "node", "kW"."""
    return UNIT_WORDS[result.units.accounting] if result.units else "GPU"


def gpus_per_unit(result: SweepAnalysis) -> float:
    """Total GPUs per accounting unit (1 per GPU): a per-GPU-hour price × this is the price of
    one unit-hour, so $/Mtok from per-unit throughput stays the same in every mode."""
    counted = result.units
    if counted is None or counted.count is None or not counted.count > 0:
        return 1.0
    return result.meta.num_gpus / counted.count
