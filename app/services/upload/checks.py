"""What the upload page checks and shows beside each sweep's details: hardware that is not in
the catalog needs "keep as typed", the latency percentiles each file stores, and the split a
sweep marked disaggregated needs."""

from __future__ import annotations

from app.ingest import IngestError, ParsedSweep, RowError, missing_field
from app.ingest.errors import FIELD_SOURCE
from app.store.catalog import HardwareMatch

# The latency percentiles a preview shows: those each sweep's file stores, no empty columns.
PREVIEW_LATENCIES: tuple[str, ...] = ("ttft", "tpot")
PREVIEW_PERCENTILES: tuple[str, ...] = ("p50", "p90", "p95", "p99")


def sweep_source(index: int, sweep: ParsedSweep) -> str:
    """How a message names one sweep of an upload."""
    return f"sweep {index + 1} ({sweep.source_file})"


def hardware_unchosen(
    sweeps: list[ParsedSweep],
    matches: list[HardwareMatch | None],
    keep: frozenset[int] | None,
    keep_every: bool,
) -> list[RowError]:
    """On the page, hardware that is not in the catalog is stored only when "keep as typed" is
    ticked (for its sweep or for all): each other one is an error naming the sweep and field."""
    if keep is None or keep_every:
        return []
    errors = []
    for i, (sweep, match) in enumerate(zip(sweeps, matches, strict=True)):
        if match is None or match.key is not None or i in keep:
            continue
        near = f"nearest: {', '.join(match.nearest)}" if match.nearest else "near no catalog key"
        errors.append(
            RowError(
                sweep_source(i, sweep),
                f"{match.typed!r} is not in the hardware catalog ({near}): type a catalog key, "
                "or tick “keep as typed” to store it as typed, with no catalog price, power or "
                "physics limit",
                column="hardware",
                field="hardware",
            )
        )
    return errors


def stored_percentiles(sweep: ParsedSweep) -> dict[str, list[str]]:
    """For TTFT and TPOT, the percentile columns some point of the sweep has a value in (a
    vLLM file run with --metric-percentiles 50,95,99: p50, p95, p99), in rising order."""
    points = [p.values for p in sweep.points]
    return {
        metric: [
            name
            for stat in PREVIEW_PERCENTILES
            if any(v.get(name := f"{metric}_{stat}_ms") is not None for v in points)
        ]
        for metric in PREVIEW_LATENCIES
    }


# The API's mark of a disaggregated upload ("disaggregated=true"): every sweep then needs its
# prefill and decode GPUs, from its file or the form, as the upload page asks (issue 37).
DISAGGREGATED_FIELD = "disaggregated"
_YES = frozenset({"1", "true", "yes", "on"})
_NO = frozenset({"", "0", "false", "no", "off"})


def disaggregated_flag(raw: str | None, name: str = DISAGGREGATED_FIELD) -> bool:
    """Whether the upload is marked disaggregated (or the flag `name` is set); a value that is
    not yes or no is refused, naming the field."""
    value = (raw or "").strip().lower()
    if value in _YES or value in _NO:
        return value in _YES
    message = f"{raw!r} is not true or false"
    raise IngestError([RowError(FIELD_SOURCE, message, field=name)])


def split_missing(sweeps: list[ParsedSweep], fields: tuple[str, ...]) -> list[RowError]:
    """An error per sweep marked disaggregated that still lacks one of `fields` (its prefill or
    decode GPUs), naming the sweep and the field."""
    return [
        missing_field(sweep_source(i, sweep), key)
        for i, sweep in enumerate(sweeps)
        for key in sweep.missing_meta(fields)
    ]
