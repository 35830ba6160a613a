"""Names of InferenceX sweeps that the configuration the name gives does not tell apart (issue
51 §5): CI `agg_bmk.json` rows carry no date or run id, so two sweeps of one model, hardware,
engine, precision, lengths and layout differ only in a setting the name leaves out (another
image, router, KV transfer, model prefix). Each such sweep gets the settings that differ added
to its name ("· image nightly-20260602", "· router kv-aware"), never a bare "(2)"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.ingest.parsed import ParsedSweep

# Told apart by these first (run provenance, then what a CI row varies most), then by any other
# configuration key that differs.
FIRST = ("run_id", "date", "image")


def tell_configs_apart(
    sweeps: Sequence[ParsedSweep], rows: Sequence[Mapping[str, Any]], keys: Sequence[str]
) -> None:
    """Sweeps named alike (each with its first row) get the `keys` whose values differ
    between them added to their names, in FIRST's order, then `keys`' order."""
    by_name: dict[str, list[tuple[ParsedSweep, Mapping[str, Any]]]] = {}
    for sweep, row in zip(sweeps, rows, strict=True):
        by_name.setdefault(sweep.name, []).append((sweep, row))
    ordered = [*FIRST, *(k for k in keys if k not in FIRST)]
    for alike in by_name.values():
        if len(alike) < 2:
            continue
        differing = [k for k in ordered if len({_shown(k, row.get(k)) for _, row in alike}) > 1]
        for sweep, row in alike:
            said = [f"{k.replace('_', ' ')} {_shown(k, row.get(k))}" for k in differing]
            sweep.meta["sweep"] = " · ".join([sweep.name, *said])


def _shown(key: str, value: Any) -> str:
    """A setting as a name shows it: an image by its tag (registry and digest left out)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "none"
    text = str(value).strip()
    if key == "image":
        text = text.split("@", 1)[0]
        text = text.rsplit(":", 1)[1] if ":" in text.rsplit("/", 1)[-1] else text
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    return text
