"""Frames made without a query: each key's rows as a slice when they are one run."""

from __future__ import annotations

import polars as pl

from app.ingest.frames import key_runs


def test_each_load_written_as_one_run_is_a_slice_from_its_first_row_to_its_end() -> None:
    frame = pl.DataFrame({"concurrency": [8.0, 8.0, 16.0, 16.0, 16.0, 4.0], "rate": [1] * 6})
    assert key_runs(frame, ["concurrency", "rate"], 10) == [
        ((8.0, 1), 0, 2),
        ((16.0, 1), 2, 5),
        ((4.0, 1), 5, 6),
    ]


def test_a_key_whose_rows_lie_apart_or_runs_beyond_the_limit_give_no_slices() -> None:
    apart = pl.DataFrame({"concurrency": [8.0, 16.0, 8.0]})
    assert key_runs(apart, ["concurrency"], 10) is None
    many = pl.DataFrame({"concurrency": [float(i) for i in range(20)]})
    assert key_runs(many, ["concurrency"], 19) is None
    assert key_runs(many, ["concurrency"], 20) is not None


def test_a_null_or_nan_key_or_a_text_key_gives_no_slices_and_no_rows_give_none() -> None:
    assert key_runs(pl.DataFrame({"c": [8.0, None]}), ["c"], 10) is None
    assert key_runs(pl.DataFrame({"c": [8.0, float("nan")]}), ["c"], 10) is None
    assert key_runs(pl.DataFrame({"c": ["a", "b"]}), ["c"], 10) is None
    assert key_runs(pl.DataFrame({"c": []}, schema={"c": pl.Float64}), ["c"], 10) == []
