"""The plain definitions that the app's faster, batched or vectorised forms are checked
against, so those checks mean something. Only the tests use them (they were kept in app/
through vulture's whitelist before)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from app.charts.hover import hover_items
from app.domain.intervals import (
    DEFAULT_LEVEL,
    ONE_RUN,
    Interval,
    check_level,
    none,
    t_quantile,
)
from app.domain.metrics import Basis
from app.domain.numbers import fmt_load, fmt_number
from app.domain.point import float_or_none, int_or_none
from app.domain.request_goodput import RequestStats
from app.http.security import origin_key
from app.services.analysis import SweepAnalysis


def request_tpot_ms(ttft_ms: float, e2el_ms: float, output_len: int) -> float:
    """One request's TPOT (E2EL − TTFT)/(n − 1) in ms; 0 when n ≤ 1 (vLLM goodput rule): the
    scalar rule behind app.domain.request_goodput.request_tpot_expr."""
    if output_len <= 1:
        return 0.0
    return (e2el_ms - ttft_ms) / (output_len - 1)


def request_stats(
    row: Mapping[str, object], duration_s: float, num_gpus: int, basis: Basis
) -> RequestStats:
    """Attainment = good ÷ issued; token goodput = good tokens (basis) ÷ duration_s ÷ num_gpus:
    the float form of the counted, vectorised statistics (request_goodput.Counted.stats)."""
    if not duration_s > 0 or num_gpus <= 0:
        raise ValueError("duration_s and num_gpus must be > 0")
    issued = int_or_none(row.get("issued")) or 0
    if issued <= 0:
        raise ValueError("a point needs at least one issued request")
    good = int_or_none(row.get("good")) or 0
    out_tokens = float_or_none(row.get("good_output_tokens")) or 0.0
    in_tokens = float_or_none(row.get("good_input_tokens")) or 0.0
    tokens = {"output": out_tokens, "total": out_tokens + in_tokens, "input": in_tokens}[basis]
    return RequestStats(
        issued=issued,
        good=good,
        attainment=good / issued,
        goodput_tok_s_per_gpu=tokens / duration_s / num_gpus,
        goodput_requests_per_s=good / duration_s,
    )


def dominates(x_a: float, y_a: float, x_b: float, y_b: float) -> bool:
    """True if a is at least as good as b on both axes and better on one (higher is better):
    the definition app.domain.pareto.pareto_frontier is checked against."""
    return x_a >= x_b and y_a >= y_b and (x_a > x_b or y_a > y_b)


def t_interval(
    values: Sequence[float], level: float = DEFAULT_LEVEL, value: float | None = None
) -> Interval:
    """Student t interval of the mean of repeated runs: x̄ ± t(1+level)/2, n−1 · s/√n, the
    plain interval the log-scale one (app.domain.intervals.log_t_interval) is compared with.

    `value` is the figure shown beside it (default the mean). One run: no interval.
    """
    n = len(values)
    shown = value if value is not None else (sum(values) / n if n else None)
    if n == 0:
        return none(shown, level, "no runs", 0)
    if n == 1:
        return Interval(shown, None, None, level, None, ONE_RUN, 1, "runs")
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile((1 + check_level(level)) / 2, n - 1) * sd / math.sqrt(n)
    return Interval(shown, mean - half, mean + half, level, "t", None, n, "runs")


def same_origin(origin: str, host_header: str, scheme: str) -> bool:
    """Whether an Origin header names this server (scheme, host and port) as `scheme` reached
    it: the origin rule SecurityMiddleware applies, tested case by case."""
    mine = origin_key(f"{scheme}://{host_header}")
    return mine is not None and origin_key(origin) == mine


def hover_values(result: SweepAnalysis, k: int, fields: tuple[str, ...]) -> list[str]:
    """The point's numbers as the one number formatter writes them, in template slot order:
    the texts that the numbers sent (app.charts.hover.hover_cells) must show."""
    return hover_items(result, k, fields, fmt_number, fmt_load)
