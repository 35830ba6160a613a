"""What a counter and a histogram counted between two scrapes: their increases, a reset counted
from zero after it (as Prometheus's rate() and increase() count it, the loss noted), a
histogram reset as a whole so its buckets stay cumulative.

Pure: standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from app.domain.numbers import fmt_number
from app.domain.prom_histogram import Histogram, HistogramError, histogram_of
from app.domain.prom_text import Labels

Key = tuple[str, Labels]


class WindowError(ValueError):
    """The scrapes cannot make a window; the message says why."""


def le_ms(text: str) -> float:
    """A bucket's `le` (seconds, "+Inf") as ms, rounded so 0.3 s is 300 ms exactly."""
    value = float(text)
    if math.isnan(value):  # a bound of NaN sorts nowhere: no bucket can be read from it
        raise ValueError(f"le={text!r} is not a number")
    return value if math.isinf(value) else round(value * 1000, 9)


def shown(labels: Labels) -> str:
    return "{" + ", ".join(f'{k}="{v}"' for k, v in labels) + "}"


def _same_series(name: str, a: Iterable[Key], b: Iterable[Key]) -> None:
    left = {k[1] for k in a if k[0] == name}
    right = {k[1] for k in b if k[0] == name}
    if left != right:
        odd = sorted(left ^ right)[0]
        raise WindowError(
            f"mixed label sets: {name}{shown(odd)} is in one scrape only; "
            "choose a selector that keeps the same series in every scrape"
        )


def counter_increase(
    name: str, a: Mapping[Key, float], b: Mapping[Key, float], notes: list[str]
) -> float:
    _same_series(name, a, b)
    total = 0.0
    for key, after in b.items():
        if key[0] != name:
            continue
        before = a[key]
        if after < before:
            notes.append(
                f"{name}{shown(key[1])} was reset (it went from {fmt_number(before)} to "
                f"{fmt_number(after)}); counted from zero after the reset, as Prometheus's "
                "rate() counts it"
            )
            total += after
        else:
            total += after - before
    return total


def _without_le(labels: Labels) -> Labels:
    return tuple(p for p in labels if p[0] != "le")


def histogram_increase(
    name: str, a: Mapping[Key, float], b: Mapping[Key, float], notes: list[str]
) -> tuple[Histogram, float]:
    """The summed bucket increases of one histogram (over its label sets) and its count's."""
    bucket = f"{name}_bucket"
    _same_series(bucket, a, b)
    groups: dict[Labels, dict[float, tuple[float, float]]] = {}
    for key, after in b.items():
        if key[0] != bucket:
            continue
        le = dict(key[1]).get("le")
        if le is None:
            raise WindowError(f"{bucket}{shown(key[1])} has no le label")
        try:
            bound = le_ms(le)
        except ValueError:
            raise WindowError(f"{bucket}: le={le!r} is not a number") from None
        groups.setdefault(_without_le(key[1]), {})[bound] = (a[key], after)
    if not groups:
        raise WindowError(f"missing buckets: {name} has no _bucket series")
    shapes = {tuple(sorted(g)) for g in groups.values()}
    if len(shapes) > 1:
        raise WindowError(f"missing buckets: the series of {name} have different bucket bounds")
    summed: dict[float, float] = {}
    sums = _sums(name, a, b)
    total_sum: float | None = 0.0
    for labels, pairs in groups.items():
        reset = any(after < before for before, after in pairs.values())
        if reset:
            notes.append(
                f"{name}{shown(labels)} was reset; its buckets are counted from zero after the "
                "reset, as Prometheus's rate() counts them"
            )
        for bound, (before, after) in pairs.items():
            summed[bound] = summed.get(bound, 0.0) + (after if reset else after - before)
        pair = sums.get(labels)
        if total_sum is None or pair is None or (not reset and pair[1] < pair[0]):
            total_sum = None  # no _sum, or one that went down while its buckets did not
        else:
            total_sum += pair[1] if reset else pair[1] - pair[0]
    try:
        hist = histogram_of(summed, name, None if total_sum is None else total_sum * 1000)
    except HistogramError as exc:
        raise WindowError(f"missing buckets: {exc}") from None
    return hist, hist.total


def _sums(
    name: str, a: Mapping[Key, float], b: Mapping[Key, float]
) -> dict[Labels, tuple[float, float]]:
    """{label set: (_sum before, _sum after)} (seconds) for the series in both scrapes."""
    series = f"{name}_sum"
    return {key[1]: (a[key], after) for key, after in b.items() if key[0] == series and key in a}
