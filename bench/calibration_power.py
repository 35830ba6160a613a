"""The power check of Compare's "runs or requests needed" estimate (bench/calibration.py's
last two rows): does the recommended n separate two operating points as often as it promises?"""

from __future__ import annotations

import numpy as np
import polars as pl

from app.domain.bootstrap import bootstrap_sums
from app.domain.intervals import (
    Interval,
    log_t_interval,
    percentile_interval,
    ratio_interval,
    separation,
)

PILOT, GAP = 300, 0.02  # the power check: requests per side first, and B's shortfall
RUN_GAP, PILOT_RUNS = 0.01, 5  # repeated runs: B's shortfall, runs per side first
RUN_REQUESTS = 150  # requests per run (as the calibration's repeated-runs mode)


def power_check(real_tokens: np.ndarray, trials: int, seed: int) -> tuple[float, int]:
    """`real_tokens`: the real requests' output tokens, drawn with replacement.

    Per-request mode, one operating point each side, B serving GAP less. Each trial: a
    pilot of PILOT requests a side gives both intervals; `separation` (values held at the
    truth, as it assumes) says how many requests would separate them at 80 % power; that many
    are drawn and the ratio's interval asked. Returns the percent of trials it excludes 1×, and
    the median requests per side recommended."""
    rng = np.random.default_rng(seed)
    duration = PILOT * float(real_tokens.mean()) / 900.0
    true_a = float(real_tokens.mean()) * PILOT / duration

    def goodput(n: int, slower: float, resample_seed: int) -> Interval:
        tokens = real_tokens[rng.integers(0, len(real_tokens), n)]
        scale = 1.0 / (duration * n / PILOT * slower)
        sums = bootstrap_sums(pl.DataFrame({"t": tokens}), seed=resample_seed)["t"] * scale
        return percentile_interval(float(tokens.sum()) * scale, sums, 0.95, n)

    def trial(t: int) -> tuple[bool, int]:
        a, b = goodput(PILOT, 1.0, 4 * t), goodput(PILOT, 1 / (1 - GAP), 4 * t + 1)
        sep = separation(_recentred(a, true_a), _recentred(b, true_a * (1 - GAP)))
        assert sep.more_a is not None and sep.more_b is not None
        n_a, n_b = PILOT + sep.more_a, PILOT + sep.more_b
        iv = ratio_interval(goodput(n_a, 1.0, 4 * t + 2), goodput(n_b, 1 / (1 - GAP), 4 * t + 3))
        return iv.low is not None and iv.high is not None and not iv.contains(1.0), n_a

    return _realised([trial(t) for t in range(trials)])


def power_check_runs(real_tokens: np.ndarray, trials: int, seed: int) -> tuple[float, int]:
    """Repeated-runs mode: each run is RUN_REQUESTS requests (its tok/s varies with them); B
    serves RUN_GAP less. Each trial: a pilot of PILOT_RUNS runs a side gives both t-log
    intervals, `separation` (values held at the truth) says how many runs would separate them
    at 80 % power, that many are run and the ratio's interval asked. Returns the percent
    separated and the median runs per side recommended."""
    rng = np.random.default_rng(seed)
    duration = RUN_REQUESTS * float(real_tokens.mean()) / 900.0
    true_a = 900.0

    def runs(k: int, slower: float) -> Interval:
        tok_s = [
            float(real_tokens[rng.integers(0, len(real_tokens), RUN_REQUESTS)].sum())
            / (duration * slower)
            for _ in range(k)
        ]
        return log_t_interval(tok_s, 0.95)

    def trial() -> tuple[bool, int]:
        a, b = runs(PILOT_RUNS, 1.0), runs(PILOT_RUNS, 1 / (1 - RUN_GAP))
        sep = separation(_recentred(a, true_a), _recentred(b, true_a * (1 - RUN_GAP)))
        assert sep.more_a is not None and sep.more_b is not None
        k_a, k_b = PILOT_RUNS + sep.more_a, PILOT_RUNS + sep.more_b
        iv = ratio_interval(runs(k_a, 1.0), runs(k_b, 1 / (1 - RUN_GAP)))
        return iv.low is not None and iv.high is not None and not iv.contains(1.0), k_a

    return _realised([trial() for _ in range(trials)])


def _realised(outcomes: list[tuple[bool, int]]) -> tuple[float, int]:
    separated = sum(1 for ok, _ in outcomes if ok)
    return 100.0 * separated / len(outcomes), int(np.median([n for _, n in outcomes]))


def _recentred(iv: Interval, value: float) -> Interval:
    """The interval moved (on the log scale) to centre on `value`, width kept."""
    assert iv.low is not None and iv.high is not None and iv.value
    k = value / iv.value
    return Interval(value, iv.low * k, iv.high * k, iv.level, iv.method, None, iv.n, iv.unit)
