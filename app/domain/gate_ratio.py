"""The regression gate's ratio: candidate ÷ baseline goodput with the ratio's own interval.

Two separate 95 % intervals that overlap are roughly a test at 0.3 %: the gate would miss most
real losses. So the gate asks one interval, of the ratio itself (product.md §4):
- per request: the percentile bootstrap of the ratio of good tokens. Paired (one draw of
  request numbers for both sides) only where both runs replayed the same prompts in the same
  order (`same_prompts`), so a prompt's own length and difficulty cancel; otherwise each side
  is resampled on its own draw (unpaired);
- repeated runs: a t interval on the log scale of the two groups of runs (pooled variance,
  nb + nc − 2 degrees of freedom): exp(m_c − m_b ± t · s · √(1/nb + 1/nc));
- one run per side: no interval (`ONE_RUN_GATE`): the tolerance alone decides, said so.

The interval is taken relative to its own point estimate and centred on the ratio of the
figures shown (`shown`), so a constant per-unit scale (per GPU, decode GPU, node) never moves it.

Pure math: imports only the standard library, polars and app.domain.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl

from app.domain.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_sums
from app.domain.intervals import check_level, t_quantile
from app.domain.metrics import Basis
from app.domain.point import PointMetrics
from app.domain.request_goodput import good_request_expr
from app.domain.slo import Readoff, Slo

# The gate asks a one-sided question (did goodput fall?), so its false-failure rate is one tail
# of the interval: 98 % two-sided leaves 1 % below, the target for identical builds
# (bench/calibration.py: at 95 % the per-request gate failed 1.4 % of 1,000 identical pairs).
GATE_LEVEL = 0.98


def gate_level(level: float) -> float:
    """The ratio interval's level: the check's own when higher, else GATE_LEVEL."""
    return max(level, GATE_LEVEL)


ONE_RUN_GATE = "tolerance alone; one run cannot separate noise: record 3 or more runs per load"


RatioMethod = Literal["ratio-bootstrap", "ratio-t-log", "ratio-log-normal"]


@dataclass(frozen=True)
class GateRatio:
    """candidate ÷ baseline with its interval at `level`; low/high None (`reason` says why)."""

    value: float
    low: float | None
    high: float | None
    level: float
    method: RatioMethod | None
    paired: bool = False
    reason: str | None = None
    n_baseline: int | None = None  # requests or runs each side rests on
    n_candidate: int | None = None

    @property
    def known(self) -> bool:
        return self.low is not None and self.high is not None

    @property
    def below_one(self) -> bool | None:
        """The interval lies wholly below 1×; None without an interval."""
        return None if self.high is None else self.high < 1


def same_prompts(baseline: pl.DataFrame, candidate: pl.DataFrame) -> bool:
    """Whether two runs replayed the same prompts in the same order, as far as stored samples
    tell (each frame has `input_len` and `output_len`, one row per request in stored order):
    as many requests, the same input length request by request, and lengths that vary; or,
    where every input has one length, the same output lengths too, varying (a fixed-length
    dataset whose outputs also match request by request was replayed). No prompt text is
    stored, so the lengths in their order stand for the prompts."""
    if baseline.height != candidate.height or baseline.height < 2:
        return False
    b_in, c_in = baseline["input_len"], candidate["input_len"]
    if b_in.null_count() or c_in.null_count() or not (b_in == c_in).all():
        return False
    if b_in.n_unique() > 1:
        return True
    b_out, c_out = baseline["output_len"], candidate["output_len"]
    if b_out.drop_nulls().n_unique() < 2:
        return False
    # A failed request has no output length: failed at the same place on both sides matches.
    return bool(b_out.eq_missing(c_out).all())


def request_ratio(
    baseline_tokens: pl.Series,
    candidate_tokens: pl.Series,
    shown: float,
    level: float,
    paired: bool,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> GateRatio:
    """Per request: each side's good tokens (0 for a request that missed), in stored order.
    The bootstrap resamples the requests (one draw for both sides when `paired`) and takes the
    ratio of the sums; its percentile interval, relative to the sums' own ratio, is centred on
    `shown` (the ratio of the goodputs shown, whose duration and unit scale are constants)."""
    check_level(level)
    nb, nc = baseline_tokens.len(), candidate_tokens.len()
    paired = paired and nb == nc
    total_b, total_c = float(baseline_tokens.sum()), float(candidate_tokens.sum())
    if nb == 0 or nc == 0 or not total_b > 0:
        return GateRatio(shown, None, None, level, None, paired, "no good requests", nb, nc)
    if paired:
        frame = pl.DataFrame({"b": baseline_tokens, "c": candidate_tokens}).cast(pl.Float64)
        sums = bootstrap_sums(frame, resamples, seed)
        sum_b, sum_c = sums["b"], sums["c"]
    else:
        # Two draws: the seed differs, so the sides' resamples are independent.
        sum_b = bootstrap_sums(baseline_tokens.cast(pl.Float64).to_frame("t"), resamples, seed)["t"]
        sum_c = bootstrap_sums(
            candidate_tokens.cast(pl.Float64).to_frame("t"), resamples, seed + 1
        )["t"]
    point = total_c / total_b
    reps = (
        pl.DataFrame({"b": sum_b, "c": sum_c})
        .select(pl.when(pl.col("b") > 0).then(pl.col("c") / pl.col("b")).otherwise(math.inf))
        .to_series()
    )
    low = reps.quantile((1 - level) / 2, "linear")
    high = reps.quantile((1 + level) / 2, "linear")
    if low is None or high is None or not point > 0:
        # A candidate with no good tokens: the ratio is 0 and every resample says so.
        return GateRatio(shown, 0.0, 0.0, level, "ratio-bootstrap", paired, None, nb, nc)
    k = shown / point
    return GateRatio(
        shown, float(low) * k, float(high) * k, level, "ratio-bootstrap", paired, None, nb, nc
    )


def runs_ratio(
    baseline_runs: Sequence[float], candidate_runs: Sequence[float], shown: float, level: float
) -> GateRatio:
    """Repeated runs: the t interval on the log scale of candidate ÷ baseline, pooled over both
    sides' runs (builds of one configuration are as noisy as each other). One run a side: no
    interval (`ONE_RUN_GATE`)."""
    check_level(level)
    nb, nc = len(baseline_runs), len(candidate_runs)
    if nb < 2 and nc < 2:
        return GateRatio(shown, None, None, level, None, False, ONE_RUN_GATE, nb, nc)
    if min(baseline_runs, default=0.0) <= 0 or min(candidate_runs, default=0.0) <= 0:
        why = "a run is at or below 0: no interval on the log scale"
        return GateRatio(shown, None, None, level, None, False, why, nb, nc)
    lb = [math.log(v) for v in baseline_runs]
    lc = [math.log(v) for v in candidate_runs]
    mb, mc = sum(lb) / nb, sum(lc) / nc
    df = nb + nc - 2
    ss = sum((v - mb) ** 2 for v in lb) + sum((v - mc) ** 2 for v in lc)
    half = t_quantile((1 + level) / 2, df) * math.sqrt(ss / df) * math.sqrt(1 / nb + 1 / nc)
    # Centred on the shown ratio: the runs' geometric means' ratio, up to a unit constant.
    return GateRatio(
        shown,
        shown * math.exp(-half),
        shown * math.exp(half),
        level,
        "ratio-t-log",
        False,
        None,
        nb,
        nc,
    )


@dataclass(frozen=True)
class GateSide:
    """What one side's goodput rests on: its read-off (operating point possibly pinned at a
    load), its points in stored order, and its request samples (None in percentile mode)."""

    readoff: Readoff
    points: Sequence[PointMetrics]
    samples: pl.DataFrame | None


def goodput_ratio(
    baseline: GateSide,
    candidate: GateSide,
    shown: tuple[float, float],
    slo: Slo,
    basis: Basis,
    level: float,
) -> GateRatio | None:
    """candidate ÷ baseline goodput (`shown`: the two goodputs as reported, baseline first):
    per request where both operating points have requests, over repeated runs where both are
    read in percentile mode; None when the two rest on different data. `level` is the check's
    interval level; the ratio's is `gate_level(level)`."""
    value = shown[1] / shown[0]
    level = gate_level(level)
    b_req = good_tokens(baseline, slo, basis)
    c_req = good_tokens(candidate, slo, basis)
    if b_req is not None and c_req is not None:
        paired = same_prompts(b_req, c_req)
        return request_ratio(b_req["tokens"], c_req["tokens"], value, level, paired)
    b_runs, c_runs = passing_runs(baseline, basis), passing_runs(candidate, basis)
    if b_runs is not None and c_runs is not None:
        return runs_ratio(b_runs, c_runs, value, level)
    return None


def good_tokens(side: GateSide, slo: Slo, basis: Basis) -> pl.DataFrame | None:
    """The operating point's requests in stored order: `tokens` good (0 for a miss or a
    failure), `input_len`, `output_len`; None in percentile mode or without samples there."""
    op, verdict = side.readoff.operating_point, side.readoff.operating_verdict
    if op is None or verdict is None or verdict.requests is None or side.samples is None:
        return None
    rows = side.samples.filter(pl.col("point_id") == op.point_id)
    if rows.is_empty():
        return None
    good = good_request_expr(slo.limits())
    out_len = pl.col("output_len").fill_null(0).cast(pl.Float64)
    in_len = pl.col("input_len").fill_null(0).cast(pl.Float64)
    tokens = {"output": out_len, "total": out_len + in_len, "input": in_len}[basis]
    return rows.select("input_len", "output_len", tokens=pl.when(good).then(tokens).otherwise(0.0))


def passing_runs(side: GateSide, basis: Basis) -> list[float] | None:
    """Percentile mode: tok/s per GPU of each run at the operating load that meets the SLO (as
    the read-off's runs interval takes them); None per request or without an operating point."""
    readoff = side.readoff
    op = readoff.operating_point
    if op is None or readoff.mode != "percentile":
        return None
    point = next((p for p in side.points if p.point_id == op.point_id), None)
    if point is None or point.load() is None:
        return None
    passing = {v.point_id for v in readoff.verdicts if v.status == "pass"}
    return [
        y
        for p in side.points
        if p.load() == point.load() and p.point_id in passing
        if (y := p.tok_s_per_gpu(basis)) is not None
    ]
