"""Explore's answer strip: each selected sweep's verdict, goodput at the SLO and $/Mtok, in the
order a reader scans them. It reads the very read-off and price cells the table shows (never a
figure of its own); only the order and how many rows show before "more" are decided here."""

from __future__ import annotations

from collections.abc import Sequence

from app.services.analysis import SweepAnalysis
from app.services.readoff.price_columns import PriceColumn

SHOWN_FIRST = 5  # rows before "N more": the first viewport holds them at 1280×720 and 390×844


def answer_order(results: Sequence[SweepAnalysis]) -> list[SweepAnalysis]:
    """Highest goodput at the SLO first, a settled pass above an unsettled (borderline) one;
    sweeps without one (unknown, or none meets it) after, each group in the selection's order
    (the sort is stable)."""
    return sorted(
        results,
        key=lambda r: (
            r.readoff.goodput_tok_s_per_gpu is None,
            r.readoff.shown_status != "pass",
            -(r.readoff.goodput_tok_s_per_gpu or 0.0),
        ),
    )


def strip_column(columns: Sequence[PriceColumn]) -> int | None:
    """The price column the strip reads: the user's own $/GPU-hour when given (what they typed
    is the price they asked about), else the first column; None without any price."""
    if not columns:
        return None
    return next((i for i, c in enumerate(columns) if c.inline), 0)
