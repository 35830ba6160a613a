"""A point's samples digest (app.ingest.sample_digest) is the same bytes hashed whichever way
it is computed: started on a helper thread when the samples are attached, on the helper threads
for a large sweep, or one after another; a point whose samples change is digested again. The
bytes are those its docstring defines (format 2, typed values), checked against a plain-Python
writing of that definition; format 1 (CSV text) is still computed to find older sweeps."""

from __future__ import annotations

import hashlib
import json
import math
import struct
from typing import Any

import polars as pl
import pytest

from app.ingest import UploadFile, parse_upload, parsed, sample_digest
from app.ingest.canonical_requests import parse_requests_csv
from app.ingest.sample_digest import CSV, PARALLEL_MIN_ROWS, frame_digest, point_digests
from tests.ingest.test_canonical_bulk import as_bytes, request_rows


def _points(n: int, points: int) -> list[parsed.ParsedPoint]:
    groups = parse_requests_csv("r.csv", as_bytes(request_rows(n, points)))
    return [parsed.ParsedPoint({"concurrency": g.concurrency}, samples=g.samples) for g in groups]


def _csv_sha256(point: parsed.ParsedPoint) -> str:
    frame = point.samples_frame().drop("session_id", "turn_index", "phase")
    return hashlib.sha256(frame.write_csv(float_precision=None).encode()).hexdigest()


def _hashed(point: parsed.ParsedPoint) -> pl.DataFrame:
    """The columns its digest reads: these files give no session and no warm-up."""
    return point.samples_frame().drop("session_id", "turn_index", "phase")


def values_sha256(frame: pl.DataFrame) -> str:
    """Format 2 as the module's docstring words it, one value at a time in plain Python."""
    kinds = {pl.Float64: "float", pl.Int64: "int", pl.Int32: "int", pl.Boolean: "bool"}
    columns = [(c, kinds.get(frame[c].dtype, "text"), frame[c].null_count()) for c in frame.columns]
    out = b"paretoscope samples 2\n" + json.dumps([frame.height, columns]).replace(" ", "").encode()
    for name, kind, nulls in columns:
        values: list[Any] = frame[name].to_list()
        if kind == "float":
            out += b"".join(struct.pack("<d", _double(v)) for v in values)
        elif kind == "int":
            out += b"".join(struct.pack("<q", v or 0) for v in values)
        elif kind == "bool":
            out += bytes(1 if v else 0 for v in values)
        else:
            texts = [(v or "").encode() for v in values]
            out += b"".join(struct.pack("<q", len(t)) for t in texts) + b"".join(texts)
        if nulls:
            bits = [v is not None for v in values] + [False] * (-len(values) % 8)
            out += bytes(
                sum(bit << (7 - j) for j, bit in enumerate(bits[i : i + 8]))
                for i in range(0, len(bits), 8)
            )
    return hashlib.sha256(out).hexdigest()


def _double(value: float | None) -> float:
    if value is None or value == 0.0:
        return 0.0  # null, and -0.0, as 0.0
    return math.nan if math.isnan(value) else value


def test_a_digest_started_when_attached_is_the_sha256_of_the_300_samples_typed_values() -> None:
    [point, *_] = _points(900, 3)
    assert point.sample_count == 300
    point.start_digest()
    assert point.started is not None and point.started.source is point.samples
    assert point_digests([point]) == {0: values_sha256(_hashed(point))}


def test_format_1_of_the_digest_is_still_the_sha256_of_the_samples_csv_text() -> None:
    [point, *_] = _points(900, 3)
    point.start_digest()  # a started digest is format 2: format 1 is computed anew
    assert point_digests([point], CSV) == {0: _csv_sha256(point)}
    assert point_digests([point], CSV) != point_digests([point])


def test_values_digest_reads_nulls_negative_zero_nan_and_text_boundaries_as_defined() -> None:
    frame = pl.DataFrame(
        {
            "ttft_ms": [1.5, None, -0.0, float("nan"), 2.0],
            "e2el_ms": [10.0, 20.0, 30.0, 40.0, 50.0],
            "output_len": pl.Series([1, 2, None, 4, 5], dtype=pl.Int32),
            "ok": [True, False, None, True, True],
            "session_id": ["ab", "c", None, "", "d"],
            "turn_index": pl.Series([0, 1, 0, 2, 3], dtype=pl.Int32),
            "phase": pl.Series([None] * 5, dtype=pl.String),
        }
    )
    digest = frame_digest(frame)
    assert digest == values_sha256(frame.drop("phase"))
    # -0.0 is 0.0, and a 32-bit count hashes as a 64-bit one
    zero = frame.with_columns(pl.col("ttft_ms").fill_nan(None).fill_null(0.0).abs())
    assert frame_digest(zero) != digest  # a null and a NaN are not 0.0 ...
    signed = frame.with_columns(ttft_ms=pl.Series([1.5, None, 0.0, float("nan"), 2.0]))
    assert frame_digest(signed) == digest  # ... but -0.0 is
    assert frame_digest(frame.with_columns(pl.col("output_len").cast(pl.Int64))) == digest
    # Text is its lengths, then its bytes: "ab","c" is not "a","bc"
    moved = frame.with_columns(session_id=pl.Series(["a", "bc", None, "", "d"]))
    assert frame_digest(moved) != digest


def awkward_frame(rows: int) -> pl.DataFrame:
    """Samples with a null, -0.0, NaN, a multi-byte character and empty text every few rows."""
    return pl.DataFrame(
        {
            "ttft_ms": [
                None if i % 7 == 0 else (-0.0 if i % 11 == 0 else i / 3) for i in range(rows)
            ],
            "e2el_ms": [float("nan") if i % 13 == 0 else float(i) for i in range(rows)],
            "output_len": pl.Series(
                [None if i % 5 == 0 else i for i in range(rows)], dtype=pl.Int32
            ),
            "ok": [None if i % 17 == 0 else i % 3 > 0 for i in range(rows)],
            "session_id": [None if i % 19 == 0 else "é" * (i % 4) for i in range(rows)],
        }
    )


def test_a_frame_digested_a_slice_at_a_time_hashes_the_bytes_made_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame = awkward_frame(1_000)  # 16-row slices: the last one partial, validity packed by slice
    whole = sample_digest._values_digest(frame)
    monkeypatch.setattr(sample_digest, "SLICE_ROWS", 16)
    assert sample_digest._values_digest(frame) == whole == values_sha256(frame)


def test_a_frame_in_several_chunks_hashes_the_bytes_of_the_same_frame_in_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A per-request file is read in pieces, so a point's samples come in chunks: of 13 and 29
    # rows here (not whole bytes of validity bits), with nulls, -0.0 and NaN on either side.
    rows = 1_000
    frame = awkward_frame(rows)
    cuts = [0, *range(13, rows, 42), *range(42, rows, 42), rows]
    bounds = sorted(set(cuts))
    pieces = [frame.slice(a, b - a) for a, b in zip(bounds, bounds[1:], strict=False)]
    chunked = pl.concat(pieces, rechunk=False)
    assert chunked.n_chunks() == len(pieces) > 40
    whole = sample_digest._values_digest(frame)
    assert sample_digest._values_digest(chunked) == whole == values_sha256(frame)
    monkeypatch.setattr(sample_digest, "SLICE_ROWS", 64)  # slices across the chunks' edges
    assert sample_digest._values_digest(chunked) == sample_digest._values_digest(frame)


def test_a_point_whose_samples_changed_after_the_start_is_digested_again() -> None:
    first, second, _ = _points(900, 3)
    first.start_digest()
    first.samples = second.samples  # the started digest is of the samples it had
    assert point_digests([first]) == {0: values_sha256(_hashed(second))}
    assert point_digests([first]) != {0: values_sha256(_hashed(_points(900, 3)[0]))}


def test_4_points_of_30_000_samples_digest_on_the_helper_threads_as_one_after_another() -> None:
    points = _points(120_000, 4)
    assert sum(p.sample_count for p in points) >= PARALLEL_MIN_ROWS
    each = [frame_digest(p.samples_frame(any_int_width=True)) for p in points]
    empty = parsed.ParsedPoint({"concurrency": 9})
    assert point_digests([*points[:2], empty, *points[2:]]) == {
        0: each[0],
        1: each[1],
        3: each[2],
        4: each[3],
    }


def test_an_uploaded_request_files_3_points_digest_when_started_and_keep_a_computed_digest() -> (
    None
):
    points_csv = (
        "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
        "s,H100,8,1,10,900\ns,H100,8,2,11,1700\ns,H100,8,3,12,2400\n"
    )
    files = [
        UploadFile("s.csv", points_csv.encode()),
        UploadFile("s.requests.csv", as_bytes(request_rows(600, 3))),
    ]
    [sweep] = parse_upload(files, {})
    # Parsing starts none: the store starts them once the sample blocks are encoded.
    assert [p.started for p in sweep.points] == [None, None, None]
    sweep.start_digests()
    under_way = [p.started for p in sweep.points]
    assert all(s is not None for s in under_way)
    sweep.start_digests()  # once: a digest under way is not started again
    assert [p.started for p in sweep.points] == under_way
    started = sweep.content_hash()
    for point in sweep.points:
        point.started = None
    assert sweep.content_hash() == started  # computed: the same
    kept = [p.started for p in sweep.points]
    assert all(s is not None and s.digest.result() for s in kept)
    assert sweep.content_hash() == started
    assert [p.started for p in sweep.points] == kept  # taken, not computed again
    sweep.points[0].samples = sweep.points[0].samples_frame().head(5)  # other samples: again
    assert sweep.content_hash() != started
    assert sweep.points[0].started is not kept[0]


def test_samples_read_typed_are_kept_as_read_and_samples_of_another_type_are_cast() -> None:
    read = pl.DataFrame(
        {
            "ttft_ms": [1.5, None],
            "e2el_ms": [9.0, 8.0],
            "output_len": pl.Series([3, None], dtype=pl.Int32),
            "input_len": pl.Series([7, 7], dtype=pl.Int32),
            "ok": [True, False],
            "session_id": ["a", "b"],
            "turn_index": pl.Series([0, 1], dtype=pl.Int32),
        }
    )
    point = parsed.ParsedPoint({"concurrency": 1}, samples=read)
    wide = point.samples_frame(any_int_width=True)
    counts = {"output_len": pl.Int32(), "input_len": pl.Int32()}
    assert dict(wide.schema) == {**parsed.SAMPLE_FRAME_SCHEMA, **counts}
    assert wide["phase"].null_count() == 2  # not in the file: unknown
    exact = point.samples_frame()
    assert dict(exact.schema) == parsed.SAMPLE_FRAME_SCHEMA
    assert exact.to_dicts() == wide.to_dicts()
    point = parsed.ParsedPoint(
        {"concurrency": 1}, samples=read.with_columns(pl.col("ttft_ms").cast(pl.Float32))
    )
    cast = point.samples_frame(any_int_width=True)
    assert cast.schema["ttft_ms"] == pl.Float64
    assert cast["ttft_ms"].to_list() == [1.5, None]
