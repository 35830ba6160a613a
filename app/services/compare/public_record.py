"""Your sweeps against the public record (issue 51): public bands of the Compare selection.

The selection's public sweeps (source kind "public" with a measured date: the InferenceX read
API's and dump's runs) group into bands, one per configuration (its name without the date and
run id, hardware, model, engine, precision, speculative decoding, ISL/OSL and GPUs; the image
may change from date to date, as the record's nightly images do). Each of your sweeps (the
selection's others) is set against each band at your SLO by `app.domain.public_band`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.domain.likeness import Likeness, between
from app.domain.public_band import BandComparison, DatedRun, compare_to_band
from app.schemas.answers.typed.common import PlotlyFigureDict
from app.schemas.answers.typed.public_record import (
    AgainstPublicOutDict,
    PublicRunOutDict,
    PublicSweepOutDict,
)
from app.services.analysis import SweepAnalysis
from app.services.sweeps.likeness import differences_json

RULE = (
    "yours ÷ the band's median goodput; interval from your low end ÷ the band's highest date "
    "to your high end ÷ the band's lowest date (your own interval combined with the public "
    "run-to-run spread)"
)


@dataclass(frozen=True)
class PublicBand:
    """One configuration's dated public runs in the selection."""

    name: str
    runs: tuple[SweepAnalysis, ...]


@dataclass(frozen=True)
class AgainstPublic:
    """One of your sweeps (None: none selected) against one public band."""

    band: PublicBand
    yours: SweepAnalysis | None
    comparison: BandComparison
    likeness: Likeness


def is_public_run(result: SweepAnalysis) -> bool:
    return result.meta.source_kind == "public" and result.meta.measured_at is not None


def band_name(result: SweepAnalysis) -> str:
    """The run's name without its date and run id (the importer appends them)."""
    name, when = result.meta.name, result.meta.measured_at
    cut = name.find(f" · {when}") if when is not None else -1
    return name[:cut] if cut > 0 else name


def _band_key(result: SweepAnalysis) -> tuple[Any, ...]:
    m = result.meta
    return (
        band_name(result),
        m.hardware,
        m.model,
        m.engine,
        m.precision,
        m.spec_decode,
        m.isl,
        m.osl,
        m.num_gpus,
        m.num_prefill_gpus,
        m.num_decode_gpus,
    )


def public_bands(results: list[SweepAnalysis]) -> list[PublicBand]:
    groups: dict[tuple[Any, ...], list[SweepAnalysis]] = {}
    for result in results:
        if is_public_run(result):
            groups.setdefault(_band_key(result), []).append(result)
    return [
        PublicBand(band_name(runs[0]), tuple(sorted(runs, key=_when))) for runs in groups.values()
    ]


def _when(result: SweepAnalysis) -> tuple[Any, ...]:
    return (result.meta.measured_at, result.meta.run_id or "")


def _dated(result: SweepAnalysis) -> DatedRun:
    readoff = result.readoff
    return DatedRun(
        sweep_id=result.meta.id,
        name=result.meta.name,
        measured_at=result.meta.measured_at,
        run_id=result.meta.run_id,
        goodput_tok_s_per_gpu=readoff.goodput_tok_s_per_gpu,
        reason=readoff.reason
        if readoff.goodput_tok_s_per_gpu is None
        else ("no point meets the SLO" if readoff.goodput_tok_s_per_gpu <= 0 else None),
        run_url=result.meta.run_url,
    )


def against_public(results: list[SweepAnalysis]) -> list[AgainstPublic] | None:
    """Every (your sweep, public band) of the selection; None when it holds no public run."""
    bands = public_bands(results)
    if not bands:
        return None
    yours: list[SweepAnalysis | None] = [r for r in results if not is_public_run(r)] or [None]
    out = []
    for mine in yours:
        for band in bands:
            interval = None if mine is None or mine.intervals is None else mine.intervals
            ci = None if interval is None else interval.goodput_tok_s_per_gpu
            comparison = compare_to_band(
                None if mine is None else mine.readoff.goodput_tok_s_per_gpu,
                None if ci is None or not ci.known else ci.low,
                None if ci is None or not ci.known else ci.high,
                [_dated(r) for r in band.runs],
            )
            if mine is None and comparison.counted:
                comparison = _without_yours(comparison)
            latest = band.runs[-1].meta
            likeness = (
                Likeness(()) if mine is None else between(mine.meta.as_dict(), latest.as_dict())
            )
            out.append(AgainstPublic(band, mine, comparison, likeness))
    return out


def _without_yours(c: BandComparison) -> BandComparison:
    return replace(c, reason="tick one of your own sweeps beside the public runs")


def _run_json(run: DatedRun, ratio: float | None) -> PublicRunOutDict:
    return {
        "sweep_id": run.sweep_id,
        "name": run.name,
        "date": None if run.measured_at is None else run.measured_at.isoformat(),
        "run_id": run.run_id,
        "run_url": run.run_url,
        "goodput_tok_s_per_gpu": run.goodput_tok_s_per_gpu,
        "reason": run.reason,
        "ratio": ratio,
    }


def against_public_json(
    found: list[AgainstPublic] | None, figures: list[PlotlyFigureDict]
) -> list[AgainstPublicOutDict] | None:
    """/api/compare's `public_record` (each with its chart): null when the selection holds no
    public run."""
    if found is None:
        return None
    out: list[AgainstPublicOutDict] = []
    for item, figure in zip(found, figures, strict=True):
        c = item.comparison
        pick: PublicSweepOutDict | None = (
            {"sweep_id": item.yours.meta.id, "name": item.yours.meta.name} if item.yours else None
        )
        out.append(
            {
                "yours": pick,
                "yours_goodput_tok_s_per_gpu": None
                if item.yours is None
                else item.yours.readoff.goodput_tok_s_per_gpu,
                "band": {
                    "name": item.band.name,
                    "dates": len({r.measured_at for r in c.counted}),
                    "runs": [_run_json(r, x) for r, x in zip(c.runs, c.per_run, strict=True)],
                    "median_tok_s_per_gpu": c.median_tok_s_per_gpu,
                    "low_tok_s_per_gpu": c.low_tok_s_per_gpu,
                    "high_tok_s_per_gpu": c.high_tok_s_per_gpu,
                    "spread": c.spread,
                    "best_date": None if c.best is None else _date(c.best),
                    "latest_date": None if c.latest is None else _date(c.latest),
                    "best_is_earlier": c.best_is_earlier,
                    "best_over_latest": c.best_over_latest,
                },
                "ratio": c.ratio,
                "ratio_low": c.ratio_low,
                "ratio_high": c.ratio_high,
                "reason": c.reason,
                "rule": RULE,
                "differences": differences_json(item.likeness),
                "figure": figure,
            }
        )
    return out


def _date(run: DatedRun) -> str | None:
    return None if run.measured_at is None else run.measured_at.isoformat()
