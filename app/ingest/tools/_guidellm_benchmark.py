"""guidellm: one entry of `benchmarks[]` (JSON or YAML report) → one canonical point.

Shared by the JSON/YAML path of `guidellm.py`; the CSV path (`_guidellm_csv.py`) reuses the
load-level and distribution helpers. Not an importer (no IMPORTER here).

Field semantics, checked against the guidellm source (vllm-project/guidellm):

* `inter_token_latency_ms` is per request `(last token - first token) / (output tokens - 1)`
  (`schemas/request_stats.py` in 0.4+, `benchmark/benchmark.py` in 0.2-0.3): the canonical
  TPOT, so it fills `tpot_*`. Its distribution is token-weighted (weight = output tokens - 1,
  `GenerativeMetrics.compile`), so its mean is total decode time / total decode tokens.
* `time_per_output_token_ms` is NOT the canonical TPOT: in 0.4+ it is
  `(last token - request start) / output tokens`, i.e. it includes the TTFT; in 0.2-0.3 it was
  `(last token - first token) / output tokens`. It goes to `extra` only. guidellm has no pooled
  gap statistic, so `itl_*` stays empty.
* `request_latency` is in seconds (×1000); every `*_ms` metric is already in ms.
* Percentile keys `p001` … `p999`: two digits are percent (`p05` = 5th), three digits are tenths
  (`p001` = 0.1th, `p999` = 99.9th). p50/p90/p95/p99 fill columns (p50 falls back to `median`);
  the others go to `extra` as `<metric>_p0.1_ms`, `<metric>_p99.9_ms`, ….
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from app.ingest.common import integer, json_safe, number, require
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, make_samples
from app.ingest.safe_load import load_yaml

# guidellm metric → (canonical metric, scale to ms); None = keep in extra only.
LATENCIES: dict[str, tuple[str, float]] = {
    "time_to_first_token_ms": ("ttft", 1.0),
    "inter_token_latency_ms": ("tpot", 1.0),
    "request_latency": ("e2el", 1000.0),
}
# guidellm metric → canonical point column filled from its `successful.mean`.
MEANS: dict[str, str] = {
    "requests_per_second": "requests_per_s",
    "request_concurrency": "achieved_concurrency",
    "prompt_token_count": "input_len",
    "output_token_count": "output_len",
    "output_tokens_per_second": "output_tok_s",
    "tokens_per_second": "total_tok_s",
}
REQUIRED_METRICS = (
    "requests_per_second",
    "request_latency",
    "time_to_first_token_ms",
    "inter_token_latency_ms",
    "prompt_token_count",
    "output_token_count",
    "output_tokens_per_second",
)
TPOT_NOTE = (
    "tpot_* = guidellm inter_token_latency_ms (per-request (last-first)/(n-1), token-weighted); "
    "guidellm time_per_output_token_ms is kept in extra only (it includes TTFT in 0.4+)"
)


def percentile_name(key: str) -> str | None:
    """`p05` → "p5", `p001` → "p0.1", `p999` → "p99.9"; None if not a guidellm percentile key."""
    digits = key[1:]
    if not key.startswith("p") or not digits.isdigit():
        return None
    value = int(digits) if len(digits) <= 2 else int(digits) / 10
    return f"p{value:g}"


def strategy_load(strategy: Mapping[str, Any], file: str, where: str) -> dict[str, Any]:
    """Load level of a guidellm scheduling strategy.

    synchronous → concurrency 1; concurrent → `streams`; constant/poisson → `rate` (req/s);
    throughput → request_rate inf. `max_concurrency` of rate strategies is a scheduler cap,
    not the load level, and stays in extra.
    """
    kind = strategy.get("type_")
    if kind == "synchronous":
        return {"concurrency": 1.0}
    if kind == "concurrent":
        return {"concurrency": number(strategy.get("streams"), file, f"{where}.streams")}
    if kind in ("constant", "poisson"):
        return {"request_rate": number(strategy.get("rate"), file, f"{where}.rate")}
    if kind == "throughput":
        return {"request_rate": math.inf}
    return {}


def load_rank(values: Mapping[str, Any], strategy: str | None) -> tuple[int, float]:
    """Sort key: synchronous first, then rates/concurrencies ascending, throughput last."""
    if strategy == "synchronous":
        return (0, 1.0)
    value = values.get("concurrency", values.get("request_rate"))
    if value is None or math.isinf(value):
        return (2, math.inf)
    return (1, float(value))


def distribution_into(
    values: dict[str, Any],
    extra: dict[str, Any],
    metric: str,
    dist: Any,
    file: str,
    where: str,
    scale: float,
) -> None:
    """Mean, p50, p90, p95, p99 of a DistributionSummary into columns; the rest into extra."""
    dist = require(dist, ("mean",), file, where)
    values[f"{metric}_mean_ms"] = _num(dist["mean"], file, f"{where}.mean") * scale
    percentiles = dist.get("percentiles") or {}
    if not isinstance(percentiles, Mapping):
        raise IngestError.one(file, f"key '{where}.percentiles': expected an object")
    for key, raw in percentiles.items():
        name = percentile_name(str(key))
        value = number(raw, file, f"{where}.percentiles.{key}")
        if name is None or value is None:
            continue
        if name in ("p50", "p90", "p95", "p99"):
            values[f"{metric}_{name}_ms"] = value * scale
        else:
            extra[f"{metric}_{name}_ms"] = value * scale
    if f"{metric}_p50_ms" not in values and dist.get("median") is not None:
        values[f"{metric}_p50_ms"] = _num(dist["median"], file, f"{where}.median") * scale
    for key in ("min", "max", "std_dev"):
        value = number(dist.get(key), file, f"{where}.{key}")
        if value is not None:
            extra[f"{metric}_{key}_ms"] = value * scale


def benchmark_point(file: str, bench: Any, index: int) -> tuple[ParsedPoint, str | None]:
    """One `benchmarks[i]` entry (any layout 0.2-0.8) → point and its strategy type."""
    where = f"benchmarks[{index}]"
    bench = require(bench, ("metrics",), file, where)
    holder = bench.get("config") if isinstance(bench.get("config"), Mapping) else bench.get("args")
    holder = require(holder, ("strategy",), file, f"{where}.config")
    strategy = require(holder["strategy"], ("type_",), file, f"{where}.config.strategy")
    metrics = require(bench["metrics"], REQUIRED_METRICS, file, f"{where}.metrics")
    values: dict[str, Any] = strategy_load(strategy, file, f"{where}.config.strategy")
    extra: dict[str, Any] = {"strategy": json_safe(strategy), "tpot_source": TPOT_NOTE}
    for name, (metric, scale) in LATENCIES.items():
        dist = _successful(metrics[name], file, f"{where}.metrics.{name}")
        distribution_into(
            values, extra, metric, dist, file, f"{where}.metrics.{name}.successful", scale
        )
    tpot_incl = metrics.get("time_per_output_token_ms")
    if isinstance(tpot_incl, Mapping) and isinstance(tpot_incl.get("successful"), Mapping):
        scratch: dict[str, Any] = {}
        key = f"{where}.metrics.time_per_output_token_ms.successful"
        dist = tpot_incl["successful"]
        distribution_into(scratch, scratch, "time_per_output_token", dist, file, key, 1.0)
        extra["guidellm_time_per_output_token_ms"] = scratch
    for name, column in MEANS.items():
        if name in metrics:
            dist = _successful(metrics[name], file, f"{where}.metrics.{name}")
            values[column] = _num(dist.get("mean"), file, f"{where}.metrics.{name}.successful.mean")
    totals = metrics.get("request_totals", bench.get("request_totals"))
    totals = require(totals, ("successful",), file, f"{where}.metrics.request_totals")
    values["num_requests"] = integer(
        totals["successful"], file, f"{where}.request_totals.successful"
    )
    failed = integer(totals.get("errored"), file, f"{where}.request_totals.errored")
    if failed is not None:
        values["num_failed"] = failed
    extra["incomplete_requests"] = totals.get("incomplete")
    duration = number(bench.get("duration"), file, f"{where}.duration")
    if duration is not None:
        values["duration_s"] = duration
    extra["benchmark"] = json_safe({k: v for k, v in bench.items() if k != "requests"})
    point = ParsedPoint(values=values, extra=extra, samples=_samples(file, bench, where, extra))
    return point, str(strategy.get("type_"))


def _successful(metric: Any, file: str, where: str) -> Mapping[str, Any]:
    metric = require(metric, ("successful",), file, where)
    return require(metric["successful"], ("mean",), file, f"{where}.successful")


def _num(value: Any, file: str, key: str) -> float:
    result = number(value, file, key)
    if result is None:
        raise IngestError.one(file, f"key {key!r}: a number is required, got null")
    return result


def _samples(
    file: str, bench: Mapping[str, Any], where: str, extra: dict[str, Any]
) -> list[tuple[Any, ...]] | None:
    """Sampled per-request stats → samples; errored requests are failures (incomplete ones,
    cut off when the benchmark ended, are neither and are left out). Without a TTFT for every
    successful request (non-streaming runs) no samples are made.

    Only requests overlapping the measurement window are kept (see `in_window`): guidellm lists
    warm-up and cool-down requests too, but leaves them out of every aggregate; they are
    counted in the point's `request_accounting`. A request's conversation (`info.
    conversation_id`, guidellm's multi-turn runs) and `info.turn_index` are its session and turn.
    """
    requests = bench.get("requests")
    if not isinstance(requests, Mapping):
        return None
    window = measurement_window(bench)
    cols = _Columns()
    for key, req, ok in _listed(file, requests, where):
        side = None if window is None else _side(req, window)
        cols.count(side, ok)
        if side is not None:
            continue
        if window is not None and straddles(req, window):
            cols.straddling += 1
        if not cols.add(file, key, req, ok):
            return None
    if cols.listed and window is not None:
        _window_notes(extra, window, cols)
    if not cols.ok:
        return None
    multi = any(c is not None for c in cols.sessions)
    return make_samples(
        cols.ttft,
        cols.e2el,
        cols.out,
        cols.inp,
        cols.ok,
        cols.sessions if multi else None,
        cols.turns if multi else None,
    )


class _Columns:
    """The kept requests' sample columns, and the count of every listed one."""

    def __init__(self) -> None:
        self.ttft: list[float | None] = []
        self.e2el: list[float | None] = []
        self.out: list[int | None] = []
        self.inp: list[int | None] = []
        self.ok: list[bool] = []
        self.sessions: list[str | None] = []
        self.turns: list[int | None] = []
        self.listed = self.straddling = self.errored = 0
        self.dropped = {"warmup": 0, "cooldown": 0}

    def count(self, side: str | None, ok: bool) -> None:
        self.listed += 1
        if side is not None:
            self.dropped[side] += 1
        elif not ok:
            self.errored += 1

    def add(self, file: str, key: str, req: Mapping[str, Any], ok: bool) -> bool:
        """Append one kept request; False when a successful one has no TTFT (no samples)."""
        if ok:
            if req.get("time_to_first_token_ms") is None or req.get("request_latency") is None:
                return False
            req = require(req, ("output_tokens",), file, key)
            ttft = number(req["time_to_first_token_ms"], file, f"{key}.time_to_first_token_ms")
            latency = number(req["request_latency"], file, f"{key}.request_latency")
            self.ttft.append(ttft)
            self.e2el.append(None if latency is None else latency * 1000.0)
            self.out.append(integer(req["output_tokens"], file, f"{key}.output_tokens"))
        else:
            self.ttft.append(None)
            self.e2el.append(None)
            self.out.append(None)
        self.inp.append(integer(req["prompt_tokens"], file, f"{key}.prompt_tokens"))
        self.ok.append(ok)
        session, turn = _conversation(file, key, req)
        self.sessions.append(session)
        self.turns.append(turn)
        return True


def _listed(
    file: str, requests: Mapping[str, Any], where: str
) -> Iterator[tuple[str, Mapping[str, Any], bool]]:
    """(key, request, succeeded) of every listed successful and errored request."""
    for status, ok in (("successful", True), ("errored", False)):
        entries = requests.get(status) or []
        if not isinstance(entries, list):
            raise IngestError.one(file, f"key {where}.requests.{status!r}: expected a list")
        for i, req in enumerate(entries):
            key = f"{where}.requests.{status}[{i}]"
            yield key, require(req, ("prompt_tokens",), file, key), ok


def _conversation(file: str, key: str, req: Mapping[str, Any]) -> tuple[str | None, int | None]:
    """A request's conversation id and turn (guidellm `RequestInfo`), None where not given."""
    info = obj(req.get("info"))
    raw = info.get("conversation_id")
    if raw is None or raw == "":
        return None, None
    if not isinstance(raw, str | int) or isinstance(raw, bool):
        raise IngestError.one(file, f"key '{key}.info.conversation_id': expected an id")
    turn = integer(info.get("turn_index"), file, f"{key}.info.turn_index")
    if turn is not None and not 0 <= turn < 2**31:
        raise IngestError.one(file, f"key '{key}.info.turn_index': expected a turn ≥ 0")
    return str(raw)[:200], turn


def _side(req: Mapping[str, Any], window: tuple[float, float]) -> str | None:
    """ "warmup" for a request that ended before the window, "cooldown" for one that started
    after it, None for one it counts (`in_window`)."""
    if in_window(req, window):
        return None
    end = request_times(req)[1]
    return "warmup" if end is not None and end < window[0] else "cooldown"


def _window_notes(extra: dict[str, Any], window: tuple[float, float], cols: _Columns) -> None:
    """The window's counts, its note, and the request accounting as InferenceX counts it."""
    kept, listed, straddling = len(cols.ok), cols.listed, cols.straddling
    extra["samples_window"] = {
        "measure_start_time": window[0],
        "measure_end_time": window[1],
        "listed": listed,
        "kept": kept,
        "straddling": straddling,
    }
    left_out = listed - kept
    extra["samples_note"] = (
        f"samples: the {kept} of {listed} listed requests (successful and errored) that "
        "overlap scheduler_metrics.measure_start_time … measure_end_time, the requests "
        "guidellm's own aggregates describe"
        + (
            f"; {left_out} warm-up or cool-down requests outside it are left out"
            if left_out
            else ""
        )
        + (
            f"; {straddling} of them straddle the window's edges and are counted whole"
            if straddling
            else ""
        )
    )
    warmup, cooldown = cols.dropped["warmup"], cols.dropped["cooldown"]
    extra["request_accounting"] = {
        "records_total": listed,
        "records_profiled": kept - cols.errored,
        "records_dropped_total": warmup + cooldown + cols.errored,
        "records_warmup_dropped": warmup,
        "records_cooldown_dropped": cooldown,
        "records_error_dropped": cols.errored,
    }


def measurement_window(bench: Mapping[str, Any]) -> tuple[float, float] | None:
    """guidellm's measurement window (0.4+ `scheduler_metrics`), None when the report has none."""
    sched = obj(bench.get("scheduler_metrics"))
    start, end = sched.get("measure_start_time"), sched.get("measure_end_time")
    if not isinstance(start, int | float) or not isinstance(end, int | float) or end < start:
        return None
    return float(start), float(end)


def request_times(req: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """(start, end) of a listed request, as guidellm's `request_start_time`/`request_end_time`
    compute them: the request's own timings, else the worker's resolve timings.

    Where they sit: computed `request_start_time`/`request_end_time` (0.8+), `info.timings`
    (0.6+), `scheduler_info.request_timings` / `.scheduler_timings` (0.4-0.5), `start_time` /
    `end_time` (0.2-0.3).
    """
    holders = [
        obj(dig(req, *path))
        for path in (
            ("info", "timings"),
            ("info", "request_timings"),
            ("scheduler_info", "request_timings"),
            ("info", "scheduler_timings"),
            ("scheduler_info", "scheduler_timings"),
        )
    ]

    def first(own: str, timed: str, resolved: str, legacy: str) -> float | None:
        values = [req.get(own), *(h.get(timed) for h in holders)]
        values += [*(h.get(resolved) for h in holders), req.get(legacy)]
        return next((float(v) for v in values if isinstance(v, int | float)), None)

    start = first("request_start_time", "request_start", "resolve_start", "start_time")
    end = first("request_end_time", "request_end", "resolve_end", "end_time")
    return start, end


def straddles(req: Mapping[str, Any], window: tuple[float, float]) -> bool:
    """Whether a request counted in the window started before it or ended after it: guidellm
    counts it whole, tokens made outside the window included."""
    start, end = request_times(req)
    return (start is not None and start < window[0]) or (end is not None and end > window[1])


def in_window(req: Mapping[str, Any], window: tuple[float, float]) -> bool:
    """guidellm's rule (`GenerativeRequestsAccumulator.get_within_range`): a request counts when
    it ends at or after the window's start and starts at or before its end (without a start
    time: ends by the window's end). A request without timings is kept: nothing says it is out.
    """
    start, end = request_times(req)
    if end is None:
        return True
    if end < window[0]:
        return False
    return start <= window[1] if start is not None else end <= window[1]


def synthetic_lengths(data: Any) -> dict[str, Any]:
    """Nominal ISL/OSL (and workload kind) of a single synthetic data source, if stated."""
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if isinstance(data, str):
        text = data.strip()
        if text.startswith("{"):
            try:
                data = load_yaml(text, "(data source)")
            except (yaml.YAMLError, IngestError):
                return {}
        else:
            pairs = [p.split("=", 1) for p in text.split(",") if "=" in p]
            data = {k.strip(): v.strip() for k, v in pairs}
            if data:
                data["kind"] = "synthetic"
    if not isinstance(data, Mapping):
        return {}
    out: dict[str, Any] = {}
    for key, column in (("prompt_tokens", "isl"), ("output_tokens", "osl")):
        value = data.get(key)
        if isinstance(value, int | str) and str(value).isdigit():
            out[column] = int(value)
    if out and data.get("kind"):
        out["workload"] = str(data["kind"])
    return out


def dig(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def sweep_name(model: Any, stem: str) -> str:
    """'<model basename> · guidellm · <file stem>' (the model part only when known)."""
    label = str(model).rstrip("/").rsplit("/", 1)[-1] if model else None
    return " · ".join(p for p in (label, "guidellm", stem) if p)


def obj(value: Any) -> Mapping[str, Any]:
    """The value if it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}
