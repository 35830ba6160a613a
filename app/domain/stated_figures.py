"""Their figure beside ours: an aggregate a result file states, Paretoscope's recomputation of
it, the difference, and the rule that explains a difference (issue 51).

Pure math: standard library only. Tools disagree on definitions (pooled vs per-request, ITL vs
TPOT, a measurement window vs the whole run, nearest-rank vs interpolated percentiles); the file's
own figure is what the analysis uses (a stored statistic beats a derived one), and this module
says how far Paretoscope's own reading of the same requests lies from it, and why.

A difference within ROUNDING agrees; beyond it, a known rule that accounts for it explains it;
otherwise it is flagged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

ROUNDING = 0.005  # relative: files print 2–4 significant decimals; 0.5 % is beyond any of them
Status = Literal["agrees", "explained", "flagged"]
PERCENTILE_RULE = (
    "percentile rule: the tool picks a rank (nearest rank or its own interpolation), "
    "Paretoscope interpolates linearly between the closest ranks; the tool's value lies between "
    "the neighbouring requests' values"
)
SUBSET_RULE = (
    "the request samples are a subset of the requests the tool counted (a reservoir), so "
    "their throughput falls short of the tool's"
)
WINDOW_EDGE_RULE = (
    "the tool counts only tokens made inside its measurement window; the samples count the "
    "requests that straddle its edges whole"
)
LEGACY_WINDOW_RULE = (
    "the harness divides by LoadGen's legacy window (use_legacy_loadgen_qps_metrics), "
    "Paretoscope by the whole run's duration"
)
INTERACTIVITY_RULE = "interactivity is 1000 / TPOT at the same statistic in both"
MEAN_OF_RECIPROCALS_RULE = (
    "per request vs pooled: the tool averages each request's tokens/s (a mean of reciprocals), "
    "Paretoscope takes 1000 ÷ the mean TPOT (the reciprocal of a mean), which is never larger"
)
PER_RUN_RULE = (
    "per run: the tool's aggregate is the mean over its runs of each run's own figure, "
    "as Paretoscope's is over the runs uploaded"
)
POOLED_RULE = (
    "pooled vs per-run: the tool's collated figure pools every run's requests into one "
    "population; a percentile of the pool lies between the runs' own percentiles (their range "
    "here), not at their mean"
)
TOKEN_WEIGHTED_RULE = (
    "token-weighted: the tool's TPOT is its inter-token latency, each request counted once per "
    "token after its first (n − 1 times); Paretoscope counts every request once"
)
TTFT_INCLUDED_RULE = (
    "ITL vs TPOT: the tool's time per output token divides the whole request, TTFT included, "
    "by its output tokens; TPOT = (E2EL − TTFT) ÷ (n − 1) leaves the first token out"
)


@dataclass(frozen=True)
class StatedFigure:
    """One aggregate of one point: the file's value and Paretoscope's, with a verdict."""

    figure: str  # "output throughput", "TTFT p99", "interactivity (median)"
    unit: str
    theirs: float
    ours: float
    ours_from: str  # how Paretoscope recomputed it
    status: Status
    rule: str | None  # the rule that explains a difference (or why they agree by definition)

    @property
    def difference_pct(self) -> float:
        """(ours − theirs) ÷ theirs, in percent (0 when both are 0)."""
        if self.theirs == 0:
            return 0.0 if self.ours == 0 else math.inf
        return (self.ours - self.theirs) / abs(self.theirs) * 100


def rate_unit(figure: str) -> str:
    """tok/s for a token throughput, req/s for a request throughput."""
    return "req/s" if figure.startswith("request") else "tok/s"


def within_rounding(theirs: float, ours: float) -> bool:
    return abs(ours - theirs) <= ROUNDING * max(abs(theirs), abs(ours))


def judged(
    figure: str,
    unit: str,
    theirs: float,
    ours: float,
    ours_from: str,
    rule: str | None = None,
    *,
    explains: bool = False,
) -> StatedFigure:
    """Agrees within rounding; else explained when `rule` accounts for the difference
    (`explains`), else flagged (and the rule, if any, is shown as the one that did not fit)."""
    if within_rounding(theirs, ours):
        return StatedFigure(figure, unit, theirs, ours, ours_from, "agrees", rule)
    status: Status = "explained" if explains and rule else "flagged"
    return StatedFigure(figure, unit, theirs, ours, ours_from, status, rule)


def percentile_bracket(values: Sequence[float], q: float) -> tuple[float, float] | None:
    """The values of the requests around the q-quantile's rank (one rank either side of the two
    that linear interpolation uses): any rank rule of a tool lands between them."""
    n = len(values)
    if n == 0:
        return None
    ordered = sorted(values)
    rank = q * (n - 1)
    low = max(0, math.floor(rank) - 1)
    high = min(n - 1, math.ceil(rank) + 1)
    return ordered[low], ordered[high]


def percentile_figure(
    figure: str, theirs: float, ours: float, values: Sequence[float], q: float
) -> StatedFigure:
    """A stored percentile beside the samples' linear-interpolated one."""
    bracket = percentile_bracket(values, q)
    explains = bracket is not None and bracket[0] <= theirs <= bracket[1]
    how = f"linear interpolation over {len(values):,} request samples"
    return judged(figure, "ms", theirs, ours, how, PERCENTILE_RULE, explains=explains)


def throughput_figure(
    figure: str,
    theirs: float,
    ours: float,
    ours_from: str,
    *,
    subset: bool,
    straddling: bool,
) -> StatedFigure:
    """A stated throughput beside the samples' own (tokens or requests ÷ duration)."""
    if straddling:
        return judged(
            figure, rate_unit(figure), theirs, ours, ours_from, WINDOW_EDGE_RULE, explains=True
        )
    if subset:
        return judged(
            figure, rate_unit(figure), theirs, ours, ours_from, SUBSET_RULE, explains=ours < theirs
        )
    return judged(figure, rate_unit(figure), theirs, ours, ours_from)


def totals_figure(figure: str, theirs: float, ours: float, ours_from: str) -> StatedFigure:
    """A stated throughput beside the file's own totals ÷ its duration."""
    return judged(figure, rate_unit(figure), theirs, ours, ours_from)


def window_figure(
    figure: str, theirs: float, total: float, duration_s: float, window_s: float
) -> StatedFigure:
    """A harness's rate over LoadGen's legacy window beside total ÷ the whole run."""
    ours = total / duration_s
    how = f"{total:,.0f} ÷ the run's {duration_s:,.2f} s"
    explains = within_rounding(theirs, total / window_s)
    return judged(
        figure, rate_unit(figure), theirs, ours, how, LEGACY_WINDOW_RULE, explains=explains
    )


def interactivity_figure(stat: str, theirs: float, tpot_ms: float) -> StatedFigure:
    """A tool's own interactivity (tok/s/user) beside 1000 ÷ the stored TPOT at that stat."""
    ours = 1000 / tpot_ms
    how = f"1000 ÷ TPOT {stat} ({tpot_ms:.4g} ms)"
    return judged(f"interactivity ({stat})", "tok/s/user", theirs, ours, how, INTERACTIVITY_RULE)


def per_user_figure(theirs: float, tpot_mean_ms: float) -> StatedFigure:
    """A tool's mean per-user output rate beside 1000 ÷ the mean TPOT."""
    ours = 1000 / tpot_mean_ms
    how = f"1000 ÷ mean TPOT ({tpot_mean_ms:.4g} ms)"
    return judged(
        "tokens/s per user (mean)",
        "tok/s/user",
        theirs,
        ours,
        how,
        MEAN_OF_RECIPROCALS_RULE,
        explains=theirs >= ours,
    )


def ttft_included_figure(theirs: float, tpot_mean_ms: float) -> StatedFigure:
    """A tool's time per output token with TTFT in it beside the mean TPOT."""
    how = "the stored mean TPOT, (E2EL − TTFT) ÷ (n − 1)"
    return judged(
        "time per output token (mean)",
        "ms",
        theirs,
        tpot_mean_ms,
        how,
        TTFT_INCLUDED_RULE,
        explains=theirs >= tpot_mean_ms,
    )


def per_run_figure(
    label: str, theirs: float, run_values: Sequence[float], runs: int | None
) -> StatedFigure:
    """A tool's mean over runs beside the mean of the uploaded runs' own figures: the same
    rule, so only rounding (or runs missing from the upload) may part them."""
    ours = sum(run_values) / len(run_values)
    how = f"mean of {len(run_values)} uploaded runs' own {label}"
    said = f"{label} (aggregate: mean of {runs} runs)" if runs else f"{label} (aggregate)"
    return judged(said, _unit(label), theirs, ours, how, PER_RUN_RULE)


def pooled_figure(
    label: str, theirs: float, run_values: Sequence[float], runs: int | None
) -> StatedFigure:
    """A tool's pooled (collated) figure beside the mean of the runs' own: explained when it
    lies within the runs' range, as a statistic of a mixture of the runs always does."""
    ours = sum(run_values) / len(run_values)
    how = f"mean of {len(run_values)} uploaded runs' own {label}"
    said = f"{label} (collated: pooled over {runs} runs)" if runs else f"{label} (collated)"
    inside = min(run_values) <= theirs <= max(run_values)
    return judged(said, _unit(label), theirs, ours, how, POOLED_RULE, explains=inside)


def token_weighted_figure(
    stat: str, theirs: float, ours: float, weighted: float, n: int
) -> StatedFigure:
    """A tool's token-weighted TPOT percentile beside the per-request one: explained when the
    samples weighted by their tokens give the tool's value (within rounding)."""
    how = f"linear interpolation over {n:,} request samples, each counted once"
    explains = within_rounding(theirs, weighted)
    return judged(f"TPOT {stat}", "ms", theirs, ours, how, TOKEN_WEIGHTED_RULE, explains=explains)


def _unit(label: str) -> str:
    return rate_unit(label) if "throughput" in label else "ms"
