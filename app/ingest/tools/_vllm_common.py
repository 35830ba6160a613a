"""Helpers shared by the vLLM, SGLang and InferenceX importers (this module is not an importer).

A `Record` is one benchmark result object (one load level) together with where it came from, so
every typed read can name the file, the row (JSONL line, JSON list item or CSV row) and the key.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from app.ingest.common import integer, number
from app.ingest.errors import IngestError
from app.ingest.parsed import ParsedPoint, make_samples, point_label

# Statistic prefix → canonical statistic; anything else (std, p99.9, p25, ...) stays in `extra`.
CANONICAL_STAT = {
    "mean": "mean",
    "median": "p50",
    "p50": "p50",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
}
STAT_KEY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(.+)_ms$")
# A point's extra: how many of the file's `completed` requests were empty streams.
EMPTY_STREAMS = "empty_streams_counted_as_completed"
# Per-request arrays of vLLM --save-detailed and SGLang --output-details (times in seconds).
DETAIL_KEYS = (
    "input_lens",
    "output_lens",
    "ttfts",
    "itls",
    "latencies",
    "start_times",
    "queue_times",
    "generated_texts",
    "errors",
)


@dataclass
class Record:
    data: dict[str, Any]
    file: str
    row: int | None  # JSONL line, JSON list item (1-based) or CSV row; None: one object per file
    fmt: str  # what the record was read from, e.g. "vLLM bench serve result JSON"

    @property
    def where(self) -> str:
        return f"row {self.row}" if self.row is not None else ""


@contextmanager
def at_row(rec: Record) -> Iterator[None]:
    """Re-raise an IngestError from inside with the record's row attached."""
    try:
        yield
    except IngestError as exc:
        if rec.row is None:
            raise
        raise IngestError([replace(e, row=e.row or rec.row) for e in exc.errors]) from None


def fail(rec: Record, message: str) -> IngestError:
    return IngestError.one(rec.file, message, row=rec.row)


def num(rec: Record, key: str, *, allow_inf: bool = False) -> float | None:
    with at_row(rec):
        return number(rec.data.get(key), rec.file, key, allow_inf=allow_inf)


def whole(rec: Record, key: str) -> int | None:
    with at_row(rec):
        return integer(rec.data.get(key), rec.file, key)


def require_keys(rec: Record, keys: tuple[str, ...]) -> None:
    for key in keys:
        if key not in rec.data:
            raise fail(rec, f"required key {key!r} is missing")


def text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def model_name(model: str) -> str:
    """A readable model name: HF ids stay; local paths become the HF id or the last folder.

    `/models/models--openai--gpt-oss-120b/snapshots/<sha>/` → `openai/gpt-oss-120b`;
    `/model/ModelScope/Qwen/Qwen2.5-Coder-7B-Instruct` → `Qwen2.5-Coder-7B-Instruct`.
    """
    parts = [p for p in model.replace("\\", "/").split("/") if p]
    for part in parts:
        if part.startswith("models--"):
            return "/".join(part.removeprefix("models--").split("--"))
    if model.startswith(("/", ".", "~")) or len(parts) > 2:
        return parts[-1] if parts else model
    return model


def model_basename(model: str | None) -> str | None:
    return model.rsplit("/", 1)[-1] if model else None


def run_date(value: Any) -> dt.date | None:
    """`YYYYMMDD-HHMMSS` (vLLM `date`) → date; anything else → None (the raw value stays)."""
    if isinstance(value, str):
        match = re.match(r"^(\d{4})(\d{2})(\d{2})(?:-\d{6})?$", value.strip())
        if match:
            try:
                return dt.date(*(int(g) for g in match.groups()))
            except ValueError:
                return None
    return None


def latency_stats(
    rec: Record, values: dict[str, Any], metrics: Mapping[str, str], scale: float = 1.0
) -> set[str]:
    """`{stat}_{metric}_ms` keys → `{canonical metric}_{stat}_ms`; returns the keys consumed.

    `median` is p50 (and wins over a `p50` key of the same run); std and other percentiles
    are not consumed, so they stay in `extra`.
    """
    used: set[str] = set()
    for key in sorted(rec.data, key=lambda k: k.startswith("median_")):
        match = STAT_KEY.match(key)
        if not match or match.group(2) not in metrics:
            continue
        stat = CANONICAL_STAT.get(match.group(1))
        if stat is None:
            continue
        value = num(rec, key)
        used.add(key)
        if value is not None:
            values[f"{metrics[match.group(2)]}_{stat}_ms"] = value * scale
    return used


class Detail(NamedTuple):
    """A record's per-request samples, how many failed, and how many of those are empty
    streams: no error given, but TTFT 0 and no output token (see `request_samples`)."""

    samples: list[tuple[Any, ...]]
    failed: int
    empty_streams: int


def request_samples(rec: Record) -> Detail | None:
    """Per-request arrays (seconds) → request samples in ms, and the number of failed requests.

    Failed requests are the ones with a non-empty `errors` entry: vLLM and SGLang both keep
    every issued request in these arrays, with ttft 0, latency 0, no ITLs and output length 0
    for a failure (a failure whose HTTP reason was empty has an empty error string, so a
    request with ttft and latency both 0 counts as failed too). A request with an empty error
    string, TTFT 0 and no output token is an empty stream: the server answered, but no token
    came back. It failed too, whatever its latency; older vLLM counted such requests in
    `completed` (see `check_completed`). The
    end-to-end latency is `latencies[i]` where the file has it (newer serve.py), else
    `ttfts[i] + sum(itls[i])` (legacy vLLM and SGLang), which is the same interval: first
    chunk plus every later chunk gap.
    """
    d = rec.data
    if d.get("ttfts") is None:
        return None
    ttfts = _array(rec, "ttfts", None)
    n = len(ttfts)
    outs = _array(rec, "output_lens", n)
    ins = _array(rec, "input_lens", n) if d.get("input_lens") is not None else None
    errors = _array(rec, "errors", n) if d.get("errors") is not None else None
    lats = _array(rec, "latencies", n) if d.get("latencies") is not None else None
    itls = _array(rec, "itls", n) if d.get("itls") is not None else None
    if lats is None and itls is None:
        raise fail(rec, "key 'ttfts' needs 'latencies' or 'itls' for each request's latency")
    ttft_ms: list[float | None] = []
    e2el_ms: list[float | None] = []
    out_len: list[int | None] = []
    in_len: list[int | None] = []
    ok: list[bool] = []
    empty = 0
    with at_row(rec):
        for i in range(n):
            ttft = number(ttfts[i], rec.file, f"ttfts[{i}]") or 0.0
            if lats is not None:
                e2e = number(lats[i], rec.file, f"latencies[{i}]") or 0.0
            else:
                gaps = itls[i] if itls is not None else None
                if not isinstance(gaps, list):
                    raise IngestError.one(rec.file, f"key 'itls[{i}]': expected a list")
                e2e = ttft + sum(number(g, rec.file, f"itls[{i}]") or 0.0 for g in gaps)
            error = errors is not None and bool(errors[i])
            no_token = ttft == 0 and not integer(outs[i], rec.file, f"output_lens[{i}]")
            failed = error or (ttft == 0 and e2e == 0) or no_token
            empty += failed and not error and no_token
            ok.append(not failed)
            in_len.append(integer(ins[i], rec.file, f"input_lens[{i}]") if ins else None)
            if failed:
                ttft_ms.append(None)
                e2el_ms.append(None)
                out_len.append(None)
            else:
                ttft_ms.append(ttft * 1000)
                e2el_ms.append(e2e * 1000)
                out_len.append(integer(outs[i], rec.file, f"output_lens[{i}]"))
    return Detail(make_samples(ttft_ms, e2el_ms, out_len, in_len, ok), ok.count(False), empty)


def _array(rec: Record, key: str, length: int | None) -> list[Any]:
    value = rec.data.get(key)
    if not isinstance(value, list):
        raise fail(rec, f"key {key!r}: expected a list of per-request values")
    if length is not None and len(value) != length:
        raise fail(rec, f"key {key!r}: {len(value)} entries, but 'ttfts' has {length}")
    return value


def check_completed(
    rec: Record, samples: list[tuple[Any, ...]], completed: int | None, empty_streams: int = 0
) -> int:
    """How many of the file's `completed` requests were empty streams (0 when the count and
    the arrays agree). Older vLLM counted a request whose stream came back empty (TTFT 0, no
    output token, empty error string) as completed: up to `empty_streams` such requests explain
    a `completed` above the successful requests of the arrays. Any other difference is refused.
    """
    good = sum(1 for s in samples if s[4])
    if completed is None or good == completed:
        return 0
    if 0 < completed - good <= empty_streams:
        return completed - good
    raise fail(
        rec,
        f"key 'completed': {completed}, but the per-request arrays hold {good} "
        "successful requests" + (f" (and {empty_streams} empty streams)" if empty_streams else ""),
    )


def count_empty_streams(point: ParsedPoint, empty: int) -> None:
    """The request counts follow the arrays: an empty stream the file counted as completed is
    no success. The file's own statistics (means, percentiles, throughput, token totals) stay
    as written; the point's extra says how many there were."""
    completed = point.values.get("num_requests")
    if empty and completed is not None:
        point.values["num_requests"] = completed - empty
        point.extra[EMPTY_STREAMS] = empty


def empty_stream_warning(points: list[ParsedPoint], tool: str) -> str | None:
    """How many requests the file counted as completed came back as empty streams."""
    counts = [(p, p.extra[EMPTY_STREAMS]) for p in points if p.extra.get(EMPTY_STREAMS)]
    if not counts:
        return None
    total = sum(n for _, n in counts)
    where = ", ".join(f"{n} {point_label(p)}" for p, n in counts)
    requests = "1 request" if total == 1 else f"{total:,} requests"
    return (
        f"{requests} counted as completed returned an empty stream (TTFT 0, no output tokens): "
        f"counted as failed ({where}). Goodput and attainment count them as misses and the "
        "stored request counts leave them out of the completed; the file's own statistics "
        f"(mean and percentile latencies, throughput, mean lengths) are kept as {tool} computed "
        "them, with these requests among the completed."
    )


def point_order(point: ParsedPoint) -> tuple[float, float, float]:
    v = point.values
    conc = v.get("concurrency")
    rate = v.get("request_rate")
    return (
        conc if conc is not None else -1.0,
        rate if rate is not None else -1.0,
        float(point.extra.get("run_number") or 0),
    )


def gpu_key(hw: str) -> str:
    """InferenceX runner name → hardware key: `mi355x` → `MI355X`, `b200-multinode` → `B200`."""
    return re.split(r"[-_]", hw.strip(), maxsplit=1)[0].upper()
