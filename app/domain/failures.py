"""Failed requests in percentile mode: a failed request is a miss at every limit.

A p-th percentile limit asks that a share p of the issued requests meets it. A failed request
meets none, so a point whose failed share exceeds 1 − p cannot meet a p-th percentile limit,
whatever its (successful requests') percentile says. Goodput counts successful requests only.

Pure math: imports only the standard library and app.domain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.numbers import fmt_number, fmt_percent
from app.domain.point import PointMetrics


@dataclass(frozen=True)
class Failed:
    """Of `issued` requests (successful + failed), `failed` failed."""

    failed: int
    issued: int
    # The harness ruled the whole run INVALID (MLPerf LoadGen): no request counts as good.
    invalid: bool = False

    @property
    def share(self) -> float:
        return self.failed / self.issued

    def text(self) -> str:
        """ "3 of 10 failed"."""
        if self.invalid:
            return "the harness ruled the run INVALID"
        return f"{fmt_number(self.failed)} of {fmt_number(self.issued)} failed"

    def exceeds(self, percent: float) -> bool:
        """Whether the failed share exceeds 1 − p for a p-th percentile (`percent`, e.g. 99
        or 99.9), exactly: in tenths of a percent, failed × 1000 > (1000 − p × 10) × issued
        (floats would fail 1 of 10 at p90, where 0.1 > 1 − 0.9 = 0.0999…)."""
        tenths = round(percent * 10)
        return self.failed * 1000 > (1000 - tenths) * self.issued

    def limit_text(self, stat: str, percent: float) -> str:
        """Why a p-th percentile limit fails on failures alone."""
        if self.invalid:
            return f"{self.text()}, which never meets an SLO"
        allowed = fmt_percent(1 - percent / 100)
        return (
            f"{self.text()} ({fmt_percent(self.share)} of requests; a failed request misses "
            f"every limit, and a {stat} limit allows at most {allowed})"
        )


def failed_of(point: PointMetrics) -> Failed | None:
    """The point's failed requests when the file counts some (None: no failure recorded or
    the counts are unknown; never a guess)."""
    failed = point.num_failed
    if not failed or failed <= 0 or point.num_requests is None or point.num_requests < 0:
        return None
    return Failed(failed, point.num_requests + failed)


def successful_requests_per_s(point: PointMetrics) -> float | None:
    """Request throughput counting successful requests only: the stored figure where no
    request failed; with failures, successful requests ÷ wall time (a tool's own request
    throughput may count failed or empty requests among the completed, e.g. older vLLM's
    empty streams: 10 ÷ 1.068 s where 7 succeeded)."""
    failed = failed_of(point)
    if failed is None:
        return point.requests_per_s
    duration = point.duration_s
    if duration is None or not duration > 0 or point.num_requests is None:
        return None
    return point.num_requests / duration


def shown_failures(points: Sequence[PointMetrics], operating_id: int | None) -> Failed | None:
    """The failures a sweep's verdict shows: the operating point's; without one, the lightest
    load's that has failures (where failures start), in the points' order."""
    if operating_id is not None:
        point = next((p for p in points if p.point_id == operating_id), None)
        return None if point is None else failed_of(point)
    loaded = [p for p in points if failed_of(p) is not None]
    if not loaded:
        return None
    lightest = min(loaded, key=lambda p: (p.load() is None, p.load() or 0.0))
    return failed_of(lightest)
