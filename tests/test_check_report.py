"""The check summary with intervals (as the read-off gives them once helper "ci"'s fields exist)."""

from __future__ import annotations

from typing import Any

from app.domain.gate_ratio import GateRatio
from app.domain.regression import Interval, Side, compare
from app.services.checks import report as check_report
from app.services.checks.gate import finding_json


def document(outcome_sides: tuple[Side, Side], ratio: GateRatio | None = None) -> dict[str, Any]:
    outcome = compare(*outcome_sides, tolerance=0.05, ratio=ratio)
    op = {"concurrency": 16.0, "request_rate": None, "interactivity_tok_s_user": 41.25}
    return {
        "verdict": outcome.verdict,
        "tolerance": 0.05,
        "slo": {"description": "p90 TTFT ≤ 500 ms", "mode": "requests", "basis": "output"},
        "candidate": {
            "ref": "nightly",
            "resolved_by": "tag",
            "sweep_id": 9,
            "name": "n",
            "operating_point": op,
        },
        "baseline": {
            "ref": "3",
            "resolved_by": "id",
            "sweep_id": 3,
            "name": "b",
            "operating_point": {**op, "concurrency": 32.0},
        },
        "findings": [finding_json(f) for f in outcome.findings],
        "compare_url": "/compare?sweep=3&sweep=9",
    }


def test_intervals_are_shown_beside_each_value_and_decide_the_goodput_rule() -> None:
    base = Side(
        True,
        1000.0,
        Interval(950.0, 1050.0, 0.95, "bootstrap"),
        {"$2/GPU-hour": 0.5556},
        {"$2/GPU-hour": Interval(0.53, 0.58, 0.95, "bootstrap")},
    )
    cand = Side(
        True,
        900.0,
        Interval(860.0, 955.0, 0.95, "bootstrap"),
        {"$2/GPU-hour": 0.5800},
        {"$2/GPU-hour": None},
    )
    # -10 %, but the ratio's own interval reaches 1×; $/Mtok +4.4 %
    doc = document((base, cand), GateRatio(0.9, 0.85, 1.01, 0.95, "ratio-bootstrap"))
    assert doc["verdict"] == "pass"
    lines = check_report.markdown(doc).splitlines()
    assert lines[0] == "### Paretoscope check: pass"
    assert lines[2] == "Candidate **n** (tag `nightly`: sweep 9) against baseline **b** (sweep 3)."
    assert lines[3] == "SLO: p90 TTFT ≤ 500 ms (requests mode); tolerance 5 %."
    assert lines[8] == (
        "| goodput (output tok/s/GPU) | 1,000 (95 % CI 950–1,050, bootstrap) "
        "| 900 (95 % CI 860–955, bootstrap) | -10 % "
        "| ok: fell by more than the tolerance, but the ratio's interval reaches 1× (candidate "
        "÷ baseline 0.900×, 95 % interval 0.850–1.010×, unpaired requests) |"
    )
    assert lines[9] == (
        "| $/Mtok ($2/GPU-hour) | $0.56 (95 % CI $0.53–$0.58, bootstrap) | $0.58 "
        "| +4.39 % | ok: within the tolerance |"
    )
    assert lines[10] == (
        "| operating point | concurrency 32, 41.2 tok/s/user | concurrency 16, 41.2 tok/s/user "
        "| | |"
    )
    assert check_report.headline(doc) == "pass: no regression beyond 5 % (goodput -10 %)"
