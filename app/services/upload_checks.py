"""What the upload page checks and shows beside each sweep's details: hardware that is not in
the catalog needs "keep as typed", and the latency percentiles each file stores."""

from __future__ import annotations

from app.ingest import ParsedSweep, RowError
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
