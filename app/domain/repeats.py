"""Repeated runs of one load level: shown as a min–max spread, never averaged away.

Pure math: imports only the standard library and app.domain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Spread:
    """n runs at one load; min and max of interactivity (tok/s/user) and tok/s per GPU."""

    load: float
    runs: int
    indices: tuple[int, ...]
    x_min: float | None
    x_max: float | None
    y_min: float | None
    y_max: float | None


def spreads(
    loads: Sequence[float | None], xs: Sequence[float | None], ys: Sequence[float | None]
) -> list[Spread]:
    """One Spread per load level that was measured more than once, in load order."""
    groups: dict[float, list[int]] = {}
    for i, load in enumerate(loads):
        if load is not None:
            groups.setdefault(load, []).append(i)
    out = []
    for load in sorted(groups):
        idx = groups[load]
        if len(idx) < 2:
            continue
        gx = [x for i in idx if (x := xs[i]) is not None]
        gy = [y for i in idx if (y := ys[i]) is not None]
        out.append(
            Spread(
                load,
                len(idx),
                tuple(idx),
                min(gx) if gx else None,
                max(gx) if gx else None,
                min(gy) if gy else None,
                max(gy) if gy else None,
            )
        )
    return out
