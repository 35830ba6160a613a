"""JSON text of whole String columns, byte for byte what Python's `json.dumps` writes for each
value (a point's extra fields are stored as that text).

Polars writes plain ASCII text for a whole column at once; the rare values whose Python
spelling polars does not share (text with quotes, backslashes, control or non-ASCII
characters) are written by Python, one by one. Checked against Python in
tests/ingest/test_point_table.py.
"""

from __future__ import annotations

import json

import polars as pl

# Printable ASCII without '"' and '\': json.dumps writes such text between quotes, unchanged.
_PLAIN_TEXT = r"^[ !#-\[\]-~]*$"


def json_string_expr(name: str) -> pl.Expr:
    """`json.dumps` of a String column where the text needs no escaping, else null."""
    v = pl.col(name)
    return pl.when(v.str.contains(_PLAIN_TEXT)).then(pl.concat_str(pl.lit('"'), v, pl.lit('"')))


def json_string_texts(values: pl.Series) -> pl.Series:
    """`json.dumps` of every value of a String column; null stays null."""
    texts = values.to_frame().select(json_string_expr(values.name)).to_series()
    left = texts.is_null() & values.is_not_null()
    if not left.any():
        return texts
    at = left.arg_true()
    return texts.scatter(at, [json.dumps(v) for v in values.gather(at).to_list()])
