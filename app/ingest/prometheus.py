"""A live pull: a deployment's windows asked of a Prometheus HTTP query API (Prometheus, Thanos,
Mimir, VictoriaMetrics), read-only (GET /api/v1/query and /api/v1/query_range only).

Each window is computed where the data lives: bucket and counter increases with PromQL's
`increase()`, summed over the selected series by `le`, the running gauge with
`avg_over_time()`, and `histogram_quantile()` over the same increases for the percentiles.
Raw series never travel. `increase()` extrapolates to the window's edges (Prometheus's rule),
so counts can differ from two snapshots' difference by up to a scrape interval's share of the
window; percentiles are the same rule as the snapshots'. Long ranges are asked in bounded
chunks of windows; the whole pull has one time box.
"""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.domain.numbers import fmt_number
from app.domain.prom_histogram import Histogram, HistogramError, histogram_of
from app.domain.prom_increase import le_ms
from app.domain.prom_names import HISTOGRAMS, Measure, engine_of
from app.domain.prom_text import promql_selector
from app.domain.prom_window import Refused, WindowPoint, Windows, resolve_names

MAX_ANSWER_BYTES = 32 * 1024 * 1024
WINDOWS_PER_QUERY = 1_000  # below Prometheus's 11,000 points per series
MAX_WINDOWS = 10_000
QUANTILES = (0.5, 0.9, 0.99)
EXTRAPOLATION_NOTE = (
    "from a live pull: increase() extrapolates to the window's edges, as Prometheus computes it"
)


class PullError(Exception):
    """The server cannot be read, or did not answer in time; the message says which."""


@dataclass
class Pull:
    windows: Windows
    # PromQL's own histogram_quantile per window end and measure: {end_s: {measure: {q: ms}}}
    promql_percentiles: dict[float, dict[str, dict[float, float | None]]] = field(
        default_factory=dict
    )


def _duration(seconds: float) -> str:
    return f"{round(seconds * 1000)}ms"


class _Client:
    def __init__(self, base_url: str, timeout_s: float) -> None:
        parts = urllib.parse.urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise PullError(f"the Prometheus URL {base_url[:200]!r} is not an http(s) address")
        self.base = base_url.strip().rstrip("/")
        self.deadline = time.monotonic() + timeout_s
        self.timeout_s = timeout_s

    def get(self, path: str, params: Mapping[str, str]) -> Any:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise PullError(f"Prometheus did not answer within {fmt_number(self.timeout_s)} s")
        url = f"{self.base}{path}?{urllib.parse.urlencode(params)}"
        request = urllib.request.Request(url, method="GET", headers={"Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=left) as answer:
                raw = answer.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise PullError(
                f"Prometheus answered {exc.code}: {_error_of(exc.read(4096))}"
            ) from None
        except TimeoutError:
            raise PullError(
                f"Prometheus at {self.base} did not answer within {fmt_number(self.timeout_s)} s"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise PullError(f"Prometheus at {self.base} is unreachable: {reason}") from None
        if len(raw) > MAX_ANSWER_BYTES:
            raise PullError(f"Prometheus answered over {MAX_ANSWER_BYTES:,} bytes")
        try:
            doc = json.loads(raw)
        except ValueError:
            raise PullError("Prometheus answered something that is not JSON") from None
        if not isinstance(doc, dict) or doc.get("status") != "success":
            raise PullError(f"Prometheus refused the query: {_error_of(raw)}")
        return doc.get("data")

    def instant(self, query: str, at_s: float) -> list[dict[str, Any]]:
        data = self.get("/api/v1/query", {"query": query, "time": repr(at_s)})
        return _result(data, "/api/v1/query", None)

    def ranged(
        self, query: str, first_end_s: float, last_end_s: float, step_s: float
    ) -> list[dict[str, Any]]:
        params = {
            "query": query,
            "start": f"{first_end_s:.3f}",
            "end": f"{last_end_s:.3f}",
            "step": _duration(step_s),
        }
        data = self.get("/api/v1/query_range", params)
        return _result(data, "/api/v1/query_range", "values")


def _result(data: Any, path: str, values: str | None) -> list[dict[str, Any]]:
    """The answer's series, each checked for the shape the pull reads (a `metric` of labels,
    and for a range `values` of [time, "number"] pairs); a PullError names the bad part."""
    if data is None:
        return []

    def bad(part: str) -> PullError:
        return PullError(f"Prometheus answered a malformed {path} result: {part}")

    result = data.get("result") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(result, list | type(None)):
        raise bad("data.result is not a list of series")
    for i, series in enumerate(result or []):
        if not isinstance(series, dict):
            raise bad(f"result[{i}] is not an object")
        labels = series.get("metric")
        if not isinstance(labels, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            raise bad(f"result[{i}] has no metric (an object of text labels)")
        if values is None:
            continue
        pairs = series.get(values)
        if not isinstance(pairs, list):
            raise bad(f"result[{i}].{values} is not a list")
        for j, pair in enumerate(pairs):
            if not _sample_pair(pair):
                raise bad(f'result[{i}].{values}[{j}] is not a [time, "number"] pair')
    return list(result or [])


def _sample_pair(pair: Any) -> bool:
    if not isinstance(pair, list | tuple) or len(pair) != 2:
        return False
    at, value = pair
    if isinstance(at, bool) or not isinstance(at, int | float | str) or not isinstance(value, str):
        return False
    try:
        float(value)  # NaN and ±Inf are answers (histogram_quantile of an empty window)
        return math.isfinite(float(at))
    except ValueError:
        return False


def _error_of(raw: bytes) -> str:
    try:
        doc = json.loads(raw)
        return str(doc.get("error") or doc)[:300]
    except ValueError:
        return raw[:300].decode("utf-8", "replace")


def _matcher(name: str, selector: Mapping[str, str]) -> str:
    inner = promql_selector(dict(selector))
    return f"{name}{{{inner}}}" if inner else name


def pull(
    base_url: str,
    selector: Mapping[str, str],
    start_s: float,
    end_s: float,
    *,
    num_gpus: int | None,
    window_s: float,
    timeout_s: float,
) -> Pull:
    """Windows ending at start + k·window ≤ end, each computed by the server."""
    wrong = range_problem(start_s, end_s, window_s)
    if wrong:
        raise PullError(wrong[1])
    count = math.floor((end_s - start_s) / window_s + 1e-9)
    client = _Client(base_url, timeout_s)
    listed = client.instant(
        'group by (__name__, model_name) ({__name__=~"(vllm|sglang):.+"'
        + (f",{promql_selector(dict(selector))}" if selector else "")
        + "})",
        end_s,
    )
    names = {str(r["metric"].get("__name__")) for r in listed}
    models = {r["metric"]["model_name"] for r in listed if "model_name" in r["metric"]}
    engine = engine_of(names)
    if engine is None:
        raise PullError("Prometheus holds no vLLM or SGLang series for that selector")
    if len(models) > 1:
        raise PullError(
            f"mixed label sets: series of {len(models)} models "
            f"({', '.join(sorted(models)[:3])}); choose one with a selector"
        )
    resolved = resolve_names(engine, names)
    if "e2el" not in resolved or "output_tokens" not in resolved:
        raise PullError("Prometheus holds no E2E latency histogram or generated-token counter")
    # Whole milliseconds, as Prometheus keeps time: the answer's times are then these exactly.
    start_ms, window_ms = round(start_s * 1000), round(window_s * 1000)
    ends = [(start_ms + (k + 1) * window_ms) / 1000 for k in range(count)]
    out = Pull(Windows(engine=engine.engine, model=next(iter(models)) if models else None))
    for at in range(0, count, WINDOWS_PER_QUERY):
        chunk = ends[at : at + WINDOWS_PER_QUERY]
        _chunk(client, chunk, resolved, selector, window_s, num_gpus, out)
    return out


def range_problem(start_s: float, end_s: float, window_s: float) -> tuple[str, str] | None:
    """What is wrong with a pull's own range, as (field, reason), or None: the request's
    fault, whatever Prometheus holds."""
    if not end_s > start_s:
        return ("end", "the end of the range must be after its start")
    count = math.floor((end_s - start_s) / window_s + 1e-9)
    if count < 1:
        return ("window_s", f"the range is shorter than one {fmt_number(window_s)} s window")
    if count > MAX_WINDOWS:
        return ("end", f"{count:,} windows; at most {MAX_WINDOWS:,} per pull")
    return None


def _by_time(result: list[dict[str, Any]], key: str | None) -> dict[int, dict[str, float]]:
    """{evaluation time in ms: {label value (or ""): value}}."""
    out: dict[int, dict[str, float]] = {}
    for series in result:
        label = series.get("metric", {}).get(key, "") if key else ""
        for t, v in series.get("values") or []:
            out.setdefault(round(float(t) * 1000), {})[label] = float(v)
    return out


ByTime = dict[int, dict[str, float]]


@dataclass(frozen=True)
class _Ranged:
    """The range queries' answers for a chunk of windows, each {time in ms: {label: value}}."""

    buckets: dict[Measure, ByTime]
    sums: dict[Measure, ByTime]
    output: ByTime
    prompt: ByTime | None
    running: ByTime | None
    quantiles: dict[tuple[Measure, float], ByTime]


def _ranged(
    client: _Client,
    ends: list[float],
    names: Mapping[Measure, str],
    selector: Mapping[str, str],
    window_s: float,
) -> _Ranged:
    """Each series' increase (a gauge's average) over the windows ending at `ends`."""
    w = _duration(window_s)

    def ranged(query: str, key: str | None = None) -> ByTime:
        return _by_time(client.ranged(query, ends[0], ends[-1], window_s), key)

    def increase(name: str) -> ByTime:
        return ranged(f"sum(increase({_matcher(name, selector)}[{w}]))")

    buckets = {
        m: ranged(f"sum by (le) (increase({_matcher(names[m] + '_bucket', selector)}[{w}]))", "le")
        for m in HISTOGRAMS
        if m in names
    }
    sums = {m: increase(names[m] + "_sum") for m in buckets}
    output = increase(names["output_tokens"])
    prompt = increase(names["prompt_tokens"]) if "prompt_tokens" in names else None
    running = (
        ranged(f"sum(avg_over_time({_matcher(names['running'], selector)}[{w}]))")
        if "running" in names
        else None
    )
    quantiles = {
        (m, q): ranged(
            f"histogram_quantile({q}, sum by (le) "
            f"(increase({_matcher(names[m] + '_bucket', selector)}[{w}])))"
        )
        for m in buckets
        for q in QUANTILES
    }
    return _Ranged(buckets, sums, output, prompt, running, quantiles)


def _histograms(got: _Ranged, names: Mapping[Measure, str], t: int) -> dict[Measure, Histogram]:
    """The window's histograms at time `t`; raises when one has no buckets."""
    hists = {}
    for m, series in got.buckets.items():
        found = series.get(t)
        if not found:
            raise HistogramError(f"missing buckets: no {names[m]}_bucket in the window")
        total = got.sums[m].get(t, {}).get("")
        hists[m] = histogram_of(
            {le_ms(le): v for le, v in found.items()},
            names[m],
            None if total is None else total * 1000,
        )
    return hists


def _chunk(
    client: _Client,
    ends: list[float],
    names: Mapping[Measure, str],
    selector: Mapping[str, str],
    window_s: float,
    num_gpus: int | None,
    out: Pull,
) -> None:
    got = _ranged(client, ends, names, selector, window_s)
    for end in ends:
        t = round(end * 1000)
        start = end - window_s
        try:
            hists = _histograms(got, names, t)
        except (HistogramError, ValueError) as exc:
            out.windows.refused.append(Refused(start, end, str(exc)))
            continue
        requests = hists["e2el"].total
        if requests <= 0:
            out.windows.refused.append(
                Refused(start, end, "no traffic: no request finished in the window")
            )
            continue
        gauge = None if got.running is None else got.running.get(t, {}).get("")
        out.windows.points.append(
            WindowPoint(
                start_s=start,
                end_s=end,
                requests=requests,
                output_tokens=got.output.get(t, {}).get("", 0.0),
                prompt_tokens=None if got.prompt is None else got.prompt.get(t, {}).get("", 0.0),
                num_gpus=num_gpus,
                concurrency=gauge,
                concurrency_reason=None if gauge is not None else "no running-requests gauge",
                histograms=hists,
                names={m: n for m, n in names.items() if m in HISTOGRAMS},
                notes=(EXTRAPOLATION_NOTE,),
                extrapolated=True,
            )
        )
        out.promql_percentiles[end] = {
            m: {q: _finite(got.quantiles[(m, q)].get(t, {}).get("")) for q in QUANTILES}
            for m in got.buckets
        }


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value * 1000
