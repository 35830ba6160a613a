"""One operating point per SLO in every accounting mode (issue 45, item 4): a sweep whose
prefill:decode split changes along it is read where the deployment serves most per total GPU,
and only restated per decode GPU, prefill GPU, node or kW, so $/Mtok and tok/s/MW are the same
in every mode, on Explore, Compare, Plan and the read-off alike."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.domain.accounting import ACCOUNTINGS
from tests.factories import to_csv
from tests.helpers import upload_by_name
from tests.web.test_plan_api import get_plan

HEADER = ["sweep", "hardware", "num_gpus", "num_prefill_gpus", "num_decode_gpus", "concurrency"]
HEADER += ["tpot_p50_ms", "output_tok_s", "total_tok_s", "requests_per_s"]
# A 16-GPU H100 deployment whose split changes along the sweep: (concurrency, prefill GPUs,
# decode GPUs, TPOT p50 ms, output tok/s of the whole deployment). At TPOT p50 ≤ 20 ms every
# point but c = 256 passes. Per unit, each passing point is best in one mode:
#   c    split     per GPU  per decode GPU  per prefill GPU
#   16   1P + 15D     500     8000/15=533.3   8000
#   32   8P + 8D     1000        2000         2000
#   64   8P + 8D     1250        2500         2500
#   128  4P + 12D    1500        2000         6000
# Per total GPU the deployment serves most at c = 128 (24,000 tok/s): the operating point in
# every mode. Read per unit before, decode GPUs chose c = 64 and prefill GPUs c = 16.
POINTS = [
    (16, 1, 15, 8.0, 8000.0),
    (32, 8, 8, 10.0, 16000.0),
    (64, 8, 8, 14.0, 20000.0),
    (128, 4, 12, 18.0, 24000.0),
    (256, 4, 12, 40.0, 28000.0),
]
ROWS = [
    {"sweep": "varying", "hardware": "H100", "num_gpus": 16, "num_prefill_gpus": p,
     "num_decode_gpus": d, "concurrency": c, "tpot_p50_ms": tpot, "output_tok_s": out,
     "total_tok_s": 2 * out, "requests_per_s": out / 1000}
    for c, p, d, tpot, out in POINTS
]  # fmt: skip
# A baseline for Compare: aggregated, 16 GPUs, half the varying sweep's throughput at each load.
BASE = [
    {**r, "sweep": "agg", "num_prefill_gpus": None, "num_decode_gpus": None,
     "output_tok_s": r["output_tok_s"] / 2, "total_tok_s": r["output_tok_s"],
     "requests_per_s": r["output_tok_s"] / 2000}
    for r in ROWS
]  # fmt: skip
SLO = {"tpot_ms": 20, "percentile": "p50", "usd_per_gpu_hour": 3.6, "interpolation": "linear"}
# Interpolated between c = 128 and the failing c = 256 (both 4P + 12D), per total GPU.
ESTIMATE = 1522.7272727272727
# Per total GPU at c = 128: 24,000 ÷ 16 = 1,500 tok/s; $3.6 per GPU-hour ÷ (1,500 × 3,600)
# × 10^6 = $0.6667/Mtok; the seeded catalog's H100 is 1.73 kW all-in: 1,500 × 1,000 ÷ 1.73.
USD_PER_MTOK = 3.6 / (1500 * 3600) * 1e6
TOK_S_PER_MW = 1500 * 1000 / 1.73
# The goodput restated per unit of c = 128 (4P + 12D; the catalog's H100 node holds 8 GPUs).
PER_UNIT = {
    "gpu": 1500.0,
    "decode_gpu": 24000 / 12,
    "prefill_gpu": 24000 / 4,
    "node": 24000 / 2,
    "kw": 24000 / (16 * 1.73),
}


def _op(point: dict[str, Any]) -> tuple[Any, Any]:
    return point["concurrency"], point["split"]


def test_every_accounting_mode_names_the_same_operating_point_with_the_same_costs(
    client: TestClient, seeded: None
) -> None:
    ids = upload_by_name(client, ("split.csv", to_csv(ROWS + BASE, HEADER)))
    varying = ids["varying"]
    assert set(PER_UNIT) == set(ACCOUNTINGS)
    for mode, per_unit in PER_UNIT.items():
        query = {**SLO, "accounting": mode}
        [readoff] = client.get("/api/readoff", params={"sweep": varying, **query}).json()["results"]
        explore = client.get(
            "/api/explore", params={"sweep": varying, "picked": 1, "preset": "custom", **query}
        ).json()
        compare = client.get(
            "/api/compare",
            params={"sweep": [ids["agg"], varying], "picked": 1, "preset": "custom", **query},
        ).json()
        [plan] = get_plan(client, sweep=varying, requests_per_s=50, **query)["results"]
        [shown] = explore["results"]
        [pair] = compare["pairs"]
        at_slo = pair["at_slo"]
        for found in (readoff, shown, plan):
            assert _op(found["operating_point"]) == (128, "4P + 12D"), mode
        assert _op(at_slo["a_operating_point"]) == (128, "4P + 12D"), mode
        assert _op(at_slo["b_operating_point"]) == (128, None), mode
        # Goodput per unit of that one point; per total GPU and its costs the same in every mode.
        for goodput in (
            readoff["goodput_tok_s_per_gpu"],
            shown["goodput_tok_s_per_gpu"],
            at_slo["a_goodput_tok_s_per_gpu"],
            plan["goodput_tok_s_per_unit"],
        ):
            assert goodput == pytest.approx(per_unit, rel=1e-12), mode  # fmt: skip
        assert plan["goodput_tok_s_per_gpu"] == 1500.0, mode
        # The estimate beyond it is restated per the same units as the goodput.
        estimate = readoff["estimate"]["tok_s_per_gpu"]
        assert estimate == pytest.approx(ESTIMATE * per_unit / 1500, rel=1e-12), mode
        for found in (readoff, shown):
            assert found["costs"][0]["usd_per_mtok"] == pytest.approx(USD_PER_MTOK, rel=1e-12), mode
            assert found["tok_s_per_mw"] == pytest.approx(TOK_S_PER_MW, rel=1e-12), mode
        # Compare: 24,000 against the baseline's 12,000 tok/s at c = 128 on 16 GPUs each, at one
        # price: half the $/Mtok in every mode.
        assert at_slo["cost_ratios"] == {"$3.6/GPU-hour": pytest.approx(0.5, rel=1e-12)}, mode
        # Compare's TPOT sensitivity reads the same point at the SLO's 18 ms step (the limits
        # are the points' TPOTs): c = 128, restated per unit.
        [line] = [t for t in compare["figures"]["sensitivity"]["data"] if t["name"] == "varying"]
        assert line["x"] == [8.0, 10.0, 14.0, 18.0, 40.0], mode
        assert line["y"][3] == pytest.approx(per_unit, rel=1e-12), mode
        # Plan: ⌈50 req/s ÷ 24 req/s per deployment⌉ = 3 deployments of 16 GPUs at $3.6/GPU-hour.
        assert (plan["replicas"], plan["gpus"]) == (3, 48), mode
        assert plan["costs"][0]["usd_per_month"] == pytest.approx(3.6 * 48 * 730, rel=1e-12), mode


def test_no_estimate_is_drawn_between_two_splits_counted_per_their_own_gpus(
    client: TestClient,
) -> None:
    # c = 256 at 8P + 8D: per decode GPU, a line from 24,000 ÷ 12 to 28,000 ÷ 8 is no one's
    # throughput; per total GPU (and per node or kW, one count for all) it stands.
    rows = [{**r, "num_prefill_gpus": 8, "num_decode_gpus": 8} if r["concurrency"] == 256 else r
            for r in ROWS]  # fmt: skip
    sweep = upload_by_name(client, ("split.csv", to_csv(rows, HEADER)))["varying"]
    for mode, expected in (("gpu", True), ("decode_gpu", False), ("prefill_gpu", False)):
        [found] = client.get(
            "/api/readoff", params={"sweep": sweep, **SLO, "accounting": mode}
        ).json()["results"]
        assert found["operating_point"]["concurrency"] == 128, mode
        assert (found["estimate"] is not None) is expected, mode
