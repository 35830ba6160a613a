"""The warnings every imported sweep is checked for: no TPOT statistic, request samples that
count more output than the tool reported, measured lengths far from the configured ISL/OSL; and
notes that only repeat them, dropped before hashing."""

from __future__ import annotations

import polars as pl

from app.domain.lengths import check_lengths
from app.domain.phases import has_warmup, profiled_expr
from app.ingest.parsed import ParsedPoint, ParsedSweep, point_label

NO_TPOT_WARNING = (
    "no TPOT statistic in the file: the sweep has no interactivity axis, so it is not drawn on "
    "Pareto charts; read-offs can still use TTFT and E2EL limits"
)
# Samples may be a subset of the requests (guidellm keeps a reservoir sample), so their
# throughput may fall short of the reported one; exceeding it means they count extra requests.
SAMPLE_THROUGHPUT_TOLERANCE = 0.05


def sample_throughput_warnings(sweep: ParsedSweep) -> list[str]:
    """A warning per point whose samples produce more output tokens per second than reported.

    Samples' throughput = output tokens of the successful samples ÷ the point's duration_s,
    the same division per-request goodput makes; above the tool's own output_tok_s (beyond
    the tolerance) the samples include requests the aggregates leave out, and goodput and
    attainment from them would describe a different set of requests. When the samples are
    exactly the tool's counted set and some straddle its measurement window's edges (guidellm),
    the warning says so, and by how much counting them whole changes throughput, whatever the
    size: no warm-up is to blame.
    """
    warnings: list[str] = []
    if sweep.table_rows is not None:
        return warnings  # samples attach to the point list: a table-backed sweep has none
    for point in sweep.points:
        reported = point.values.get("output_tok_s")
        duration = point.values.get("duration_s")
        if not point.sample_count or not reported or not duration or duration <= 0:
            continue
        frame = point.samples_frame(any_int_width=True)
        # Summed as 64-bit: polars sums a 32-bit column in 32 bits, and 3 requests of a
        # billion tokens would wrap. Only that column is cast and filtered, not the frame.
        if has_warmup(frame):
            # Warm-up requests are not part of the measurement the aggregates describe.
            counted = pl.col("ok").fill_null(False) & profiled_expr()
            output = pl.col("output_len").cast(pl.Int64)
            tokens = frame.select(output.filter(counted).sum()).item()
        else:
            # A failed request's tokens are not counted (a null `ok` filters out too): on the
            # series, with no query.
            output_len = frame.get_column("output_len").cast(pl.Int64)
            tokens = output_len.filter(frame.get_column("ok")).sum()
        measured = float(tokens or 0) / duration
        straddling = _counted_window(point)
        if straddling:
            # The samples are the tool's own counted set: nothing from warm-up is in them, but
            # the requests straddling the window's edges bring their tokens made outside it.
            change = (measured / reported - 1) * 100
            side = "above" if change >= 0 else "below"
            warnings.append(
                f"point {point_label(point)}: its {point.sample_count} request samples are "
                "exactly the requests the tool counts (those overlapping its measurement "
                f"window); {straddling} of them straddle the window's edges and are counted "
                f"whole, so the samples give {measured:.4g} output tok/s over the "
                f"{duration:.4g} s window, {abs(change):.1f} % {side} the reported "
                f"{reported:.4g} tok/s; per-request goodput counts those requests whole too"
            )
            continue
        if measured > reported * (1 + SAMPLE_THROUGHPUT_TOLERANCE):
            excess = (measured / reported - 1) * 100
            warnings.append(
                f"point {point_label(point)}: its {point.sample_count} request samples give "
                f"{measured:.4g} output tok/s over the {duration:.4g} s run, {excess:.0f} % above "
                f"the reported {reported:.4g} tok/s; the samples include requests outside the "
                "measurement (warm-up or cool-down?), so per-request goodput and attainment "
                "from them describe more requests than the aggregates do"
            )
    return warnings


def _counted_window(point: ParsedPoint) -> int | None:
    """How many samples straddle the measurement window's edges, when the samples are exactly
    the requests the tool's aggregates count (guidellm: those overlapping its window, as many
    as its successful plus errored totals); None otherwise."""
    window = point.extra.get("samples_window")
    if not isinstance(window, dict) or not isinstance(window.get("straddling"), int):
        return None
    counted = (point.values.get("num_requests") or 0) + (point.values.get("num_failed") or 0)
    if window.get("kept") != point.sample_count or point.sample_count != counted:
        return None
    straddling: int = window["straddling"]
    return straddling


def length_warning(sweep: ParsedSweep) -> str | None:
    """The measured mean ISL/OSL beside the configured isl/osl when they differ by > 10 %."""
    rows = sweep.table_rows
    points = (
        rows.lengths()
        if rows is not None
        else [
            (p.values.get("input_len"), p.values.get("output_len"), p.values.get("num_requests"))
            for p in sweep.points
        ]
    )
    if not points:  # no lengths measured: nothing to compare
        return None
    return check_lengths(sweep.meta.get("isl"), sweep.meta.get("osl"), points).note


def import_warnings(sweep: ParsedSweep) -> list[str]:
    """Warnings every sweep gets checked for once its samples are attached."""
    warnings = sample_throughput_warnings(sweep)
    note = length_warning(sweep)
    if note:
        warnings.append(note)
    return warnings


def drop_warnings_from_notes(sweep: ParsedSweep) -> None:
    """Remove note lines that repeat one of the sweep's warnings.

    Storing appends the warnings to the notes, so an exported sweep brings them back in its
    notes; without this, re-importing it would double them and hash as a different sweep.
    """
    notes = sweep.meta.get("notes")
    if not isinstance(notes, str) or not sweep.warnings:
        return
    kept = [line for line in notes.split("\n") if line not in sweep.warnings]
    sweep.meta["notes"] = "\n".join(kept) or None
