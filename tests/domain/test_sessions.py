"""Sessions, turns and E2E-normalized interactivity (issue 49), against hand counts and numpy."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from app.domain import likeness
from app.domain.request_goodput import SAMPLE_SCHEMA as REQUEST_SCHEMA
from app.domain.request_goodput import SESSION_SCHEMA
from app.domain.sessions import (
    SessionStats,
    agents_at_slo,
    e2e_interactivity,
    session_attainment,
    ttft_by_turn,
)

# The stored columns up to the turn (the phase after it is not stated: profiled).
SAMPLE_SCHEMA = {**REQUEST_SCHEMA, **SESSION_SCHEMA}


def hundred_sessions_frame() -> pl.DataFrame:
    """100 sessions of 3 turns at one point, written so each group can be counted by hand:

    - s00-s79: every turn succeeds with TTFT 200 ms  -> met (80)
    - s80-s89: turn 1 has TTFT 600 ms                -> missed on TTFT (10)
    - s90-s94: turn 2 failed                         -> missed, failed turn (5)
    - s95-s99: only turns 1 and 2 seen (turn 0 fell before the profiled window) -> cut (5)
    plus 3 requests without a session id (not in any session).
    """
    rows = []
    for s in range(100):
        for turn in range(3):
            if s >= 95 and turn == 0:
                continue
            ttft = 600.0 if (80 <= s < 90 and turn == 1) else 200.0
            ok = not (90 <= s < 95 and turn == 2)
            rows.append(
                (1, ttft if ok else None, 2000.0 if ok else None, 100, 50, ok, f"s{s:02d}", turn)
            )
    rows += [(1, 100.0, 1000.0, 100, 50, True, None, None)] * 3
    return pl.DataFrame(rows, schema=SAMPLE_SCHEMA, orient="row")


def test_session_attainment_of_a_hundred_sessions_matches_the_hand_count_and_wilson_ends() -> None:
    stats = session_attainment(hundred_sessions_frame(), [("ttft", 500.0)])[1]
    assert (stats.count, stats.good, stats.cut, stats.unsessioned) == (95, 80, 5, 3)
    assert stats.attainment == 80 / 95
    # Wilson score interval by hand: p = 80/95, n = 95, z = 1.959963984540054 (95 %).
    z, n, p = 1.959963984540054, 95, 80 / 95
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert stats.low == pytest.approx(centre - half, abs=1e-12)
    assert stats.high == pytest.approx(centre + half, abs=1e-12)
    assert stats.low == pytest.approx(0.75570, abs=5e-6)  # the ends as written in docs
    assert stats.high == pytest.approx(0.90191, abs=5e-6)


def test_a_session_with_a_gap_in_its_turns_is_cut_not_judged() -> None:
    rows = [
        (1, 100.0, 900.0, 10, 5, True, "a", 0),
        (1, 100.0, 900.0, 10, 5, True, "a", 2),  # turn 1 missing
        (1, 100.0, 900.0, 10, 5, True, "b", 0),
    ]
    stats = session_attainment(pl.DataFrame(rows, schema=SAMPLE_SCHEMA, orient="row"), [])[1]
    assert (stats.count, stats.good, stats.cut) == (1, 1, 1)


def test_a_point_whose_sessions_are_all_cut_has_an_unknown_attainment() -> None:
    rows = [(1, 100.0, 900.0, 10, 5, True, "a", 3)]
    stats = session_attainment(pl.DataFrame(rows, schema=SAMPLE_SCHEMA, orient="row"), [])[1]
    assert stats.attainment is None and stats.low is None and stats.cut == 1


def test_e2e_normalized_p90_equals_numpy_over_the_successful_requests() -> None:
    rng = np.random.default_rng(49)
    n = 997
    e2el = rng.uniform(500.0, 30_000.0, n)
    osl = rng.integers(0, 2_000, n)  # some zero-output requests: left out
    ok = rng.uniform(size=n) > 0.1
    frame = pl.DataFrame(
        {
            "point_id": [7] * n,
            "ttft_ms": [100.0] * n,
            "e2el_ms": e2el,
            "output_len": osl,
            "input_len": [10] * n,
            "ok": ok,
            "session_id": [None] * n,
            "turn_index": [None] * n,
        },
        schema=SAMPLE_SCHEMA,
    )
    used = ok & (osl > 0)
    for q in (90.0, 50.0, 99.0):
        expected = 1000.0 / np.percentile(e2el[used] / osl[used], q)
        got = e2e_interactivity(frame, q)[7]
        assert abs(got.tok_s_user - expected) <= 1e-9
        assert got.requests == int(used.sum())


def test_e2e_normalized_interactivity_counts_ttft_where_per_token_speed_does_not() -> None:
    # One request: TTFT 4 s, then 100 tokens in 1 s. Per-token speed ~99 tok/s; E2E-normalized
    # 100 tokens / 5 s = 20 tok/s/user.
    rows = [(1, 4000.0, 5000.0, 100, 10, True, None, None)]
    got = e2e_interactivity(pl.DataFrame(rows, schema=SAMPLE_SCHEMA, orient="row"))[1]
    assert got.tok_s_user == pytest.approx(20.0, abs=1e-12)


def test_ttft_by_turn_keeps_first_and_later_turns_apart() -> None:
    rows = [
        (1, 900.0, 2000.0, 10, 5, True, "a", 0),
        (1, 1100.0, 2000.0, 10, 5, True, "b", 0),
        (1, 80.0, 2000.0, 10, 5, True, "a", 1),
        (1, 120.0, 2000.0, 10, 5, True, "a", 2),
        (1, None, None, None, 5, False, "b", 1),  # failed: left out
    ]
    got = ttft_by_turn(pl.DataFrame(rows, schema=SAMPLE_SCHEMA, orient="row"))[1]
    assert (got.first_ms, got.later_ms) == (1000.0, 100.0)
    assert (got.first_requests, got.later_requests) == (2, 2)


def session_stats_at(attainment: float, low: float) -> SessionStats:
    return SessionStats(100, round(attainment * 100), attainment, low, 1.0, 0, 0)


def test_agents_per_mw_by_hand() -> None:
    # 8 GPUs of 1.4 kW all-in each = 11.2 kW; 64 sessions meet 90 %: 64 / 0.0112 MW = 5714.2857…
    points = [
        (16.0, session_stats_at(0.99, 0.95)),
        (32.0, session_stats_at(0.95, 0.91)),
        (64.0, session_stats_at(0.91, 0.85)),
        (128.0, session_stats_at(0.60, 0.50)),
    ]
    agents = agents_at_slo(points, 0.9, num_gpus=8, allin_kw_per_gpu=1.4, usd_per_gpu_hour=2.5)
    assert agents.concurrency == 64.0
    assert agents.conservative == 32.0  # the most whose Wilson lower end meets 90 %
    assert agents.per_gpu == 8.0
    assert agents.per_mw == pytest.approx(64 / (8 * 1.4 / 1000), abs=1e-9)
    assert agents.per_mw == pytest.approx(5714.285714285714, abs=1e-9)
    assert agents.per_usd_hour == pytest.approx(64 / 20.0)


def test_agents_at_slo_says_why_when_no_load_meets_the_target() -> None:
    agents = agents_at_slo([(8.0, session_stats_at(0.5, 0.4))], 0.9, num_gpus=8)
    assert agents.concurrency is None
    assert agents.reason == "no load level has 90% of sessions met"
    none = agents_at_slo([(8.0, None)], 0.9, num_gpus=8)
    assert none.reason == "no load level has judged sessions"


def test_an_agentic_sweep_is_different_work_from_a_fixed_length_one() -> None:
    agentic = {"model": "m", "hardware": "B200", "num_gpus": 8, "scenario": "agentic-coding"}
    fixed = {**agentic, "scenario": "fixed-seq-len"}
    found = likeness.between(agentic, fixed)
    assert [d.text for d in found.different_work] == [
        "scenario differs: agentic-coding vs fixed-seq-len"
    ]
    assert likeness.scenario_refusal(found) == (
        "scenario differs: agentic-coding vs fixed-seq-len: a multi-turn or agentic replay is "
        "not set against another kind of run unless asked (allow_different=1)"
    )
    a, f = likeness.system_of(agentic), likeness.system_of(fixed)
    assert likeness.work_key(a) != likeness.work_key(f)  # the leaders rank them apart
    assert likeness.work_label(a) == "m · agentic-coding"
    assert likeness.scenario_refusal(likeness.between(fixed, fixed)) is None
