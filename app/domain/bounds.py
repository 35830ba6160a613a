"""One set of bounds for every stored number and time, the same on SQLite and Postgres.

A value is stored only if every read can serve it: a whole number fits the INTEGER column
(Postgres refuses more, SQLite would store it and a later comparison would fail); a measured
quantity is finite and within [MIN_POSITIVE, MAX_NUMBER] (beyond, a product or reciprocal of
two such numbers overflows or underflows a double, and a page dividing by it answers 500); a
time lies within 1970-01-01 .. 9999-12-31 UTC (a datetime cannot show other years).

The milliseconds rule: a numeric time above 1e11 is read as milliseconds (1e11 s is the year
5138, later than any scrape; 1e11 ms is 1973), so "1780000000" and "1780000000000" are the same
instant. The converted time must lie within the bounds.

Pure: imports only the standard library.
"""

from __future__ import annotations

import math

DB_INT_MAX = 2**31 - 1  # Postgres INTEGER
# A measured quantity (tok/s, ms, $, kW, tokens) stored or typed in: squares and products of
# three stay finite (1e45), reciprocals stay normal (1e9).
MAX_NUMBER = 1e15
MIN_POSITIVE = 1e-9
MIN_TIME_S = 0.0  # 1970-01-01T00:00:00Z
MAX_TIME_S = 253_402_300_799.0  # 9999-12-31T23:59:59Z
MS_ABOVE = 1e11  # a numeric time above this is milliseconds


def number_problem(value: float, *, allow_zero: bool = True) -> str | None:
    """Why a stored non-negative quantity cannot be served, or None."""
    if not math.isfinite(value):
        return f"{value} is not a finite number"
    if value < 0:
        return f"{value:g} is negative"
    if value == 0:
        return None if allow_zero else "must be greater than 0"
    if value > MAX_NUMBER:
        return f"{value:g} is above {MAX_NUMBER:g}, the largest number stored"
    if value < MIN_POSITIVE:
        return f"{value:g} is below {MIN_POSITIVE:g}, the smallest positive number stored"
    return None


def time_problem(seconds: float) -> str | None:
    """Why a Unix time (seconds) cannot be stored, or None."""
    if not math.isfinite(seconds):
        return f"time {seconds} is not finite"
    if not MIN_TIME_S <= seconds <= MAX_TIME_S:
        return (
            f"time {seconds:g} s is outside 1970-01-01 .. 9999-12-31 "
            f"(a number above {MS_ABOVE:g} is read as milliseconds)"
        )
    return None


def int_problem(value: int) -> str | None:
    if abs(value) > DB_INT_MAX:
        return f"{value} is out of range (at most {DB_INT_MAX:,})"
    return None


def text_problem(text: str) -> str | None:
    """Why no database can store `text`: a NUL byte (Postgres refuses it), or a lone surrogate
    ("\\ud800" in JSON), which is not Unicode and cannot be written as UTF-8 at all."""
    if "\x00" in text:
        return "contains a NUL byte"
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            return "contains a lone surrogate (\\ud800-\\udfff): not valid Unicode"
    return None


def magnitude_problem(value: float) -> str | None:
    """Why a finite number's size cannot be stored (its sign and finiteness are checked where
    each field's rules are), or None."""
    size = abs(value)
    if not math.isfinite(size) or size == 0:
        return None
    if size > MAX_NUMBER:
        return f"{value:g} is above {MAX_NUMBER:g}, the largest number stored"
    if size < MIN_POSITIVE:
        return f"{value:g} is below {MIN_POSITIVE:g}, the smallest positive number stored"
    return None
