"""One measured load level of a sweep: latency statistics, load and throughputs as plain floats.

Pure math: imports only the standard library (no web, database or settings modules).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, cast

from app.domain.metrics import Basis, deployment_tok_s, interactivity_tok_s_user, tok_s_per_gpu

Stat = Literal["mean", "p50", "p90", "p95", "p99"]
Metric = Literal["ttft", "tpot", "e2el"]
METRICS: tuple[Metric, ...] = ("ttft", "tpot", "e2el")
METRIC_LABELS: dict[Metric, str] = {"ttft": "TTFT", "tpot": "TPOT", "e2el": "E2EL"}


@dataclass(frozen=True, slots=True)
class LatencyStats:
    """One latency metric of a point in ms at each statistic; None where the source did not say.

    `more` are the other percentiles the file stored (p75, p99.9, …) as ("p99.9", ms) pairs:
    a stored statistic beats one computed from request samples, at every percentile.
    """

    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    p99: float | None = None
    more: tuple[tuple[str, float], ...] = ()

    def get(self, stat: Stat) -> float | None:
        """Value at `stat` in ms; NaN is reported as None (not measured)."""
        value: float | None = getattr(self, stat)
        return None if value is None or math.isnan(value) else value

    def percentile(self, name: str) -> float | None:
        """The stored value at a percentile written "p90" or "p99.9"; None if not stored."""
        if name in _COLUMN_PERCENTILES:
            return self.get(name)  # type: ignore[arg-type]
        for key, value in self.more:
            if key == name:
                return value
        return None

    def stored(self) -> list[tuple[str, float]]:
        """Every stored percentile with its value, in rising percentile order."""
        pairs = [(p, v) for p in _COLUMN_PERCENTILES if (v := self.get(p)) is not None]  # type: ignore[arg-type]
        pairs += list(self.more)
        return sorted(pairs, key=lambda pair: float(pair[0][1:]))


_COLUMN_PERCENTILES = ("p50", "p90", "p95", "p99")
# The percentiles a read-off may ask for (p50 … p99.9, one decimal), as stored beside the columns.
_MORE_PERCENTILE = re.compile(r"^p(50|[5-9][0-9])(\.[0-9])?$")


def more_percentiles(
    stored: Mapping[str, Mapping[str, float]] | None, metric: str
) -> tuple[tuple[str, float], ...]:
    """The `metric`'s other stored percentiles from a row's "stored_percentiles" ({metric:
    {"p99.9": ms}}), limited to those a read-off can ask for and not held in a column."""
    if not stored:
        return ()
    out = []
    for name, value in (stored.get(metric) or {}).items():
        number = float_or_none(value)
        if (
            number is not None
            and math.isfinite(number)
            and name not in _COLUMN_PERCENTILES
            and _MORE_PERCENTILE.match(name)
        ):
            out.append((name, number))
    return tuple(sorted(out, key=lambda pair: float(pair[0][1:])))


@dataclass(frozen=True, slots=True)
class PointMetrics:
    """One measured load level; throughputs are for the whole deployment (all num_gpus), mean
    lengths in tokens per request."""

    point_id: int
    # What throughput per GPU divides by: all GPUs, or the accounting mode's unit count
    # (app.domain.accounting: decode GPUs, nodes, kW); 0 when unknown.
    num_gpus: float
    concurrency: float | None = None
    request_rate: float | None = None
    duration_s: float | None = None
    ttft_ms: LatencyStats = field(default_factory=LatencyStats)
    tpot_ms: LatencyStats = field(default_factory=LatencyStats)
    e2el_ms: LatencyStats = field(default_factory=LatencyStats)
    output_tok_s: float | None = None
    total_tok_s: float | None = None
    requests_per_s: float | None = None
    num_requests: int | None = None
    num_failed: int | None = None
    input_len: float | None = None
    output_len: float | None = None
    # The harness itself ruled the run INVALID (MLPerf LoadGen): it never meets an SLO.
    invalid: bool = False
    # Latency histograms the file kept ({metric: (bounds in ms, cumulative counts)}): SLO
    # attainment is read off them with bounds (app.domain.histogram_attainment).
    histograms: Mapping[str, tuple[list[float], list[float]]] | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, object]) -> PointMetrics:
        """From canonical columns (ttft_p90_ms, output_tok_s, …) plus point_id and num_gpus.

        Made for every point of a sweep the first time a process reads it (40k points for 20
        sweeps × 2,048): the values are taken as `float_or_none` takes them, with a plain float
        passed through in place rather than by a call."""
        get = row.get
        stored = get("stored_percentiles")
        more: Mapping[str, Mapping[str, float]] | None = (
            stored if isinstance(stored, Mapping) and stored else None
        )
        values = [
            v if type(v) is float and v == v else float_or_none(v) for v in map(get, _FLOAT_KEYS)
        ]
        latency = [
            LatencyStats(
                values[k], values[k + 1], values[k + 2], values[k + 3], values[k + 4],
                more_percentiles(more, m) if more else (),
            )
            for k, m in _LATENCY_AT
        ]  # fmt: skip
        (concurrency, request_rate, duration_s, output_tok_s, total_tok_s, requests_per_s,
         input_len, output_len) = values[:_PLAIN_FLOATS]  # fmt: skip
        return cls(
            int_or_none(get("point_id")) or 0,
            int_or_none(get("num_gpus")) or 0,
            concurrency,
            request_rate,
            duration_s,
            latency[0],
            latency[1],
            latency[2],
            output_tok_s,
            total_tok_s,
            requests_per_s,
            int_or_none(get("num_requests")),
            int_or_none(get("num_failed")),
            input_len,
            output_len,
            get("invalid") is True,
            _histograms(get("histograms")),
        )

    def latency(self, metric: Metric) -> LatencyStats:
        """The stats of TTFT, TPOT or E2EL."""
        return {"ttft": self.ttft_ms, "tpot": self.tpot_ms, "e2el": self.e2el_ms}[metric]

    def interactivity_tok_s_user(self, stat: Stat = "p50") -> float | None:
        """1000 / TPOT at `stat` in tok/s/user; None if that TPOT is missing or ≤ 0."""
        return interactivity_tok_s_user(self.tpot_ms.get(stat))

    def tok_s_per_gpu(self, basis: Basis) -> float | None:
        """Throughput per GPU on a token basis; None if missing or the GPU count is unknown."""
        return tok_s_per_gpu(
            deployment_tok_s(self.output_tok_s, self.total_tok_s, basis), self.num_gpus
        )

    def load(self) -> float | None:
        """Concurrency, else request rate (req/s); None if neither was recorded."""
        return self.concurrency if self.concurrency is not None else self.request_rate


# The float columns `from_row` reads, in one list: the plain ones, then each latency metric's
# mean, p50, p90, p95 and p99 (LatencyStats' order), starting where _LATENCY_AT says.
_PLAIN_FLOAT_KEYS = (
    "concurrency", "request_rate", "duration_s", "output_tok_s", "total_tok_s",
    "requests_per_s", "input_len", "output_len",
)  # fmt: skip
_PLAIN_FLOATS = len(_PLAIN_FLOAT_KEYS)
_FLOAT_KEYS = _PLAIN_FLOAT_KEYS + tuple(
    f"{m}_{s}_ms" for m in METRICS for s in ("mean", "p50", "p90", "p95", "p99")
)
_LATENCY_AT = tuple((_PLAIN_FLOATS + 5 * k, m) for k, m in enumerate(METRICS))


def _histograms(value: object) -> Mapping[str, tuple[list[float], list[float]]] | None:
    """The point's histograms as app.store.point_blocks read them; None without any."""
    if not isinstance(value, Mapping) or not value:
        return None
    return cast("Mapping[str, tuple[list[float], list[float]]]", value)


def float_or_none(value: object) -> float | None:
    """A finite-or-infinite float from a number, None for None, NaN, bools and other types."""
    # Type checks by identity first: this runs for every count of every point of a read-off.
    kind = type(value)
    if kind is not float and kind is not int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
    result = float(value)  # type: ignore[arg-type]
    return None if math.isnan(result) else result


def int_or_none(value: object) -> int | None:
    """An int from an integral number, else None."""
    number = float_or_none(value)
    return int(number) if number is not None and math.isfinite(number) else None
