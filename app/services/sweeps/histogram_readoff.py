"""A sweep page's SLO attainment read off the latency histograms its file kept (issue 51), at
the default SLO (the Chat (interactive) preset, as Explore's first visit): per point, the share
of requests under each limit and under every limit at once, as bounds. Any other SLO is
/api/readoff's (its `histogram_attainment`)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.domain.histogram_attainment import (
    HistogramAttainment,
    bounds_text,
    histogram_attainment,
    point_histograms,
)
from app.domain.verdict import Slo
from app.schemas.answers.typed.histograms import (
    HistogramAttainmentOutDict,
    SweepHistogramAttainmentDict,
    SweepHistogramRowDict,
)
from app.store.models import SloPreset
from app.store.point_blocks import StoredPoint

DEFAULT_PRESET = "chat-interactive"  # as Explore's first visit
RULE = (
    "read like Prometheus buckets: the share under a limit is exact at a bucket bound and "
    "lies between the counts of the bounds around it otherwise; the share under every limit at "
    "once is only bounded (Fréchet), as separate histograms do not say which requests missed "
    "which limit; failed requests miss every limit"
)


def sweep_view(
    session: Session, points: Sequence[StoredPoint]
) -> SweepHistogramAttainmentDict | None:
    """{"slo", "limits", "points": [...], "rule"} for a sweep whose points kept histograms of
    every limited metric; None otherwise (or without the preset)."""
    found = [(p, h) for p in points if (h := point_histograms(p.extra or {}))]
    if not found:
        return None
    preset = session.get(SloPreset, DEFAULT_PRESET)
    if preset is None:
        return None
    slo = Slo(ttft_ms=preset.ttft_ms, tpot_ms=preset.tpot_ms, e2el_ms=preset.e2el_ms)
    rows: list[SweepHistogramRowDict] = []
    for point, histograms in found:
        read = histogram_attainment(
            histograms, list(slo.limits()), preset.attainment, point.num_failed
        )
        if read is not None:
            rows.append({**attainment_json(point.id, read), "position": point.position})
    if not rows:
        return None
    return {
        "slo": preset.name,
        "limits": [{"metric": m, "limit_ms": v} for m, v in slo.limits()],
        "target": preset.attainment,
        "points": rows,
        "rule": RULE,
    }


def attainment_json(point_id: int, found: HistogramAttainment) -> HistogramAttainmentOutDict:
    return {
        "point_id": point_id,
        "attainment_low": found.lower,
        "attainment_high": found.upper,
        "text": bounds_text(found.lower, found.upper),
        "target": found.target,
        "verdict": found.verdict,
        "issued": found.issued,
        "limits": [
            {
                "metric": s.metric,
                "limit_ms": s.limit_ms,
                "share_low": s.lower,
                "share_high": s.upper,
                "exact": s.exact,
                "text": bounds_text(s.lower, s.upper),
            }
            for s in found.limits
        ],
        "rule": RULE,
    }
