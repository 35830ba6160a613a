"""Multi-turn read-offs (issue 49): sessions, turns and E2E-normalized interactivity.

Pure math over request samples (columns of app.domain.request_goodput.SAMPLE_SCHEMA): polars
and the standard library only.

- E2E-normalized interactivity (InferenceX AgentX): 1 ÷ the chosen percentile (p90 by default)
  of E2EL ÷ OSL over the successful requests with an output, in tok/s/user. It includes TTFT,
  so it falls when prefill (or queueing) is slow, where per-token speed does not.
- Session attainment: the share of sessions in which every turn met the limits (succeeded and
  met TTFT, TPOT and E2EL, as a request does in per-request mode), with a Wilson interval.
  A session whose turns seen do not run 0, 1, …, k without a gap is *cut* (it began before the
  profiled window or lost turns to it) and is counted apart, never as met or missed.
- TTFT by turn: the first turn (cold prefix) and the later turns (warm, reusing the prefix)
  apart.
- Agents at your SLO: the most concurrent sessions whose session attainment meets the target,
  per GPU, per MW of all-in power and per $/hour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from app.domain.intervals import DEFAULT_LEVEL, wilson_bounds_expr
from app.domain.point import Metric
from app.domain.request_goodput import good_request_expr

DEFAULT_E2E_PERCENTILE = 90.0
NO_JUDGED_SESSIONS = "no load level has judged sessions"


def axis_words(interactivity: str, stat: str, e2e_percentile: float) -> str:
    """The x axis named as every chart, export and answer names it."""
    if interactivity == "e2e":
        return (
            f"E2E-normalized interactivity (tok/s/user) = 1000 / p{e2e_percentile:g} of E2EL ÷ OSL"
        )
    return f"Interactivity (tok/s/user) = 1000 / {stat} TPOT"


@dataclass(frozen=True)
class E2EInteractivity:
    """One point's E2E-normalized interactivity and what it was read from."""

    tok_s_user: float
    ms_per_token: float  # the percentile of E2EL ÷ OSL
    percentile: float
    requests: int  # successful requests with an output token count > 0


@dataclass(frozen=True)
class SessionStats:
    """One point's sessions at an SLO: `count` judged (cut ones apart), `good` met every limit."""

    count: int
    good: int
    attainment: float | None  # None: no session judged (unknown)
    low: float | None
    high: float | None
    cut: int  # sessions cut by the profiled window, not judged
    unsessioned: int  # requests without a session id, not in any session


@dataclass(frozen=True)
class TurnTtft:
    """TTFT of the first turns and of the later turns, at one percentile, over successes."""

    first_ms: float | None
    later_ms: float | None
    first_requests: int
    later_requests: int
    percentile: float


def _check_percentile(percentile: float) -> float:
    if not 0 < percentile <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {percentile}")
    return percentile / 100.0


def e2e_interactivity(
    samples: pl.DataFrame, percentile: float = DEFAULT_E2E_PERCENTILE
) -> dict[int, E2EInteractivity]:
    """Per point id: 1000 ÷ percentile(E2EL_ms ÷ OSL) over successful requests with OSL > 0 and
    an E2EL (linear interpolation between order statistics, as numpy's default)."""
    q = _check_percentile(percentile)
    used = samples.lazy().filter(
        pl.col("ok").fill_null(False)
        & (pl.col("output_len") > 0).fill_null(False)
        & pl.col("e2el_ms").is_not_null()
    )
    table = (
        used.group_by("point_id")
        .agg(
            ms=(pl.col("e2el_ms") / pl.col("output_len").cast(pl.Float64)).quantile(
                q, interpolation="linear"
            ),
            n=pl.len(),
        )
        .collect()
    )
    out: dict[int, E2EInteractivity] = {}
    for point_id, ms, n in table.iter_rows():
        if ms is not None and ms > 0:
            out[point_id] = E2EInteractivity(1000.0 / ms, ms, percentile, n)
    return out


def session_table(samples: pl.DataFrame, limits: Sequence[tuple[Metric, float]]) -> pl.DataFrame:
    """One row per (point id, session id): turns seen, turns met, and whether it is cut."""
    turn = pl.col("turn_index").fill_null(0).cast(pl.Int64)
    return (
        samples.lazy()
        .filter(pl.col("session_id").is_not_null())
        .with_columns(good=good_request_expr(limits), turn=turn)
        .group_by("point_id", "session_id")
        .agg(
            turns=pl.len(),
            met=pl.col("good").sum(),
            # Turns 0..k without a gap or a repeat: min 0, max k, k + 1 distinct turns.
            whole=(pl.col("turn").min() == 0)
            & (pl.col("turn").max() == pl.len() - 1)
            & (pl.col("turn").n_unique() == pl.len()),
        )
        .collect()
    )


def session_attainment(
    samples: pl.DataFrame,
    limits: Sequence[tuple[Metric, float]],
    level: float = DEFAULT_LEVEL,
) -> dict[int, SessionStats]:
    """SessionStats per point id that has any sample with a session id."""
    table = session_table(samples, limits)
    unsessioned = dict(
        samples.filter(pl.col("session_id").is_null()).group_by("point_id").len().iter_rows()
    )
    whole = pl.col("whole")
    judged = whole.cast(pl.Int64).sum()
    good = (whole & (pl.col("met") == pl.col("turns"))).cast(pl.Int64).sum()
    per_point = table.group_by("point_id").agg(
        count=judged, good=good, cut=(~whole).cast(pl.Int64).sum()
    )
    low, high = wilson_bounds_expr(pl.col("good"), pl.col("count"), level)
    rows = per_point.with_columns(
        low=pl.when(pl.col("count") > 0).then(low),
        high=pl.when(pl.col("count") > 0).then(high),
    )
    out: dict[int, SessionStats] = {}
    for point_id, count, met, cut, lo, hi in rows.select(
        "point_id", "count", "good", "cut", "low", "high"
    ).iter_rows():
        attainment = met / count if count else None
        out[point_id] = SessionStats(
            count, met, attainment, lo, hi, cut, int(unsessioned.get(point_id, 0))
        )
    return out


def ttft_by_turn(samples: pl.DataFrame, percentile: float = 50.0) -> dict[int, TurnTtft]:
    """Per point id with turn indices: the TTFT percentile of first turns (turn 0) and of later
    turns (turn ≥ 1), over successful requests (linear interpolation)."""
    q = _check_percentile(percentile)
    ok = pl.col("ok").fill_null(False) & pl.col("ttft_ms").is_not_null()
    first = ok & (pl.col("turn_index") == 0)
    later = ok & (pl.col("turn_index") > 0)
    table = (
        samples.lazy()
        .filter(pl.col("turn_index").is_not_null())
        .group_by("point_id")
        .agg(
            first=pl.col("ttft_ms").filter(first).quantile(q, interpolation="linear"),
            later=pl.col("ttft_ms").filter(later).quantile(q, interpolation="linear"),
            n_first=first.sum(),
            n_later=later.sum(),
        )
        .collect()
    )
    return {
        point_id: TurnTtft(f, lt, int(nf), int(nl), percentile)
        for point_id, f, lt, nf, nl in table.iter_rows()
    }


@dataclass(frozen=True)
class AgentsAtSlo:
    """The most concurrent sessions meeting the target, and per GPU, per MW and per $/hour.

    `conservative` is the most whose Wilson lower end meets it (None when none does)."""

    concurrency: float | None
    conservative: float | None
    per_gpu: float | None
    per_mw: float | None
    per_usd_hour: float | None
    reason: str | None  # why `concurrency` is unknown or nothing meets the target


def agents_at_slo(
    points: Sequence[tuple[float | None, SessionStats | None]],
    target: float,
    num_gpus: int,
    allin_kw_per_gpu: float | None = None,
    usd_per_gpu_hour: float | None = None,
) -> AgentsAtSlo:
    """(concurrency, session stats) of each load level → the most concurrent sessions whose
    session attainment ≥ target. Per MW = sessions ÷ (GPUs × all-in kW per GPU ÷ 1000); per
    $/hour = sessions ÷ (GPUs × $/GPU-hour)."""
    if not 0 < target <= 1:
        raise ValueError(f"target must be in (0, 1], got {target}")
    judged = [
        (c, s) for c, s in points if c is not None and s is not None and s.attainment is not None
    ]
    if not judged:
        return AgentsAtSlo(None, None, None, None, None, NO_JUDGED_SESSIONS)
    meeting = [c for c, s in judged if s.attainment is not None and s.attainment >= target]
    sure = [c for c, s in judged if s.low is not None and s.low >= target]
    if not meeting:
        return AgentsAtSlo(
            None, None, None, None, None, f"no load level has {target:.0%} of sessions met"
        )
    best = max(meeting)
    per_gpu, per_mw, per_usd = _per_unit(best, num_gpus, allin_kw_per_gpu, usd_per_gpu_hour)
    return AgentsAtSlo(best, max(sure) if sure else None, per_gpu, per_mw, per_usd, None)


def _per_unit(
    sessions: float, num_gpus: int, allin_kw_per_gpu: float | None, usd_per_gpu_hour: float | None
) -> tuple[float | None, float | None, float | None]:
    """Sessions per GPU, per MW (all-in) and per $/hour; unknown where a divisor is."""
    if num_gpus <= 0:
        return None, None, None
    per_mw = (
        sessions / (num_gpus * allin_kw_per_gpu / 1000.0)
        if allin_kw_per_gpu and allin_kw_per_gpu > 0
        else None
    )
    per_usd = (
        sessions / (num_gpus * usd_per_gpu_hour)
        if usd_per_gpu_hour and usd_per_gpu_hour > 0
        else None
    )
    return sessions / num_gpus, per_mw, per_usd
