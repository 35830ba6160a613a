"""POST /api/check where noise moved the operating point: goodput is also compared at the lighter
of the two operating loads, with each side's runs' interval there."""

from __future__ import annotations

import math

import pytest
from fastapi.testclient import TestClient

from tests.helpers import upload_ids

HEAD = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,tpot_p90_ms,output_tok_s\n"


def noisy_runs_csv(name: str, at_4: tuple[float, float, float]) -> bytes:
    """Three runs at load 4 (p90 TPOT 40 ms) and two at load 5 (2,400 tok/s): the baseline's
    load-5 runs both meet the 48 ms limit (45, 46 ms), the candidate's once (47, 50 ms: its
    load 5 is borderline, so its operating point is load 4)."""
    p90s = (45, 46) if name == "base" else (47, 50)
    rows = [f"{name},H100,1,4,30,40,{y}" for y in at_4]
    rows += [f"{name},H100,1,5,35,{p},2400" for p in p90s]
    return "\n".join(rows).encode() + b"\n"


def geomean(runs: tuple[float, ...]) -> float:
    """The runs' statistic (their geometric mean, as the log-scale t interval is centred)."""
    return math.exp(sum(math.log(y) for y in runs) / len(runs))


@pytest.mark.parametrize(
    ("at_4", "verdict"),
    [((1995.0, 2000.0, 2005.0), "pass"), ((1795.0, 1800.0, 1805.0), "regression")],
)
def test_a_fall_at_the_load_both_meet_the_slo_at_is_judged_there(
    client: TestClient, at_4: tuple[float, float, float], verdict: str
) -> None:
    data = noisy_runs_csv("base", (1995.0, 2000.0, 2005.0)) + noisy_runs_csv("cand", at_4)
    base, cand = upload_ids(client, ("runs.csv", HEAD + data))
    body = {"baseline": base, "candidate": cand, "tpot_ms": 48, "percentile": "p90"}
    response = client.post("/api/check", json=body)
    assert response.status_code == 200, response.text
    doc = response.json()
    assert doc["verdict"] == verdict
    by_label = {f["label"]: f for f in doc["findings"]}
    # At the operating points (load 5, two passing runs: 2,400; load 4, mean of three runs):
    # a fall, but the load moved within noise, so it is no regression.
    moved = by_label["goodput"]
    assert moved["baseline"] == pytest.approx(2400.0, rel=1e-12)  # the two runs' geometric mean
    assert moved["regression"] is False
    assert "within noise" in moved["note"]
    matched = by_label["goodput at load 4"]
    assert matched["baseline"] == pytest.approx(geomean((1995.0, 2000.0, 2005.0)), rel=1e-12)
    assert matched["candidate"] == pytest.approx(geomean(at_4), rel=1e-12)
    assert matched["regression"] is (verdict == "regression")
    assert matched["note"].startswith("at load 4, where both meet the SLO: ")
    assert matched["baseline_interval"]["ci_method"] == matched["candidate_interval"]["ci_method"]
    assert "goodput at load 4 (output tok/s/GPU)" in doc["summary"]
