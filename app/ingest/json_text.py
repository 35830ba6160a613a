"""JSON text of whole columns, byte for byte what Python's `json.dumps` writes for each value.

Polars writes the common values (plain ASCII text, integers, floats in fixed notation) for a
whole column at once; the rare values whose Python spelling polars does not share (floats
below 1e-4 or integer-valued beyond 2**53, text with quotes, backslashes, control or
non-ASCII characters) are written by Python, one by one. Every shortcut is checked against
Python on millions of values in tests/ingest/test_point_table.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import polars as pl

# Printable ASCII without '"' and '\': json.dumps writes such text between quotes, unchanged.
_PLAIN_TEXT = r"^[ !#-\[\]-~]*$"
# Non-integer floats from here up are written by Python's repr in fixed notation, as by polars
# (no non-integer float reaches 1e16, where repr turns to exponents).
_FIXED_FROM = 1e-4
_EXACT_INT = 2.0**53


def hashed_float(value: float) -> str:
    """One float as the content hash normalises it, as JSON: whole numbers as integers,
    infinities as "inf", anything else as its Python repr in quotes ("nan" included)."""
    if value != value:
        return '"nan"'
    if value in (float("inf"), float("-inf")):
        return '"inf"'
    if value.is_integer():
        return str(int(value))
    return f'"{value!r}"'


def _patched(texts: pl.Series, values: pl.Series, spell: Callable[[Any], str]) -> pl.Series:
    """`texts` with each null where `values` is not null spelled by Python instead."""
    left = texts.is_null() & values.is_not_null()
    if not left.any():
        return texts
    at = left.arg_true()
    return texts.scatter(at, [spell(v) for v in values.gather(at).to_list()])


def hashed_float_expr(name: str) -> pl.Expr:
    """`hashed_float` of a Float64 column where polars spells it as Python does, else null."""
    v = pl.col(name)
    size = v.abs()
    return (
        pl.when((v == v.round(0)) & (size < _EXACT_INT))
        .then(v.cast(pl.Int64).cast(pl.String))
        .when((size >= _FIXED_FROM) & (size < _EXACT_INT))
        .then(pl.concat_str(pl.lit('"'), v.cast(pl.String), pl.lit('"')))
        .when(v.is_infinite())
        .then(pl.lit('"inf"'))
        .when(v.is_nan())
        .then(pl.lit('"nan"'))
        .otherwise(None)
    )


def polars_spells_floats(name: str) -> pl.Expr:
    """True when every value of the Float64 column is null, a whole number below 2**53 (but
    not -0.0) or a fraction from 1e-4 up: the values `hashed_float_parts` writes as Python
    does."""
    v = pl.col(name)
    size = v.abs()
    fine = v.is_null() | ((size < _EXACT_INT) & ((v == v.round(0)) | (size >= _FIXED_FROM)))
    negative_zero = (v == 0) & ((1.0 / v) < 0)  # "-0.0", where Python writes 0
    return (fine & ~negative_zero.fill_null(False)).all()


def only_fractions(name: str) -> pl.Expr:
    """True when every value of the Float64 column is a fraction (the usual latency or
    throughput column; a null counts as not one): `spelled_floats` can then leave the quotes
    around each value to the caller."""
    v = pl.col(name)
    return (v != v.round(0)).fill_null(False).all()


def spelled_floats(name: str, bare: bool) -> pl.Expr:
    """`hashed_float` of each value ("null" for null) of a column `polars_spells_floats`
    accepts; with `bare` (the column has `only_fractions`) without the quotes.

    Polars writes a fraction as Python's repr does, and a whole number below 2**53 (all
    `polars_spells_floats` lets through) as an integer cast to text, as `str(int(x))` does.
    An expression, so the casts of all columns run in the one select that joins them."""
    x = pl.col(name)
    if bare:
        return x.cast(pl.String)
    return (
        pl.when(x.is_null())
        .then(pl.lit("null"))
        .when(x == x.round(0))
        .then(x.cast(pl.Int64).cast(pl.String))
        .otherwise(pl.concat_str(pl.lit('"'), x.cast(pl.String), pl.lit('"')))
    )


def json_string_expr(name: str) -> pl.Expr:
    """`json.dumps` of a String column where the text needs no escaping, else null."""
    v = pl.col(name)
    return pl.when(v.str.contains(_PLAIN_TEXT)).then(pl.concat_str(pl.lit('"'), v, pl.lit('"')))


def hashed_expr(name: str, dtype: pl.DataType) -> pl.Expr | None:
    """A point column's values as JSON the way the content hash writes them, where polars can
    (null elsewhere); None for a type polars never writes here."""
    if dtype == pl.Float64:
        return hashed_float_expr(name)
    if dtype == pl.String:
        return json_string_expr(name)
    if dtype.is_integer():
        return pl.col(name).cast(pl.String)
    return None


def hashed_texts(values: pl.Series) -> pl.Series:
    """A point column's values as JSON the way the content hash writes them; null stays
    null. Values polars does not spell as Python does are written by Python."""
    expr = hashed_expr(values.name, values.dtype)
    if expr is None:
        return pl.Series(values.name, [_hashed_other(v) for v in values.to_list()], pl.String)
    texts = values.to_frame().select(expr).to_series()
    spell = json.dumps if values.dtype == pl.String else hashed_float
    return _patched(texts, values, spell)


def json_string_texts(values: pl.Series) -> pl.Series:
    """`json.dumps` of every value of a String column; null stays null."""
    texts = values.to_frame().select(json_string_expr(values.name)).to_series()
    return _patched(texts, values, json.dumps)


def _hashed_other(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        return hashed_float(value)
    return json.dumps(value, default=str)
