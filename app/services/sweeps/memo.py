"""What a sweep keeps per process beside its points (`SweepPoints.derived`): figures computed
from points that never change, kept with them under the sweep's content hash.

`remember` keeps the last few of each kind (read-offs and sensitivity steps per SLO);
`check_values` keeps the stored statistics each percentile-mode check compares.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from cachetools import LRUCache

from app.domain.point import Metric, PointMetrics
from app.domain.sensitivity import point_values
from app.domain.verdict import Percentile

T = TypeVar("T")

_KEPT = 16  # SLOs remembered per sweep and kind of figure
# An LRUCache reorders itself on every read: threads serving one sweep take turns (never while
# computing, which may itself remember).
_lock = threading.Lock()


def keep(derived: dict[Any, Any], key: Any, value: T) -> T:
    """Keep `value` under `key` as `remember` would (what another thread kept first wins)."""
    return remember(derived, key, lambda: value)


def recall(derived: dict[Any, Any], key: Any) -> Any | None:
    """What `remember` keeps under `key`, or None."""
    memo: LRUCache[Any, Any] | None = derived.get(("memo", key[0]))
    if memo is None:
        return None
    with _lock:
        return memo.get(key)


def remember(derived: dict[Any, Any], key: Any, compute: Callable[[], T]) -> T:
    """`compute()` kept in a sweep's per-process memo under `key` (a kind name first), the last
    few keys of each kind only. A sweep's points and samples never change (the memo goes with
    its content hash), so a figure computed from them and everything else named in `key` stays
    right."""
    memo: LRUCache[Any, Any] = derived.setdefault(("memo", key[0]), LRUCache(_KEPT))
    with _lock:
        if key in memo:
            found: T = memo[key]
            return found
    computed = compute()
    with _lock:
        # What another thread kept meanwhile wins, so every caller sees one value.
        return memo.setdefault(key, computed)  # type: ignore[no-any-return]


def check_values(
    derived: dict[Any, Any], points: list[PointMetrics], metric: Metric, stat: Percentile
) -> list[float | None]:
    """The stored statistic a check of (metric, stat) compares at each point (None where the
    file has none). Stored statistics never change: kept per process per sweep (`derived`)."""
    key = ("check values", metric, stat)
    if key not in derived:
        derived[key] = point_values(points, metric, stat)
    column: list[float | None] = derived[key]
    return column
