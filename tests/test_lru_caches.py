"""The per-process caches (cachetools LRUCache underneath) keep their budgets and their order."""

from __future__ import annotations

from typing import Any

import polars as pl

from app.services.sweeps.memo import keep, recall, remember
from app.store.points import _PointCache
from app.store.samples import _FrameCache


def ttft_frame(rows: int) -> pl.DataFrame:
    return pl.DataFrame({"ttft_ms": [float(i) for i in range(rows)]})


def test_decoded_samples_are_kept_within_their_row_budget_least_recently_used_out() -> None:
    cache = _FrameCache(max_rows=10)
    a, b, c = ("db", 1, "h1", 0), ("db", 2, "h2", 0), ("db", 3, "h3", 0)
    cache.put(a, ttft_frame(4))
    cache.put(b, ttft_frame(4))
    assert cache.get(a) is not None  # a is now the most recently used
    cache.put(c, ttft_frame(4))  # 12 rows > 10: b goes
    assert cache.get(b) is None
    assert [cache.get(k).height for k in (a, c)] == [4, 4]  # type: ignore[union-attr]
    cache.put(("db", 4, "h4", 0), ttft_frame(11))  # larger than the whole budget: never kept
    assert cache.get(("db", 4, "h4", 0)) is None and cache.get(a) is not None
    cache.clear()
    assert cache.get(a) is None


def test_a_sweeps_memo_goes_with_its_rows_and_survives_a_second_put() -> None:
    cache = _PointCache(size=2)
    first = cache.put(("db", 1, "h1"), [{"point_id": 1}])
    first["kept"] = 1
    assert cache.put(("db", 1, "h1"), [{"point_id": 1}]) is first  # a racing reader's put
    cache.put(("db", 2, "h2"), [])
    assert cache.get(("db", 1, "h1")) == ([{"point_id": 1}], {"kept": 1})
    cache.put(("db", 3, "h3"), [])  # sweep 2 was used least recently
    assert cache.get(("db", 2, "h2")) is None
    assert cache.put(("db", 2, "h2"), []) == {}  # its memo went with it


def test_the_sweep_memo_keeps_the_last_sixteen_keys_of_each_kind() -> None:
    derived: dict[Any, Any] = {}
    calls: list[int] = []

    def value(i: int) -> int:
        calls.append(i)
        return i * 10

    for i in range(17):
        assert remember(derived, ("readoff", i), lambda i=i: value(i)) == i * 10
    assert remember(derived, ("sensitivity", 0), lambda: -1) == -1  # another kind, own budget
    assert recall(derived, ("readoff", 0)) is None  # the oldest of 17 went
    assert recall(derived, ("readoff", 16)) == 160
    assert remember(derived, ("readoff", 1), lambda: value(99)) == 10  # kept: not computed again
    assert calls == list(range(17))
    assert keep(derived, ("readoff", 1), 5) == 10  # what was kept first wins
    assert recall(derived, ("sensitivity", 0)) == -1
