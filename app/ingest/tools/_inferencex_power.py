"""InferenceX's measured GPU power (`utils/aggregate_power.py`, power_metric_schema_version 2) as
the point's measured power and energy (issue 37; docs/reference/inferencex.md §1.3, §3.4).

`power_valid` 1: the board power of every GPU integrated over the benchmark window;
`avg_total_gpu_power_w` is all the deployment's GPUs together (`avg_power_w` per GPU) and
`total_gpu_energy_j` their energy. Multi-node rows add `prefill_`/`decode_gpu_energy_j` and
`prefill_`/`decode_avg_power_w` (per GPU of that role), used only where the totals are missing.
`power_valid` 0: the measurement failed its checks and the power fields are left out, so the
power is unknown for that reason (GPU_POWER_INVALID). Absent: the row carries no power. The
`joules_per_*_token` fields stay in extra as written (InferenceX's tok/s/MW counts input plus
output tokens).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.domain.covariates import GPU_ENERGY_J, GPU_POWER_INVALID, GPU_POWER_W


def power_covariates(
    data: Mapping[str, Any], total: int, prefill: int | None, decode: int | None
) -> dict[str, float]:
    """Measured power (W, all GPUs) and energy (J) of a processed row; the invalid mark where
    `power_valid` is 0; {} when the row carries no power."""
    valid = _valid(data.get("power_valid"))
    if valid is None:
        return {}
    if not valid:
        return {GPU_POWER_INVALID: 1.0}
    out: dict[str, float] = {}
    watts = _positive(data.get("avg_total_gpu_power_w"))
    per_gpu = _positive(data.get("avg_power_w"))
    p_w, d_w = (_positive(data.get(f"{r}_avg_power_w")) for r in ("prefill", "decode"))
    if watts is None and per_gpu is not None:
        watts = per_gpu * total
    if watts is None and p_w is not None and d_w is not None and prefill and decode:
        watts = p_w * prefill + d_w * decode
    if watts is not None:
        out[GPU_POWER_W] = watts
    energy = _positive(data.get("total_gpu_energy_j"))
    p_j, d_j = (_positive(data.get(f"{r}_gpu_energy_j")) for r in ("prefill", "decode"))
    if energy is None and p_j is not None and d_j is not None:
        energy = p_j + d_j
    if energy is not None:
        out[GPU_ENERGY_J] = energy
    return out


def _valid(value: Any) -> bool | None:
    """power_valid as written (1/0, true/false, "1"/"0"); None when absent or unreadable."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "0", "false"):
        return value.strip().lower() in ("1", "true")
    return None


def _positive(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number > 0 else None
