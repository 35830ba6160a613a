"""guidellm's listed requests → request samples of a point: which fall in the measurement
window (warm-up and cool-down ones counted apart, as guidellm's aggregates leave them out), each
request's session and turn (`info.conversation_id`, `info.turn_index`), and the notes on the
window. Split from `_guidellm_benchmark` (one entry of `benchmarks[]`), which calls it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from app.ingest.common import dig, integer, number, obj, require
from app.ingest.errors import IngestError
from app.ingest.parsed import make_samples


def request_samples(
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
