"""Rows of empty cells are dropped from a read frame; a typed column full in every row means
no row is blank, and the frame is kept whole without scanning its cells."""

from __future__ import annotations

import polars as pl

from app.ingest.blank_lines import without_blank_rows
from app.ingest.point_table import ROW


def test_the_2_rows_of_empty_cells_of_4_are_dropped_and_the_others_keep_their_lines() -> None:
    frame = pl.DataFrame(
        {"ttft_ms": [1.0, None, None, 2.0], "session_id": ["x", "", None, None]},
        schema={"ttft_ms": pl.Float64, "session_id": pl.String},
    )
    kept = without_blank_rows(frame)
    assert kept[ROW].to_list() == [2, 5]
    assert kept["ttft_ms"].to_list() == [1.0, 2.0]


def test_a_full_typed_column_keeps_all_3_rows_even_with_empty_text_beside_it() -> None:
    frame = pl.DataFrame(
        {"turn_index": [0, 1, 2], "session_id": ["", None, "s"]},
        schema={"turn_index": pl.Int32, "session_id": pl.Categorical},
    )
    kept = without_blank_rows(frame, first_row=10)
    assert kept.height == 3
    assert kept[ROW].to_list() == [10, 11, 12]


def test_a_frame_of_text_columns_only_drops_its_1_row_of_empty_text() -> None:
    frame = pl.DataFrame({"sweep": ["a", "", "b"], "session_id": ["s", None, None]})
    assert without_blank_rows(frame)[ROW].to_list() == [2, 4]
