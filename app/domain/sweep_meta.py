"""What the analysis knows of a sweep beside its points: the stored description, typed.

Pure data: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class SweepMeta:
    """A sweep's stored description; counts of GPUs and tokens as whole numbers.

    `isl` and `osl` are tokens per request (input / output), as the sweep columns name them."""

    id: int
    name: str
    hardware: str
    num_gpus: int
    model: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    precision: str | None = None
    spec_decode: str | None = None
    isl: int | None = None
    osl: int | None = None
    workload: str | None = None
    source_kind: str = "measured"
    measured_at: dt.date | None = None
    content_hash: str = ""
    # Disaggregated serving's split (None: aggregated) and speculative decoding's details.
    num_prefill_gpus: int | None = None
    num_decode_gpus: int | None = None
    draft_model: str | None = None
    num_spec_tokens: int | None = None
    # Which run measured it: the public record's bands group dated runs (issue 51).
    run_id: str | None = None
    run_url: str | None = None
    # Harness provenance (app.domain.provenance): who made the numbers; never in the analysis.
    harness: str | None = None
    harness_version: str | None = None
    provenance: str | None = None
    # The kind of traffic and the trace replayed (issue 49); None: not stated.
    scenario: str | None = None
    trace_dataset: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields by name (for what reads any sweep description: likeness, history)."""
        return {name: getattr(self, name) for name in SWEEP_META_FIELDS}


# The sweep columns the analysis reads, in order (the store selects exactly these).
SWEEP_META_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(SweepMeta))
