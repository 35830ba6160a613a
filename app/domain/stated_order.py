"""The order a file's own statistics must keep, wherever the file states them: min ≤ every
percentile ≤ max (rising with the percentile) and min ≤ mean ≤ max, for every metric a tool
writes as a statistics object ({"min", "avg", "p50", ..., "max"}: AIPerf, GenAI-Perf, guidellm,
inference-perf, llm-d) or as flat keys sharing a name (llmperf's "results_ttft_s_min" /
"results_ttft_s_quantiles_p25", vLLM's "median_ttft_ms" / "p99_ttft_ms").

The canonical latency columns are checked by app.domain.impossible; this reads what the file
kept beyond them. Tools spell percentiles three ways, each read as the percentile it means:
"p1" / "p99.9" (percent), "p0p1" / "p99p9" (llm-d: "p" for the point) and "p001" / "p999"
(guidellm: the quantile's digits, so a leading zero or three digits). What a run was asked to
do (its configuration) is not a measurement and is not read.

Pure: imports only the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from app.domain.impossible import Impossible
from app.domain.numbers import finite_number
from app.domain.stat_names import statistic_field

KIND_STATED = "stated statistics out of order"
# Relative slack for a statistic written with fewer digits than another (a mean of identical
# values rounding one ulp above their max is not a measurement error).
TOLERANCE = 1e-9
MAX_DEPTH = 64
_CONFIG_WORDS = ("config", "args", "arguments", "scenario", "parameters", "settings")
# InferenceX's "p90_intvty" is 1000 / p90 TPOT: a percentile of a latency, inverted, so its
# order runs the other way (its p99 is below its median); it is no distribution's own.
_INVERTED = ("intvty", "interactivity")
_PERCENT = re.compile(r"^p([0-9]{1,2}|100)(?:\.([0-9]+))?$")
_POINT = re.compile(r"^p([0-9]+)p([0-9]+)$")
_QUANTILE = re.compile(r"^p(0[0-9]+|[0-9]{3,})$")
_FLAT_SUFFIX = re.compile(
    r"^(?P<name>.+?)_(?:quantiles_)?(?P<stat>min|max|mean|avg|median|p[0-9][0-9p.]*)$"
)
_FLAT_PREFIX = re.compile(r"^(?P<stat>min|max|mean|avg|median|p[0-9][0-9p.]*)_(?P<name>.+)$")


def stat_rank(word: str) -> float | None:
    """Where a statistic's name sits in its metric's order (min -1, a percentile its percent,
    max 101), "mean" for a mean, None for anything else (std, mode, count)."""
    if word == "min":
        return -1.0
    if word == "max":
        return 101.0
    if word == "median":
        return 50.0
    if (match := _QUANTILE.match(word)) is not None and word != "p100":
        return float("0." + match[1]) * 100
    if (match := _PERCENT.match(word)) is not None:
        return float(f"{match[1]}.{match[2] or 0}")
    if (match := _POINT.match(word)) is not None:
        value = float(f"{match[1]}.{match[2]}")
        return value if value <= 100 else None
    return None


def stated_order_problems(doc: Mapping[str, Any]) -> list[Impossible]:
    """Every statistic out of order in `doc` (a point's extra fields, as nested as the file
    wrote them), each named by its dotted path."""
    found: list[Impossible] = []
    for path, stats in _groups(doc, "", 0):
        found += _order(path, stats)
    return found


def _groups(node: Any, path: str, depth: int) -> Iterator[tuple[str, dict[str, tuple[str, float]]]]:
    """(metric path, {statistic word: (field path, value)}) for every group of statistics."""
    if depth > MAX_DEPTH:
        return
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _groups(item, f"{path}[{i}]", depth + 1)
        return
    if isinstance(node, Mapping):
        yield from _mapping_groups(node, path, depth)


def _mapping_groups(
    node: Mapping[Any, Any], path: str, depth: int
) -> Iterator[tuple[str, dict[str, tuple[str, float]]]]:
    """_groups of one object: its nested values' groups, then its own statistics (`p50`,
    `mean`, ...) and its flat keys' (`ttft_p99`), each group of two or more."""
    own: dict[str, tuple[str, float]] = {}
    flat: dict[str, dict[str, tuple[str, float]]] = {}
    for key, value in node.items():
        if not isinstance(key, str):
            continue
        where = f"{path}.{key}" if path else key
        if isinstance(value, Mapping | list):
            if not any(word in key.lower() for word in _CONFIG_WORDS):
                yield from _groups(value, where, depth + 1)
            continue
        number = finite_number(value, text=False)
        if number is None:
            continue
        if _counted(key):
            own[key] = (where, number)
            continue
        if statistic_field(key) is not None:  # a latency column's twin: checked with them
            continue
        named = _flat_statistic(key)
        if named is not None:
            flat.setdefault(named[0], {})[named[1]] = (where, number)
    if len(own) >= 2:
        yield path, own
    for name, stats in flat.items():
        if len(stats) >= 2:
            yield (f"{path}.{name}" if path else name), stats


def _flat_statistic(key: str) -> tuple[str, str] | None:
    """(metric name, statistic word) of a flat key such as `ttft_p99` or `p99_ttft`, unless its
    metric is one where higher is better."""
    for pattern in (_FLAT_SUFFIX, _FLAT_PREFIX):
        match = pattern.match(key)
        if match is None or any(word in match["name"] for word in _INVERTED):
            continue
        if _counted(match["stat"]):
            return match["name"], match["stat"]
    return None


def _counted(word: str) -> bool:
    return word in ("mean", "avg") or stat_rank(word) is not None


def _order(metric: str, stats: dict[str, tuple[str, float]]) -> list[Impossible]:
    found: list[Impossible] = []
    ranked = sorted(
        (rank, word, field, value)
        for word, (field, value) in stats.items()
        if (rank := stat_rank(word)) is not None
    )
    # Each statistic against the one just below it: one message per break in the order.
    for below, item in zip(ranked, ranked[1:], strict=False):
        if item[0] > below[0] and _below(item[3], below[3]):
            found.append(
                Impossible(
                    item[2],
                    KIND_STATED,
                    f"{metric} {item[1]} {item[3]:g} is below its {below[1]} {below[3]:g} "
                    "(a higher statistic can never be lower)",
                )
            )
    low = next((s for s in ranked if s[1] == "min"), None)
    high = next((s for s in ranked if s[1] == "max"), None)
    for word in ("mean", "avg"):
        if word not in stats or low is None or high is None or _below(high[3], low[3]):
            continue
        field, mean = stats[word]
        if _below(mean, low[3]) or _below(high[3], mean):
            side = "below its min" if _below(mean, low[3]) else "above its max"
            bound = low[3] if side == "below its min" else high[3]
            found.append(
                Impossible(
                    field,
                    KIND_STATED,
                    f"{metric} {word} {mean:g} is {side} {bound:g} "
                    f"(a mean lies between min {low[3]:g} and max {high[3]:g})",
                )
            )
    return found


def _below(value: float, bound: float) -> bool:
    """`value` < `bound` by more than rounding."""
    return value < bound - TOLERANCE * max(abs(value), abs(bound))
