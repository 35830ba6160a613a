"""Which vLLM runs make one sweep: runs of an upload are grouped by their configuration, less
the load (rate, concurrency and keys linked to them) and the digits of a label that only name
the load. The rules are stated in `vllm.py`'s docstring."""

from __future__ import annotations

import re
from typing import Any

from app.ingest.tools._vllm_common import DETAIL_KEYS, STAT_KEY, Record

LOAD_KEYS = ("request_rate", "max_concurrency")
# Keys that describe what was measured or are per run: never part of the sweep's configuration.
RUN_KEYS = frozenset(
    {
        "date",
        "duration",
        "completed",
        "failed",
        "num_prompts",
        "run_number",
        "_benchmark_name",
        "total_input_tokens",
        "total_output_tokens",
        "total_input_sequences",
        "request_throughput",
        "request_goodput",
        "request_goodput:",
        "output_throughput",
        "total_token_throughput",
        "input_sequence_throughput",
        "max_output_tokens_per_s",
        "max_concurrent_requests",
        "rtfx",
        "rps_change_events",
        *DETAIL_KEYS,
    }
)
RUN_PREFIXES = ("spec_decode_", "diffusion_", "probe_")
NAME_KEYS = ("model_id", "tokenizer_id", "backend", "endpoint_type")
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def sweep_groups(runs: list[Record]) -> list[list[Record]]:
    """The runs, grouped by configuration, in the order each configuration first appears."""
    linked = _load_linked_keys(runs)
    same = _same_text_keys(runs)
    groups: dict[tuple[Any, ...], list[Record]] = {}
    for rec in runs:
        groups.setdefault(_config_key(rec, linked, same), []).append(rec)
    return list(groups.values())


# `vllm bench sweep serve` names each configuration's folder by what it sweeps:
# `SERVE-max_num_seqs=8-BENCH-max_concurrency=16` (a setting of the server, then of the client).
_SWEEP_FOLDER = re.compile(r"(?:^|/)(?:SERVE|BENCH)-[^/]*")
_SETTING = re.compile(r"([A-Za-z_][\w.]*)=([^-/=]+)")


def swept_configs(groups: list[list[Record]]) -> list[str | None]:
    """Each group's swept settings as `key=value` pairs (sorted by key), or None: the settings
    its sweep folder names (but the load), and the numeric settings that differ between the
    groups of the upload (max_num_seqs 4 and 8). They name the sweep and are kept as its
    `config`, so two configurations are never told apart by "(2)"."""
    keys = [dict(_config_key(g[0], _load_linked_keys(g), _same_text_keys(g))) for g in groups]
    varying = {
        k
        for k in {k for key in keys for k in key}
        if len({repr(key.get(k)) for key in keys}) > 1
        and all(isinstance(key.get(k), float) for key in keys)
    }
    out: list[str | None] = []
    for group, key in zip(groups, keys, strict=True):
        settings = {k: _shown(key[k]) for k in varying}
        linked = _load_linked_keys(group)
        for folder in _SWEEP_FOLDER.findall(group[0].file):
            for name, value in _SETTING.findall(folder):
                if name not in LOAD_KEYS and name not in linked:
                    settings.setdefault(name, value)
        out.append(" ".join(f"{k}={v}" for k, v in sorted(settings.items())) or None)
    return out


def _shown(value: float) -> str:
    return f"{value:g}" if not value.is_integer() else str(int(value))


def _is_run_key(key: str) -> bool:
    return key in RUN_KEYS or key.startswith(RUN_PREFIXES) or bool(STAT_KEY.match(key))


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and (NUMBER.match(value.strip()) or value.strip() == "inf"):
        return float(value)
    return None


def _loads(rec: Record) -> set[float]:
    return {v for v in (_as_float(rec.data.get(k)) for k in LOAD_KEYS) if v is not None}


def _load_linked_keys(runs: list[Record]) -> set[str]:
    """Config keys that always equal the run's concurrency or rate (e.g. `max_num_seqs` linked
    to `max_concurrency` by `vllm bench sweep --link-vars`) and take several values."""
    linked = set()
    keys = {k for r in runs for k in r.data if not _is_run_key(k) and k not in LOAD_KEYS}
    for key in keys:
        values = [(r, _as_float(r.data[key])) for r in runs if key in r.data]
        distinct = {v for _, v in values}
        if len(distinct) < 2 or None in distinct:
            continue
        for load in LOAD_KEYS:
            if all(v == _as_float(r.data.get(load)) for r, v in values):
                linked.add(key)
    return linked


def _same_text_keys(runs: list[Record]) -> set[str]:
    """Text keys every run gives with one value: nothing to mask there (a label "h100x2" is one
    configuration, though the 2 req/s run's rate is a digit of it)."""
    values: dict[str, set[str]] = {}
    for rec in runs:
        for key, value in rec.data.items():
            if isinstance(value, str):
                values.setdefault(key, set()).add(value)
    given_by_all = {k for k in values if all(k in r.data for r in runs)}
    return {k for k in given_by_all if len(values[k]) == 1}


def _config_key(rec: Record, linked: set[str], same: set[str]) -> tuple[Any, ...]:
    loads = _loads(rec)
    items: list[tuple[str, Any]] = []
    for key, value in rec.data.items():
        if _is_run_key(key) or key in LOAD_KEYS or key in linked:
            continue
        if isinstance(value, list | dict):
            continue
        number = _as_float(value)
        if number is not None:
            items.append((key, number))
        elif (
            isinstance(value, str) and key not in NAME_KEYS and key not in same and "/" not in value
        ):
            masked = _DIGITS.sub(lambda m: "#" if float(m.group()) in loads else m.group(), value)
            items.append((key, masked))
        else:
            items.append((key, value))
    return tuple(sorted(items, key=lambda kv: kv[0]))
