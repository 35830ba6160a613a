"""One way to write numbers for people: pages, chart labels, reports and the CLI's text output.

Machine outputs (CSV, JSON) keep full-precision numbers and never come through here.

The rule for a measured quantity (`fmt_number`):
- about three significant digits: 0.00123, 0.0123, 0.123, 1.23, 12.3, 123;
- from 1,000 up, whole numbers with thousands separators: 1,234 and 13,321 (integer digits are
  never rounded away: 13,320.79 reads 13,321, not 13,300);
- no trailing zeros: 128.0 reads 128, 2.50 reads 2.5;
- below 0.001 and from 10^15 up, scientific notation: 1.23e-4, 1.23e15;
- Python ints (counts, token lengths) are exact: 1,234,567;
- None and NaN are not measured: the caller's marker ("–" by default, or "unknown"), never 0;
- ±∞ reads ∞ / -∞ (an unlimited request rate is a real setting, not a missing value);
- a unit follows after a space: "13,321 ms", "50 %".

Money (`fmt_usd`): whole dollars from $1,000 ($1,234), cents from one cent ($3.70, $0.91), two
significant digits below a cent ($0.0042). Counts (`fmt_count`): "1 GPU", "2 GPUs", "3 batches".
Load settings (`fmt_load`): a concurrency or a request rate is a value someone chose, shown as an
integer when it is one and otherwise with up to six significant digits, so distinct loads never
print alike.

Pure: imports only the standard library.
"""

from __future__ import annotations

import math
from functools import lru_cache

MISSING = "–"  # the app's empty-cell marker (en dash), as in text cells
SIGNIFICANT = 3
LOAD_SIGNIFICANT = 6
SMALLEST_PLAIN = 1e-3  # below: scientific notation
LARGEST_PLAIN = 1e15  # from here: scientific notation
# Pages format the same few thousand values on every request (a sweep's loads, a chart's
# steps): the functions are pure, so their answers are remembered (typed: True is not 1).
CACHED = 1 << 15
SECONDS_FROM_MS = 10_000.0  # fmt_ms(seconds=True) switches to seconds at 10 s

# Plurals English does not make by adding -s/-es/-ies.
IRREGULAR_PLURALS = {
    "person": "people",
    "child": "children",
    "index": "indices",
    "matrix": "matrices",
    "datum": "data",
    "analysis": "analyses",
}


def _is_missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _strip_zeros(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def _scientific(value: float, sig: int) -> str:
    """1.23e-4 / 1.23e15: mantissa without trailing zeros, exponent without + or leading 0."""
    mantissa, exponent = f"{value:.{sig - 1}e}".split("e")
    return f"{_strip_zeros(mantissa)}e{int(exponent)}"


def _plain(value: float, sig: int) -> str:
    """A finite, non-zero number by the rule in the module docstring (no unit, no marker)."""
    # Round to `sig` significant digits first, so 999.6 becomes 1,000 and 0.99951 becomes 1.
    rounded = float(f"{value:.{sig - 1}e}")
    size = abs(rounded)
    if size < SMALLEST_PLAIN or size >= LARGEST_PLAIN:
        return _scientific(value, sig)
    if size >= 10 ** (sig - 1):
        text = f"{value:,.0f}"
    else:
        decimals = sig - 1 - math.floor(math.log10(size))
        text = _strip_zeros(f"{rounded:,.{decimals}f}")
    return "0" if text == "-0" else text


def _with_unit(text: str, unit: str | None) -> str:
    return f"{text} {unit}" if unit else text


@lru_cache(maxsize=CACHED, typed=True)
def fmt_number(
    value: float | None, unit: str | None = None, *, missing: str = MISSING, sig: int = SIGNIFICANT
) -> str:
    """A measured quantity for people: `sig` significant digits, separators, unit after a space."""
    if isinstance(value, bool) or not (value is None or isinstance(value, int | float)):
        raise TypeError(f"fmt_number takes a number or None, not {type(value).__name__}")
    if value is None or _is_missing(value):
        return missing
    if isinstance(value, int):
        return _with_unit(f"{value:,}", unit)
    if math.isinf(value):
        return _with_unit("∞" if value > 0 else "-∞", unit)
    if value == 0:
        return _with_unit("0", unit)
    return _with_unit(_plain(value, sig), unit)


def fmt_pair(
    a: float | None, b: float | None, unit: str | None = None, *, missing: str = MISSING
) -> tuple[str, str]:
    """Two numbers to compare ("260.4 ms > 260 ms"): more digits until unequal values read apart."""
    for sig in range(SIGNIFICANT, 16):
        left = fmt_number(a, unit, missing=missing, sig=sig)
        right = fmt_number(b, unit, missing=missing, sig=sig)
        if left != right or a == b:
            return left, right
    return left, right


def fmt_ms(
    value: float | None, *, seconds: bool = False, missing: str = MISSING, sig: int = SIGNIFICANT
) -> str:
    """A latency in ms ("13,321 ms"); with `seconds`, from 10 s on in seconds ("13.3 s")."""
    if seconds and value is not None and abs(value) >= SECONDS_FROM_MS:
        return fmt_number(value / 1000, "s", missing=missing, sig=sig)
    return fmt_number(value, "ms", missing=missing, sig=sig)


def fmt_percent(fraction: float | None, *, missing: str = MISSING, sig: int = SIGNIFICANT) -> str:
    """A fraction as a percentage: 0.9 → "90 %", 0.99951 → "100 %" (sig digits of the percent)."""
    return fmt_number(None if fraction is None else fraction * 100, "%", missing=missing, sig=sig)


def fmt_signed_percent(percent: float | None, *, missing: str = MISSING) -> str:
    """A difference already in percent, with its sign, by the shared rule: 1.234 → "+1.23 %",
    -16.56 → "-16.6 %", 0 → "0 %"."""
    shown = fmt_number(percent, "%", missing=missing)
    return (
        f"+{shown}" if percent is not None and not _is_missing(percent) and percent > 0 else shown
    )


@lru_cache(maxsize=CACHED, typed=True)
def fmt_load(value: float | None, unit: str | None = None, *, missing: str = MISSING) -> str:
    """A concurrency or request rate as set: 128 (not 128.0), 0.25, 1.125, ∞."""
    if value is not None and not _is_missing(value) and math.isfinite(value):
        if float(value).is_integer():
            return _with_unit(f"{int(value):,}", unit)
    return fmt_number(value, unit, missing=missing, sig=LOAD_SIGNIFICANT)


@lru_cache(maxsize=CACHED, typed=True)
def fmt_usd(value: float | None, per: str = "", *, missing: str = MISSING) -> str:
    """Money: $1,234 · $3.70 · $0.91 · $0.0042 (two significant digits below a cent); `per`
    follows the amount ("/Mtok" → "$0.91/Mtok")."""
    if value is None or _is_missing(value):
        return missing
    if math.isinf(value):
        return f"{'' if value > 0 else '-'}∞{per}"
    sign = "-" if value < 0 else ""
    size = abs(value)
    if size == 0:
        return f"$0{per}"
    cents = round(size, 2)
    if cents >= 1000:
        text = f"{size:,.0f}"
    elif cents >= 0.01:
        text = f"{size:,.2f}"
    else:
        # Below a cent: two significant digits, so $0.0042 and $0.00042 stay apart.
        rounded = float(f"{size:.1e}")
        if rounded >= 0.01:  # 0.00996 rounds up to a cent
            text = "0.01"
        elif rounded < 1e-6:
            text = _scientific(size, 2)
        else:
            decimals = 1 - math.floor(math.log10(rounded))
            text = _strip_zeros(f"{rounded:.{decimals}f}")
    return f"{sign}${text}{per}"


def plural(noun: str, n: float = 2) -> str:
    """`noun` for a count of `n`: singular only for exactly 1 ("GPU", "GPUs", "batches")."""
    if n == 1:
        return noun
    head, _, last = noun.rpartition(" ")
    prefix = f"{head} " if head else ""
    lower = last.lower()
    if lower in IRREGULAR_PLURALS:
        many = IRREGULAR_PLURALS[lower]
        return prefix + (many.capitalize() if last[:1].isupper() else many)
    if last.isupper():  # acronyms: GPU → GPUs, not GPUS
        return f"{prefix}{last}s"
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return f"{prefix}{last}es"
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return f"{prefix}{last[:-1]}ies"
    return f"{prefix}{last}s"


def fmt_count(
    n: float | None, noun: str, many: str | None = None, *, missing: str = MISSING
) -> str:
    """A count and its noun: "1 GPU", "2 GPUs", "0 points", "1,234 requests"; `many` overrides
    the plural ("1 replica", "3 replicas")."""
    if n is None or _is_missing(n):
        return missing
    text = fmt_load(n)  # counts are exact: 2.0 reads 2, not 2.0
    word = noun if n == 1 else (many or plural(noun, n))
    return f"{text} {word}"


def real_number(value: object, *, text: bool = True) -> float | None:
    """A number from a number or (unless `text` is False) its text (a canonical file's extra
    columns, a CSV cell), infinities included; None for anything else, a bool or NaN."""
    kinds = int | float | str if text else int | float
    if isinstance(value, bool) or not isinstance(value, kinds):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return None if math.isnan(number) else number


def finite_number(value: object, *, text: bool = True) -> float | None:
    """A finite number from a number or (unless `text` is False) its text; None for anything
    else, a bool, NaN or an infinity."""
    number = real_number(value, text=text)
    return number if number is not None and math.isfinite(number) else None
