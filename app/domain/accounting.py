"""Accounting modes: what a deployment's throughput is divided by (issue 37).

Per total GPU is the default. Disaggregated serving splits its GPUs into prefill and decode
workers, and averaging over all of them hides that split, so throughput can also be counted per
decode GPU, per prefill GPU, per node (GPUs per node from the catalog) or per kW (the catalog's
all-in provisioned kW per GPU, which already holds the host, network and facility share, i.e.
PUE). An aggregated deployment has every GPU doing both prefill and decode, so its figures are
the same in every per-GPU mode.

Pure math: imports only the standard library and app.domain (no web, database or settings).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from app.domain.numbers import finite_number

Accounting = Literal["gpu", "decode_gpu", "prefill_gpu", "node", "kw"]
ACCOUNTINGS: tuple[Accounting, ...] = ("gpu", "decode_gpu", "prefill_gpu", "node", "kw")
# The modes that count one side of a disaggregated deployment (each point's own split).
ROLE_MODES: tuple[Accounting, ...] = ("decode_gpu", "prefill_gpu")
# The unit a figure is counted per, as axis titles, tables and exports name it.
UNIT_WORDS: dict[Accounting, str] = {
    "gpu": "GPU",
    "decode_gpu": "decode GPU",
    "prefill_gpu": "prefill GPU",
    "node": "node",
    "kw": "kW",
}


@dataclass(frozen=True, slots=True)
class Deployment:
    """What accounting needs of one deployment: its GPUs, their split, and the catalog's
    GPUs per node and all-in kW per GPU of its hardware (None where not known)."""

    num_gpus: int
    num_prefill_gpus: int | None = None
    num_decode_gpus: int | None = None
    gpus_per_node: int | None = None
    allin_kw_per_gpu: float | None = None

    @property
    def disaggregated(self) -> bool:
        return self.num_prefill_gpus is not None or self.num_decode_gpus is not None


@dataclass(frozen=True, slots=True)
class Units:
    """How many accounting units a deployment has (None: unknown, with the reason)."""

    accounting: Accounting
    count: float | None
    reason: str | None = None


def units(accounting: Accounting, d: Deployment) -> Units:
    """The deployment's count of `accounting` units; unknown (never 0) when a number is missing.

    gpu: all GPUs. decode_gpu / prefill_gpu: the decode / prefill GPUs of a disaggregated
    deployment, all GPUs of an aggregated one. node: GPUs ÷ catalog GPUs per node (node
    equivalents, not rounded). kw: GPUs × catalog all-in kW per GPU.
    """
    if d.num_gpus <= 0:
        return Units(accounting, None, "the GPU count is not recorded")
    if accounting == "gpu":
        return Units(accounting, float(d.num_gpus))
    if accounting in ("decode_gpu", "prefill_gpu"):
        if not d.disaggregated:
            return Units(accounting, float(d.num_gpus))
        role = "decode" if accounting == "decode_gpu" else "prefill"
        count = d.num_decode_gpus if role == "decode" else d.num_prefill_gpus
        if count is None or count <= 0:
            return Units(accounting, None, f"disaggregated, but its {role} GPUs are not recorded")
        return Units(accounting, float(count))
    if accounting == "node":
        if d.gpus_per_node is None or d.gpus_per_node <= 0:
            return Units(accounting, None, "the catalog has no GPUs per node for its hardware")
        return Units(accounting, d.num_gpus / d.gpus_per_node)
    if accounting == "kw":
        kw = d.allin_kw_per_gpu
        if kw is None or not kw > 0 or not math.isfinite(kw):
            return Units(accounting, None, "the catalog has no all-in kW for its hardware")
        return Units(accounting, d.num_gpus * kw)
    raise ValueError(f"unknown accounting {accounting!r}; expected one of {ACCOUNTINGS}")


def per_unit(deployment_tok_s: float | None, count: float | None) -> float | None:
    """Deployment tok/s ÷ units; None if either is missing, not finite or units ≤ 0."""
    if deployment_tok_s is None or count is None or not math.isfinite(deployment_tok_s):
        return None
    if not count > 0 or not math.isfinite(count):
        return None
    return deployment_tok_s / count


def from_per_gpu(tok_s_per_gpu: float | None, num_gpus: int, count: float | None) -> float | None:
    """A per-total-GPU figure restated per unit: tok/s/GPU × GPUs ÷ units."""
    if tok_s_per_gpu is None or num_gpus <= 0:
        return None
    return per_unit(tok_s_per_gpu * num_gpus, count)


def split_label(num_prefill_gpus: int | None, num_decode_gpus: int | None) -> str | None:
    """The prefill:decode split as "8P + 8D"; None for an aggregated deployment ("?" for a
    side not recorded)."""
    if num_prefill_gpus is None and num_decode_gpus is None:
        return None
    p = "?" if num_prefill_gpus is None else str(num_prefill_gpus)
    d = "?" if num_decode_gpus is None else str(num_decode_gpus)
    return f"{p}P + {d}D"


# The split as sweep columns, and a point's own split in its extra fields where the split changes
# along a sweep (a canonical file's rows giving several). Keys of their own: an importer may keep
# the sweep's split in a point's extra fields too (vLLM's --metadata), which is not a point's own.
SPLIT_COLUMNS: tuple[str, str] = ("num_prefill_gpus", "num_decode_gpus")
POINT_SPLIT_KEYS: tuple[str, str] = ("point_num_prefill_gpus", "point_num_decode_gpus")
Split = tuple[int | None, int | None]


def point_split(extra: Mapping[str, Any]) -> Split | None:
    """(prefill GPUs, decode GPUs) a point's extra fields give; None when they give neither."""
    found = [_count(extra.get(key)) for key in POINT_SPLIT_KEYS]
    return None if found == [None, None] else (found[0], found[1])


def _count(value: object) -> int | None:
    number = finite_number(value)
    return int(number) if number is not None and number > 0 and number == int(number) else None


def split_of(own: Split | None, sweep: Split) -> Split:
    """A point's split: its own where it has one, else its sweep's."""
    return own if own is not None else sweep


def splits_label(splits: Iterable[Split]) -> str | None:
    """The split of a sweep's points: "8P + 8D" when they share one, "varies: 4P + 12D … 8P + 8D
    (3 splits)" when it changes along the sweep (fewest to most prefill GPUs); None when
    aggregated."""
    distinct = sorted(
        {s for s in splits if s != (None, None)}, key=lambda s: (s[0] or 0, s[1] or 0)
    )
    if not distinct:
        return None
    if len(distinct) == 1:
        return split_label(*distinct[0])
    first, last = split_label(*distinct[0]), split_label(*distinct[-1])
    return f"varies: {first} … {last} ({len(distinct)} splits)"


def axis_unit(accounting: Accounting) -> str:
    """ "tok/s per decode GPU" — the words every axis title and export column uses."""
    return f"tok/s per {UNIT_WORDS[accounting]}"


def short_unit(accounting: Accounting) -> str:
    """ "tok/s/decode GPU" for hovers and narrow cells."""
    return f"tok/s/{UNIT_WORDS[accounting]}"


def unknown_units_reason(counted: Units) -> str:
    return f"throughput per {UNIT_WORDS[counted.accounting]} unknown: {counted.reason}"


def per_total_gpu(value: float | None, num_gpus: int, counted: Units | None) -> float | None:
    """A per-unit figure back per total GPU (unchanged when counted per GPU)."""
    if counted is None or counted.accounting == "gpu" or value is None:
        return value
    if counted.count is None or num_gpus <= 0:
        return None
    return value * counted.count / num_gpus


def stored_splits_label(sweep: Split, extras: Iterable[Mapping[str, Any]]) -> str | None:
    """`splits_label` of points from their extra fields, each falling back to the sweep's."""
    return splits_label(split_of(point_split(e) if e else None, sweep) for e in extras)
