"""The one number formatter: exact strings for every magnitude, sign and non-finite case."""

from __future__ import annotations

import math

import pytest

from app.domain.numbers import (
    fmt_count,
    fmt_load,
    fmt_ms,
    fmt_number,
    fmt_pair,
    fmt_percent,
    fmt_signed_percent,
    fmt_usd,
    plural,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (0, "0"),
        (0.000123, "1.23e-4"),
        (0.00123, "0.00123"),
        (0.0123, "0.0123"),
        (0.123, "0.123"),
        (1.23, "1.23"),
        (12.3, "12.3"),
        (123.4, "123"),
        (1234.5, "1,234"),
        (12345.6, "12,346"),
        (13320.79, "13,321"),
        (1234567.8, "1,234,568"),
        (999_999_999_999_999.0, "1e15"),
        (1.234e15, "1.23e15"),
        (6.02e23, "6.02e23"),
        (1e-9, "1e-9"),
        (-1.5, "-1.5"),
        (-0.0123, "-0.0123"),
        (-13320.79, "-13,321"),
        (-0.0004, "-4e-4"),
        (128.0, "128"),
        (250.0, "250"),
        (1.0, "1"),
        (2.50, "2.5"),
        (1.20, "1.2"),
        (0.1, "0.1"),
        (7, "7"),
        (1234567, "1,234,567"),
        (10**18, "1,000,000,000,000,000,000"),
        (-42, "-42"),
    ],
)
def test_a_number_has_three_significant_digits_below_a_thousand_and_whole_digits_above(
    value: float, text: str
) -> None:
    assert fmt_number(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (99.95, "100"),  # rounds to 100, never "100.0"
        (9.9951, "10"),
        (999.6, "1,000"),  # the separator appears when rounding crosses a thousand
        (999.4, "999"),
        (0.99951, "1"),
        (0.0009996, "0.001"),  # rounds up into plain notation
        (0.00099949, "9.99e-4"),
    ],
)
def test_rounding_across_a_magnitude_boundary_picks_the_rounded_magnitude(
    value: float, text: str
) -> None:
    assert fmt_number(value) == text


def test_infinity_is_a_value_and_nan_or_none_is_not_measured() -> None:
    assert fmt_number(math.inf) == "∞"
    assert fmt_number(-math.inf) == "-∞"
    assert fmt_number(math.inf, "req/s") == "∞ req/s"
    assert fmt_number(None) == "–"
    assert fmt_number(math.nan) == "–"
    assert fmt_number(None, "ms") == "–"  # no unit after a missing value
    assert fmt_number(None, missing="unknown") == "unknown"
    assert fmt_number(math.nan, "ms", missing="unknown") == "unknown"


def test_zero_is_a_measured_zero_not_a_missing_value() -> None:
    assert fmt_number(0.0, "req/s", missing="unknown") == "0 req/s"


def test_a_unit_follows_after_a_space() -> None:
    assert fmt_number(13320.79, "ms") == "13,321 ms"
    assert fmt_number(250.0, "tok/s") == "250 tok/s"
    assert fmt_number(0.5, "%") == "0.5 %"


def test_more_significant_digits_on_request() -> None:
    assert fmt_number(1.23456, sig=5) == "1.2346"
    assert fmt_number(12345.678, sig=7) == "12,345.68"
    assert fmt_number(0.000123456, sig=4) == "1.235e-4"


@pytest.mark.parametrize("value", [True, "12", b"1"])
def test_something_that_is_not_a_number_is_refused(value: object) -> None:
    with pytest.raises(TypeError):
        fmt_number(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.91, "$0.91"),
        (3.7, "$3.70"),
        (3.7000, "$3.70"),
        (1234.0, "$1,234"),
        (1234.56, "$1,235"),
        (2920.0, "$2,920"),
        (999.996, "$1,000"),  # rounds to a thousand dollars: no cents from there
        (999.99, "$999.99"),
        (0.0042, "$0.0042"),
        (0.00042, "$0.00042"),
        (0.004, "$0.004"),
        (0.00996, "$0.01"),
        (0.01, "$0.01"),
        (0.0000012, "$0.0000012"),
        (0.00000012, "$1.2e-7"),
        (0.0, "$0"),
        (-1.5, "-$1.50"),
        (-0.0042, "-$0.0042"),
        (-12345.0, "-$12,345"),
        (2, "$2.00"),
        (1e12, "$1,000,000,000,000"),
    ],
)
def test_money_is_whole_dollars_cents_or_two_digits_below_a_cent(value: float, text: str) -> None:
    assert fmt_usd(value) == text


def test_money_with_a_rate_suffix_and_non_finite_amounts() -> None:
    assert fmt_usd(0.91, "/Mtok") == "$0.91/Mtok"
    assert fmt_usd(4380.0, "/month") == "$4,380/month"
    assert fmt_usd(None, "/Mtok") == "–"
    assert fmt_usd(None, missing="unknown") == "unknown"
    assert fmt_usd(math.nan) == "–"
    assert fmt_usd(math.inf, "/Mtok") == "∞/Mtok"
    assert fmt_usd(-math.inf) == "-∞"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (128.0, "128"),
        (4096.0, "4,096"),
        (0.25, "0.25"),
        (1.125, "1.125"),
        (12.3456789, "12.3457"),
        (1234.5, "1,234.5"),
        (math.inf, "∞"),
        (None, "–"),
        (math.nan, "–"),
        (3, "3"),
        (0.0, "0"),
    ],
)
def test_a_load_setting_is_an_integer_when_it_is_one_and_never_merges_with_another(
    value: float | None, text: str
) -> None:
    assert fmt_load(value) == text


def test_a_load_carries_its_unit() -> None:
    assert fmt_load(2.5, "req/s") == "2.5 req/s"
    assert fmt_load(math.inf, "req/s") == "∞ req/s"


@pytest.mark.parametrize(
    ("n", "noun", "text"),
    [
        (1, "GPU", "1 GPU"),
        (2, "GPU", "2 GPUs"),
        (0, "GPU", "0 GPUs"),
        (1.0, "GPU", "1 GPU"),
        (8.0, "GPU", "8 GPUs"),
        (1, "point", "1 point"),
        (3, "point", "3 points"),
        (1234, "request", "1,234 requests"),
        (2, "batch", "2 batches"),
        (2, "box", "2 boxes"),
        (2, "query", "2 queries"),
        (2, "day", "2 days"),
        (2, "person", "2 people"),
        (2, "request sample", "2 request samples"),
        (1, "request sample", "1 request sample"),
        (1.5, "GPU", "1.5 GPUs"),
        (-1, "run", "-1 runs"),
    ],
)
def test_a_count_has_the_noun_in_the_right_number(n: float, noun: str, text: str) -> None:
    assert fmt_count(n, noun) == text


def test_a_count_takes_an_explicit_plural_and_a_missing_marker() -> None:
    assert fmt_count(3, "replica", "replicas") == "3 replicas"
    assert fmt_count(2, "criterion", "criteria") == "2 criteria"
    assert fmt_count(1, "criterion", "criteria") == "1 criterion"
    assert fmt_count(None, "GPU") == "–"
    assert fmt_count(None, "GPU", missing="unknown") == "unknown"


def test_plural_keeps_acronyms_and_capitals() -> None:
    assert plural("GPU") == "GPUs"
    assert plural("GPU", 1) == "GPU"
    assert plural("Index") == "Indices"
    assert plural("sweep", 0) == "sweeps"


def test_latency_in_ms_or_seconds_when_asked() -> None:
    assert fmt_ms(13320.79) == "13,321 ms"
    assert fmt_ms(13320.79, seconds=True) == "13.3 s"
    assert fmt_ms(9999.0, seconds=True) == "9,999 ms"
    assert fmt_ms(10000.0, seconds=True) == "10 s"
    assert fmt_ms(125_000.0, seconds=True) == "125 s"
    assert fmt_ms(0.5) == "0.5 ms"
    assert fmt_ms(None) == "–"
    assert fmt_ms(None, seconds=True, missing="unknown") == "unknown"


def test_a_percentage_from_a_fraction() -> None:
    assert fmt_percent(0.9) == "90 %"
    assert fmt_percent(0.12345) == "12.3 %"
    assert fmt_percent(1.0) == "100 %"
    assert fmt_percent(0.0) == "0 %"
    assert fmt_percent(None) == "–"


def test_two_numbers_compared_read_apart_when_they_differ() -> None:
    assert fmt_pair(260.4, 260.0, "ms") == ("260.4 ms", "260 ms")
    assert fmt_pair(13320.79, 2000.0, "ms") == ("13,321 ms", "2,000 ms")
    assert fmt_pair(0.12341, 0.1234) == ("0.12341", "0.1234")
    assert fmt_pair(50.0, 50.0, "ms") == ("50 ms", "50 ms")
    assert fmt_pair(None, 50.0, "ms") == ("–", "50 ms")


def test_a_difference_in_percent_keeps_its_sign_and_the_shared_digits() -> None:
    assert fmt_signed_percent(1.2345) == "+1.23 %"
    assert fmt_signed_percent(-16.5629) == "-16.6 %"
    assert fmt_signed_percent(0.0) == "0 %"
    assert fmt_signed_percent(None) == "–"
