"""Numbers a chart sends for the browser to write, instead of their text.

A Pareto chart of 20 sweeps × 2,048 points carries ten hover numbers per point. Sent as the
formatter's strings ("13,321") they are most of the page; sent as the number they show (13321)
they are shorter and compress better. The server still decides every digit: `cell` sends the
number only when the browser's writer (`numberText` in static/js/charts.js, twinned by `write`
below and checked against it in Chromium) gives back exactly the formatter's text, and the text
itself otherwise (a missing value's "–", ∞, a count past 10^15).

Positions (`position`) are rounded to POSITION_DIGITS significant digits: a relative change of at
most 5e-6, under 0.01 px on a 1,000 px plot and under a pixel even zoomed in 100×. Nothing reads a
position as a number: hovers show the formatter's text of the unrounded value.
"""

from __future__ import annotations

import math
from decimal import Decimal
from functools import lru_cache

from app.domain.numbers import SIGNIFICANT, fmt_load, fmt_number

Cell = float | int | str
POSITION_DIGITS = 6
# Where the formatter (app.domain.numbers) and the browser's writer switch to 1.23e-4 / 1.23e15.
SMALLEST_PLAIN = 1e-3
LARGEST_PLAIN = 1e15
EXACT_INT = 2**53  # every integer below it is a double, written digit for digit


def _tidy(value: float) -> float | int:
    """An integer-valued double as an int: JSON "1160", not "1160.0" (JSON.parse reads both as
    the same number)."""
    if value.is_integer() and abs(value) < EXACT_INT:
        return int(value)
    return value


def position(value: float | None) -> float | int | None:
    """A point's x or y as plotted: POSITION_DIGITS significant digits (see the module)."""
    if value is None or not math.isfinite(value):
        return value
    return _tidy(float(f"{value:.{POSITION_DIGITS - 1}e}"))


def write(value: float | int) -> str:
    """The text static/js/charts.js writes for a number (numberText), in Python.

    Its shortest round-trip digits (JavaScript's String(v), Python's repr), thousands separators
    in the integer part, and 1.23e-4 / 1.23e15 below 0.001 and from 10^15 up, as the formatter
    does."""
    number = float(value)
    size = abs(number)
    if number != 0 and (size < SMALLEST_PLAIN or size >= LARGEST_PLAIN):
        return f"{Decimal(repr(number)).normalize():e}".replace("e+", "e")
    if number.is_integer():
        return f"{int(number):,}"
    digits = repr(number)
    if size < 1000:  # no separator
        return digits
    whole, _, fraction = digits.partition(".")
    return f"{int(whole):,}.{fraction}"


@lru_cache(maxsize=1 << 15)
def cell(text: str) -> Cell:
    """What to send for a formatted number: the number it shows, when the browser writes that
    number back as exactly `text`; else `text` itself. (Remembered: hovers repeat their texts.)"""
    try:
        number = float(text.replace(",", ""))
    except ValueError:
        return text
    if number.is_integer():
        if abs(number) < LARGEST_PLAIN and f"{int(number):,}" == text:
            return int(number)  # the common case, decided without `write`
    elif SMALLEST_PLAIN <= abs(number) < 1000 and repr(number) == text:
        return number
    if not math.isfinite(number):
        return text
    value = _tidy(number)
    return value if write(value) == text else text


WHOLE_FROM = 10 ** (SIGNIFICANT - 1)  # the formatter writes whole numbers from here (1,234)


def number_cell(value: float | None) -> Cell:
    """`cell(fmt_number(value))`, for a hover of thousands of points, without writing the text.

    fmt_number rounds a float to SIGNIFICANT digits and writes that decimal, or from WHOLE_FROM
    up the value rounded to a whole number; both are the number sent. Anything else (None, ∞, an
    int, scientific notation) goes through the text (tests/web/test_pareto_hover.py checks both
    ways agree)."""
    if type(value) is float and value != 0 and math.isfinite(value):
        rounded = float(f"{value:.{SIGNIFICANT - 1}e}")
        size = abs(rounded)
        if WHOLE_FROM <= size < LARGEST_PLAIN:
            return round(value)
        if SMALLEST_PLAIN <= size < WHOLE_FROM:
            return _tidy(rounded)
    return cell(fmt_number(value))


def load_cell(value: float | None) -> Cell:
    """`cell(fmt_load(value))`: a whole load is sent as it is (128), any other through its text."""
    if type(value) is float and value.is_integer() and abs(value) < LARGEST_PLAIN:
        return int(value)
    return cell(fmt_load(value))
