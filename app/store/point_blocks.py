"""A sweep's points stored as one block: their columns as doubles, written and read with numpy.

A canonical file of 3,125 sweeps and 100,000 points stored a row per point: the database's
per-row work (foreign-key check, two indexes, WAL) took longer than everything else the upload
did. One block per sweep is one row per sweep. Points never change after upload.

A block is a JSON header line, then the numeric columns it names as little-endian doubles, point
by point (C order), then one byte per value, 1 where it was measured:

    {"n": points, "numeric": [names], "text": {name: [value or null per point]},
     "extra": [[position, "JSON text"], ...]}\\n

Integer columns are doubles in the block (exact: they are at most 2**31 - 1) and ints again when
read. A point's id is its sweep's id times POINT_ID_STRIDE plus its position: ids stay stable,
need no sequence, and name their sweep.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from app.domain.accounting import POINT_SPLIT_KEYS, point_split
from app.domain.columns import POINT_COLUMNS
from app.domain.covariates import POINT_COVARIATES, point_covariates
from app.domain.histogram_attainment import point_histograms
from app.domain.numbers import finite_number
from app.domain.stat_names import statistic_field
from app.ingest.limits import MAX_POINTS_PER_SWEEP

# Positions per sweep (uploads refuse more); sweep ids up to ~9e8 keep ids below 2**53.
POINT_ID_STRIDE = MAX_POINTS_PER_SWEEP + 1
NUMERIC: tuple[str, ...] = tuple(c.name for c in POINT_COLUMNS if c.kind in ("int", "float"))
INTEGER: frozenset[str] = frozenset(c.name for c in POINT_COLUMNS if c.kind == "int")
TEXT: tuple[str, ...] = tuple(c.name for c in POINT_COLUMNS if c.kind not in ("int", "float"))


def point_id(sweep_id: int, position: int) -> int:
    return sweep_id * POINT_ID_STRIDE + position


def sweep_of(point: int) -> tuple[int, int]:
    """(sweep id, position) of a point id."""
    return divmod(point, POINT_ID_STRIDE)


@dataclass(slots=True)
class StoredPoint:
    """One load level of a sweep; latencies in ms, throughputs for the whole deployment."""

    id: int
    sweep_id: int
    position: int
    concurrency: float | None = None
    request_rate: float | None = None
    achieved_concurrency: float | None = None
    num_requests: int | None = None
    num_failed: int | None = None
    duration_s: float | None = None
    input_len: float | None = None
    output_len: float | None = None
    ttft_mean_ms: float | None = None
    ttft_p50_ms: float | None = None
    ttft_p90_ms: float | None = None
    ttft_p95_ms: float | None = None
    ttft_p99_ms: float | None = None
    tpot_mean_ms: float | None = None
    tpot_p50_ms: float | None = None
    tpot_p90_ms: float | None = None
    tpot_p95_ms: float | None = None
    tpot_p99_ms: float | None = None
    itl_mean_ms: float | None = None
    itl_p50_ms: float | None = None
    itl_p90_ms: float | None = None
    itl_p95_ms: float | None = None
    itl_p99_ms: float | None = None
    e2el_mean_ms: float | None = None
    e2el_p50_ms: float | None = None
    e2el_p90_ms: float | None = None
    e2el_p95_ms: float | None = None
    e2el_p99_ms: float | None = None
    output_tok_s: float | None = None
    total_tok_s: float | None = None
    requests_per_s: float | None = None
    goodput_requests_per_s: float | None = None
    goodput_slo: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_ENCODER = json.JSONEncoder(separators=(",", ":"))  # built once, not per block


def encode_frame(frame: pl.DataFrame) -> Iterator[tuple[int, int, bytes]]:
    """(sweep id, number of points, block) of each sweep of a frame of sweep_id, position,
    extra (JSON text) and any point columns, sorted by sweep and position."""
    if frame.is_empty():
        return
    numeric = [c for c in NUMERIC if c in frame.columns]
    texts = [c for c in TEXT if c in frame.columns]
    n = frame.height
    values = np.zeros((n, len(numeric)), dtype="<f8")
    measured = np.zeros((n, len(numeric)), dtype=np.uint8)
    for j, name in enumerate(numeric):
        column = frame[name].cast(pl.Float64)
        given = column.is_not_null().to_numpy()
        values[:, j] = np.where(given, column.to_numpy(), 0.0)
        measured[:, j] = given
    sweep_ids = frame["sweep_id"].to_numpy()
    starts = np.flatnonzero(np.diff(sweep_ids)) + 1
    bounds = zip(np.concatenate([[0], starts]), np.concatenate([starts, [n]]), strict=True)
    extras = frame["extra"]
    # Only points with extra fields are listed: most have none.
    with_extra = np.flatnonzero((extras.is_not_null() & (extras != "{}")).to_numpy())
    text_values = {c: frame[c].to_list() for c in texts if frame[c].null_count() < n}
    plain: dict[int, bytes] = {}  # the header of a sweep of n points with no text or extra
    for start, stop in bounds:
        start, stop = int(start), int(stop)
        first = last = 0
        if len(with_extra):
            first, last = np.searchsorted(with_extra, [start, stop])
        if text_values or first < last:
            header: dict[str, Any] = {"n": stop - start, "numeric": numeric}
            if text_values:
                header["text"] = {c: v[start:stop] for c, v in text_values.items()}
            if first < last:
                header["extra"] = [[int(i) - start, extras[int(i)]] for i in with_extra[first:last]]
            head = _ENCODER.encode(header).encode()
        else:
            head = plain.get(stop - start) or plain.setdefault(
                stop - start, _ENCODER.encode({"n": stop - start, "numeric": numeric}).encode()
            )
        block = b"".join(
            (head, b"\n", values[start:stop].tobytes(), measured[start:stop].tobytes())
        )
        yield int(sweep_ids[start]), stop - start, block


def binary_copy(blocks: list[tuple[int, int, bytes]]) -> bytes:
    """(sweep_id, points, data) rows in Postgres' binary COPY format, built in one go (psycopg's
    write_row costs more per row than the server does)."""
    parts = [b"PGCOPY\n\xff\r\n\x00", struct.pack(">ii", 0, 0)]
    for sweep_id, n, data in blocks:
        parts += [struct.pack(">hiiiii", 3, 4, sweep_id, 4, n, len(data)), data]
    parts.append(struct.pack(">h", -1))
    return b"".join(parts)


def decode(data: bytes) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The header, the doubles (points x numeric columns) and which were measured."""
    raw = bytes(data)
    end = raw.index(b"\n")
    header: dict[str, Any] = json.loads(raw[:end])
    n, width = header["n"], len(header["numeric"])
    body = np.frombuffer(raw, dtype="<f8", count=n * width, offset=end + 1).reshape(n, width)
    flags = np.frombuffer(raw, dtype=np.uint8, count=n * width, offset=end + 1 + 8 * n * width)
    return header, body, flags.reshape(n, width).astype(bool)


def rows(sweep_id: int, data: bytes) -> list[dict[str, Any]]:
    """Each point as a dict of every point column (None where not measured), position,
    sweep_id and point_id, in position order; a point whose extra fields hold percentiles
    beyond the columns (p75, p99.9, …) has them as "stored_percentiles" (see
    `stored_percentiles`), one whose extra fields give its own prefill:decode split has it as
    "split" (prefill GPUs, decode GPUs)."""
    header, body, measured = decode(data)
    out = _rows(sweep_id, header, body, measured)
    for position, text in header.get("extra", []):
        if _PERCENTILE_HINT.search(text):
            found = stored_percentiles(json.loads(text))
            if found:
                out[int(position)]["stored_percentiles"] = found
        if _COVARIATE_HINT.search(text):
            covariates = point_covariates(json.loads(text))
            if covariates:
                out[int(position)]["covariates"] = covariates
        if _SPLIT_HINT.search(text):
            split = point_split(json.loads(text))
            if split is not None:
                out[int(position)]["split"] = split
        if _INVALID_HINT in text and json.loads(text).get("harness_result") == "INVALID":
            out[int(position)]["invalid"] = True  # never meets an SLO (app.domain.checks)
        if _HISTOGRAM_HINT in text:  # attainment bounds off the buckets (issue 51)
            out[int(position)]["histograms"] = point_histograms(json.loads(text))
    return out


# Latency histograms an importer kept (MLCommons endpoints: `ttft_histogram_ms`).
_HISTOGRAM_HINT = '_histogram_ms"'


# A harness's own verdict on the run (MLPerf LoadGen's "Result is : INVALID").
_INVALID_HINT = '"INVALID"'


# Speculative decoding, prefix-cache and power figures in extra (app.domain.covariates).
_COVARIATE_HINT = re.compile("|".join(f'"{key}"' for key in POINT_COVARIATES))
# A point's own prefill:decode split (a split that changes along the sweep), as "split".
_SPLIT_HINT = re.compile("|".join(f'"{key}"' for key in POINT_SPLIT_KEYS))


# Other percentiles as the importers keep them in extra, in ms: "ttft_p99.9_ms" (guidellm,
# inference-perf, llm-d) and "p99.9_ttft_ms" (vLLM bench serve and its InferenceX raw files).
_READ_OFF_METRICS = frozenset({"ttft", "tpot", "e2el"})  # the metrics an SLO limits
_PERCENTILE_HINT = re.compile(r'"(?:(?:ttft|tpot|e2el)_p[0-9.]+|p[0-9.]+_(?:ttft|tpot|e2el))_ms"')


def stored_percentiles(extra: dict[str, Any]) -> dict[str, dict[str, float]]:
    """{metric: {"p99.9": ms}} of the percentiles a point's extra fields hold (top level only):
    numbers, or number text (a canonical file's extra columns, e.g. `ttft_p99.9_ms`)."""
    out: dict[str, dict[str, float]] = {}
    for key, value in extra.items():
        named = statistic_field(key) if isinstance(key, str) else None
        if named is None or named[0] not in _READ_OFF_METRICS or not named[1].startswith("p"):
            continue
        number = finite_number(value)
        if number is not None:
            out.setdefault(named[0], {})[named[1]] = number
    return out


def own_splits(header: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Each point's own prefill and decode GPUs from a block's header (NaN where the point has
    none of its own: it has its sweep's)."""
    n = header["n"]
    prefill, decode = np.full(n, np.nan), np.full(n, np.nan)
    for position, text in header.get("extra", []):
        if _SPLIT_HINT.search(text):
            split = point_split(json.loads(text))
            if split is not None:
                p, d = split
                prefill[int(position)] = np.nan if p is None else p
                decode[int(position)] = np.nan if d is None else d
    return prefill, decode


def stored_points(sweep_id: int, data: bytes | None) -> list[StoredPoint]:
    if data is None:
        return []
    header, body, measured = decode(data)
    extras = {int(i): json.loads(text) for i, text in header.get("extra", [])}
    out = []
    for row in _rows(sweep_id, header, body, measured):
        del row["point_id"]
        out.append(StoredPoint(id=point_id(sweep_id, row["position"]), **row))
        out[-1].extra = extras.get(row["position"], {})
    return out


def _rows(
    sweep_id: int, header: dict[str, Any], body: np.ndarray, measured: np.ndarray
) -> list[dict[str, Any]]:
    columns: dict[str, list[Any]] = {}
    for j, name in enumerate(header["numeric"]):
        column = body[:, j].tolist()
        known = measured[:, j].tolist()
        if name in INTEGER:
            columns[name] = [int(v) if k else None for v, k in zip(column, known, strict=True)]
        else:
            columns[name] = [v if k else None for v, k in zip(column, known, strict=True)]
    columns.update(header.get("text", {}))
    out = []
    for position in range(header["n"]):
        row: dict[str, Any] = dict.fromkeys(NUMERIC + TEXT)
        for name, values in columns.items():
            row[name] = values[position]
        row.update(sweep_id=sweep_id, position=position, point_id=point_id(sweep_id, position))
        out.append(row)
    return out
