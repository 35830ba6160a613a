"""TTFT against prompt length (issue 50): the fitted prefill rate is a least-squares fit by
hand, its interval Student's t on the slope, and the crossing length the line's own."""

from __future__ import annotations

import math

import pytest

from app.domain.prefill_fit import PrefillFit, buckets, fit_prefill

# Five requests: TTFT in ms against input tokens.
XS = [1_000.0, 2_000.0, 4_000.0, 8_000.0, 16_000.0]
YS = [130.0, 210.0, 420.0, 800.0, 1_650.0]


def test_the_prefill_rate_is_the_least_squares_slope_worked_by_hand() -> None:
    fit = fit_prefill(XS, YS)
    assert isinstance(fit, PrefillFit)
    # By hand: x̄ = 6,200, ȳ = 642; Sxx = Σ(x − x̄)² = 148,800,000;
    # Sxy = Σ(x − x̄)(y − ȳ) = 15,328,000 ⇒ slope 0.1016667 ms/token, intercept 11.666667.
    assert sum((x - 6_200) ** 2 for x in XS) == 148_800_000
    assert sum((x - 6_200) * (y - 642) for x, y in zip(XS, YS, strict=True)) == 15_128_000
    assert fit.ms_per_token == pytest.approx(15_128_000 / 148_800_000, rel=1e-12)
    assert fit.intercept_ms == pytest.approx(642 - 6_200 * 15_128_000 / 148_800_000, rel=1e-12)
    assert fit.prefill_tok_s == pytest.approx(1000 / (15_128_000 / 148_800_000), rel=1e-12)
    assert fit.prefill_tok_s == pytest.approx(9_836.07, abs=0.01)
    # Residuals' variance over n − 2 = 3, slope SE = √(s² / Sxx), t(0.975, 3) = 3.182446.
    slope, intercept = fit.ms_per_token, fit.intercept_ms
    s2 = sum((y - intercept - slope * x) ** 2 for x, y in zip(XS, YS, strict=True)) / 3
    half = 3.182446305 * math.sqrt(s2 / 148_800_000)
    assert (fit.slope_low, fit.slope_high) == pytest.approx((slope - half, slope + half), rel=1e-8)
    low, high = fit.prefill_interval
    assert (low, high) == pytest.approx((1000 / (slope + half), 1000 / (slope - half)), rel=1e-8)
    # The fitted TTFT reaches 500 ms at (500 − intercept) / slope prompt tokens.
    assert fit.crossing_tokens(500.0) == pytest.approx((500 - intercept) / slope, rel=1e-12)
    assert fit.crossing_tokens(1.0) is None  # already above the limit at zero tokens


def test_too_few_requests_or_one_length_give_the_reason_not_a_rate() -> None:
    assert fit_prefill([1.0, 2.0], [3.0, 4.0]) == (
        "2 requests with an input length and a TTFT; a fit needs 3"
    )
    assert fit_prefill([512.0] * 4, [10.0, 11.0, 12.0, 13.0]) == (
        "every request has the same input length: TTFT cannot be read against it"
    )
    flat = fit_prefill([1.0, 2.0, 3.0], [5.0, 4.0, 3.0])
    assert isinstance(flat, PrefillFit) and flat.prefill_tok_s is None


def test_ttft_is_grouped_by_power_of_two_input_length_buckets() -> None:
    found = buckets([100.0, 300.0, 700.0, 1_000.0, 200_000.0], [10.0, 20.0, 30.0, 50.0, 900.0])
    assert [(b.low, b.high, b.n, b.median_ttft_ms) for b in found] == [
        (0, 256, 1, 10.0),
        (256, 512, 1, 20.0),
        (512, 1024, 2, 40.0),
        (131_072, None, 1, 900.0),
    ]
