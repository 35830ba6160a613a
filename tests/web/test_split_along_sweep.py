"""A prefill:decode split that changes along a sweep (issue 37): a canonical 16-GPU H100 sweep
at 4P + 12D for its first point and 8P + 8D for the others, each point counted per its own
split, read in every per-GPU mode against hand-computed oracles."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.accounting import Accounting, point_split, splits_label
from app.services import picker as series_picker
from app.store.sweep_search import SweepFilters
from tests.factories import to_csv
from tests.helpers import only, parse, soup, upload_by_name
from tests.web.test_explore import figure
from tests.web.test_plan_api import get_plan
from tests.web.test_vllm_spec_decode import VLLM

HEADER = ["sweep", "hardware", "num_gpus", "num_prefill_gpus", "num_decode_gpus", "concurrency"]
HEADER += ["tpot_p50_ms", "output_tok_s", "total_tok_s", "requests_per_s"]
# (concurrency, prefill, decode, TPOT p50 ms, output tok/s) of the whole 16-GPU deployment.
POINTS = [(8, 4, 12, 10.0, 12000.0), (32, 8, 8, 15.0, 20000.0), (64, 8, 8, 30.0, 26000.0)]


def _split_rows(name: str, splits: list[tuple[int | None, int | None]]) -> list[dict[str, Any]]:
    return [
        {"sweep": name, "hardware": "H100", "num_gpus": 16, "num_prefill_gpus": p,
         "num_decode_gpus": d, "concurrency": c, "tpot_p50_ms": tpot, "output_tok_s": out,
         "total_tok_s": 2 * out, "requests_per_s": out / 1000}
        for (c, _, _, tpot, out), (p, d) in zip(POINTS, splits, strict=True)
    ]  # fmt: skip


VARYING = to_csv(_split_rows("varying", [(4, 12), (8, 8), (8, 8)]), HEADER)
# Hand-computed output tok/s per unit of each point (c = 8, 32, 64):
#   per total GPU   12000/16 = 750,  20000/16 = 1250, 26000/16 = 1625
#   per decode GPU  12000/12 = 1000, 20000/8 = 2500,  26000/8 = 3250
#   per prefill GPU 12000/4 = 3000,  20000/8 = 2500,  26000/8 = 3250
# Interactivity 1000/TPOT: 100, 66.7, 33.3 tok/s/user; per prefill GPU c = 32 is dominated by
# c = 8 (faster per user and more per GPU), so that frontier is c = 64 then c = 8.
# At TPOT p50 ≤ 20 ms the points at c = 8 and 32 pass; the operating point is the better of the
# two per total GPU, c = 32, in every mode (issue 45): per prefill GPU its 20,000 ÷ 8 = 2,500,
# although c = 8 serves 3,000 per each of its 4 prefill GPUs. Back per total GPU (costs and
# power) every mode gives 1250.
ORACLE = {
    # mode: (goodput per unit, operating concurrency, its split, per total GPU,
    #        frontier (concurrency, y) in x order)
    "gpu": (1250.0, 32, "8P + 8D", 1250.0, [(64, 1625.0), (32, 1250.0), (8, 750.0)]),
    "decode_gpu": (2500.0, 32, "8P + 8D", 1250.0, [(64, 3250.0), (32, 2500.0), (8, 1000.0)]),
    "prefill_gpu": (2500.0, 32, "8P + 8D", 1250.0, [(64, 3250.0), (8, 3000.0)]),
}
VARIES = "varies: 4P + 12D … 8P + 8D (2 splits)"


def test_each_point_is_counted_per_its_own_split_in_every_per_gpu_mode(
    client: TestClient, seeded: None
) -> None:
    sweep = upload_by_name(client, ("varying.csv", VARYING))["varying"]
    for mode, (goodput, conc, split, per_gpu, front) in ORACLE.items():
        url = f"/api/readoff?sweep={sweep}&tpot_ms=20&percentile=p50&usd_per_gpu_hour=3.6"
        result = client.get(f"{url}&accounting={mode}").json()["results"][0]
        assert result["goodput_tok_s_per_gpu"] == pytest.approx(goodput, rel=1e-12), mode
        assert result["operating_point"]["concurrency"] == conc, mode
        assert result["operating_point"]["split"] == split, mode
        assert result["split"] == VARIES
        # $3.6 per GPU-hour ÷ (tok/s per total GPU × 3600) × 10^6: costs stay per GPU-hour.
        usd = 3.6 / (per_gpu * 3600) * 1e6
        assert result["costs"][0]["usd_per_mtok"] == pytest.approx(usd, rel=1e-12), mode
        assert result["tok_s_per_mw"] == pytest.approx(per_gpu * 1000 / 1.73, rel=1e-12), mode
        frontier = client.get(f"/api/frontier?sweep={sweep}&accounting={mode}").json()
        points = frontier["sweeps"][0]["frontier"]
        assert [(p["concurrency"], p["y"]) for p in points] == front, mode
        # The frontier keeps each point's own split.
        assert [p["split"] for p in points] == [OWN[p["concurrency"]] for p in points]


OWN = {8: "4P + 12D", 32: "8P + 8D", 64: "8P + 8D"}


def test_explore_hovers_table_and_sweep_page_show_the_split_of_each_point(
    client: TestClient, seeded: None
) -> None:
    sweep = upload_by_name(client, ("varying.csv", VARYING))["varying"]
    query = f"sweep={sweep}&tpot_ms=20&percentile=p50&accounting=prefill_gpu"
    page = soup(client.get(f"/?{query}"), expect=200)
    row = page.select_one("#readoff-table tbody tr")
    assert row.select_one(".split").get_text() == f"({VARIES})"
    # The operating point is c = 32 in every mode (issue 45), with its own split.
    assert row.select_one(".op-split").get_text() == "8P + 8D"
    lines = [t for t in figure(page)["data"] if t.get("mode") == "lines+markers"]
    template = lines[0]["hovertemplate"]
    assert f"H100 × 16 GPUs ({VARIES})" in template
    # The frontier line (c = 64, then c = 8) writes each point's lines, its split last; the
    # dominated c = 32 has its split in its template.
    assert [t.rsplit("<br>", 1)[1] for t in lines[0]["text"]] == ["split 8P + 8D", "split 4P + 12D"]
    dominated = next(t for t in figure(page)["data"] if t["name"] == "varying (dominated)")
    assert "p50 %{customdata[3]}<br>split 8P + 8D<br><i>dominated</i>" in dominated["hovertemplate"]
    detail = soup(client.get(f"/sweeps/{sweep}"), expect=200)
    serving = detail.select_one("#meta-serving dd").get_text()
    assert serving == (
        f"disaggregated: {VARIES} (prefill + decode GPUs); each point is counted per its own split"
    )
    assert detail.select_one("#sweep-split").get_text() == f"({VARIES})"
    cells = [td.get_text() for td in detail.select("#points-table td.point-split")]
    assert cells == ["4P + 12D", "8P + 8D", "8P + 8D"]
    doc = client.get(f"/api/sweeps/{sweep}").json()
    assert doc["split"] == VARIES
    assert (doc["num_prefill_gpus"], doc["num_decode_gpus"]) == (4, 12)  # the first given
    extras = [
        (p["extra"]["point_num_prefill_gpus"], p["extra"]["point_num_decode_gpus"])
        for p in doc["points"]
    ]
    assert extras == [(4, 12), (8, 8), (8, 8)]


def test_a_split_along_the_sweep_enters_the_content_hash_only_when_it_varies() -> None:
    varying = only(parse(("v.csv", VARYING)))
    constant = only(parse(("c.csv", to_csv(_split_rows("varying", [(4, 12)] * 3), HEADER))))
    assert constant.meta["num_prefill_gpus"] == 4 and varying.meta["num_prefill_gpus"] == 4
    assert [p.extra for p in constant.points] == [{}, {}, {}]
    assert varying.content_hash() != constant.content_hash()
    # The constant sweep's hash as main computed it before per-point splits existed.
    assert constant.content_hash() == CONSTANT_HASH
    # Empty cells take the sweep's split: one split, stored and hashed as before.
    blank = _split_rows("varying", [(4, 12), (None, None), (None, None)])
    sparse = only(parse(("s.csv", to_csv(blank, HEADER))))
    assert [p.extra for p in sparse.points] == [{}, {}, {}]
    assert sparse.content_hash() == CONSTANT_HASH


CONSTANT_HASH = "f2372a0618ec3eaedce3a0b5c44fc9d09399366f66eda5381e58340341cf82e9"


def test_the_split_label_names_one_split_or_the_range_it_varies_over() -> None:
    assert splits_label([(8, 8), (8, 8)]) == "8P + 8D"
    assert splits_label([(8, 8), (4, 12), (6, 10)]) == "varies: 4P + 12D … 8P + 8D (3 splits)"
    assert splits_label([(None, None)]) is None


def test_an_exported_sweep_whose_split_varies_imports_back_as_the_same_sweep(
    client: TestClient,
) -> None:
    sweep = upload_by_name(client, ("varying.csv", VARYING))["varying"]
    text = client.get(f"/api/export/sweeps.csv?sweep={sweep}").text
    header, *rows = [line.split(",") for line in text.splitlines()]
    at = header.index("num_prefill_gpus"), header.index("num_decode_gpus")
    assert [(r[at[0]], r[at[1]]) for r in rows] == [("4", "12"), ("8", "8"), ("8", "8")]
    stored = client.get(f"/api/sweeps/{sweep}").json()
    again = only(parse(("again.csv", text.encode())))
    assert again.content_hash() == only(parse(("v.csv", VARYING))).content_hash()
    assert stored["split"] == VARIES


def test_the_frontier_leaders_are_ranked_per_the_chosen_accounting_unit(
    client: TestClient, session: Session
) -> None:
    # At 100 tok/s/user (TPOT 10 ms): a 16-GPU aggregated sweep at 20,000 output tok/s (1,250
    # per GPU, per decode and per prefill GPU alike) and an 8P + 8D one at 16,000 (1,000 per
    # GPU, 2,000 per decode or prefill GPU); and the sweep whose split varies (c = 8 at 4P + 12D:
    # 750 per GPU, 1,000 per decode GPU, 3,000 per prefill GPU; its other points are slower per
    # user, c = 32 and 64 at 8P + 8D).
    rows = _split_rows("varying", [(4, 12), (8, 8), (8, 8)])
    rows += [{**rows[0], "sweep": "agg", "num_prefill_gpus": None, "num_decode_gpus": None,
              "output_tok_s": 20000.0},
             {**rows[0], "sweep": "disagg", "num_prefill_gpus": 8, "num_decode_gpus": 8,
              "output_tok_s": 16000.0}]  # fmt: skip
    ids = upload_by_name(client, ("three.csv", to_csv(rows, HEADER)))
    h100 = SweepFilters(hardware="H100")

    def ranked(accounting: Accounting) -> dict[str, int]:
        found = series_picker.leaders(session, h100, "p50", "output", accounting=accounting)
        names = {v: k for k, v in ids.items()}
        return {names[i]: found.frontier_points[i] for i in found.chosen}

    # Per GPU: agg beats both at 100 tok/s/user; varying's c = 32 (1,250) ties agg's y at less
    # interactivity, so only its c = 64 (1,625) is on the frontier.
    assert ranked("gpu") == {"agg": 1, "varying": 1}
    # Per decode GPU: disagg (2,000) beats agg (1,250) at 100; varying's c = 32 (2,500) and 64
    # (3,250), counted per their own 8 decode GPUs, follow.
    assert ranked("decode_gpu") == {"varying": 2, "disagg": 1}
    # Per prefill GPU: varying's c = 8 on its own 4 prefill GPUs (3,000) leads at 100; its
    # c = 64 (3,250) too.
    assert ranked("prefill_gpu") == {"varying": 2}
    doc = client.get(
        "/api/explore?select=leaders&hardware=H100&accounting=decode_gpu&tpot_ms=20"
    ).json()
    assert doc["leaders"]["ranked_per"] == "decode GPU"
    assert doc["leaders"]["chosen"] == [ids["varying"], ids["disagg"]]
    page = soup(client.get("/?select=leaders&hardware=H100&accounting=decode_gpu"), expect=200)
    assert page.select_one("#leaders-note .leaders-per").get_text() == "per decode GPU"


def test_plan_counts_deployments_at_the_operating_points_own_split(client: TestClient) -> None:
    sweep = upload_by_name(client, ("varying.csv", VARYING))["varying"]
    params = {"tpot_ms": 20, "percentile": "p50", "requests_per_s": 50, "usd_per_gpu_hour": 2}
    [r] = get_plan(client, sweep=sweep, accounting="prefill_gpu", **params)["results"]
    # Per total GPU the operating point is c = 32 at 8P + 8D, 20 req/s per deployment (not the
    # sweep's first split, 4P + 12D): ⌈50 ÷ 20⌉ = 3 deployments of 16 GPUs.
    assert r["operating_point"]["split"] == "8P + 8D"
    assert (r["num_prefill_gpus"], r["num_decode_gpus"], r["num_gpus"]) == (8, 8, 16)
    assert (r["replicas"], r["gpus"], r["fleet_prefill_gpus"], r["fleet_decode_gpus"]) == (
        3,
        48,
        24,
        24,
    )
    # Its goodput restated per its own 8 prefill GPUs: 20,000 ÷ 8.
    assert (r["throughput_per"], r["goodput_tok_s_per_unit"]) == ("prefill GPU", 2500.0)


def test_a_split_an_importer_keeps_in_extra_is_the_sweeps_and_its_hash_stays_as_before() -> None:
    # vLLM keeps --metadata keys in each point's extra fields as well as in the sweep's
    # description: that is the sweep's split, not a point's own, and hashes as on main.
    doc = json.loads(VLLM.read_text())
    doc |= {"num_prefill_gpus": "2", "num_decode_gpus": "6", "num_gpus": "8"}
    sweep = only(parse(("x.json", json.dumps(doc).encode()), hardware="H100"))
    assert (sweep.meta["num_prefill_gpus"], sweep.meta["num_decode_gpus"]) == (2, 6)
    assert sweep.points[0].extra["num_prefill_gpus"] == 2
    assert point_split(sweep.points[0].extra) is None
    assert (
        sweep.content_hash() == "77415cfdaeadafb030407a655d1d0d41c621f217cc3c960b4950953c1ea77601"
    )


def test_a_csv_column_named_as_a_points_own_split_is_refused_naming_it() -> None:
    from app.ingest.errors import IngestError

    reserved = HEADER + ["point_num_decode_gpus"]
    rows = [{**row, "point_num_decode_gpus": 4} for row in _split_rows("x", [(8, 8)] * 3)]
    with pytest.raises(IngestError) as refused:
        parse(("r.csv", to_csv(rows, reserved)))
    [error] = refused.value.errors
    assert (error.file, error.row, error.field) == ("r.csv", 1, "point_num_decode_gpus")
    assert "is reserved: give each row's split as num_prefill_gpus" in error.message


def test_compare_gives_a_varying_splits_cost_ratio_only_at_the_slo_per_total_gpu_hour(
    client: TestClient,
) -> None:
    # The varying sweep against an aggregated 16-GPU one serving half as much at every load.
    aggregated = {"sweep": "agg", "num_prefill_gpus": None, "num_decode_gpus": None}
    half = [
        {**r, **aggregated, "output_tok_s": r["output_tok_s"] / 2}
        for r in _split_rows("agg", [(4, 12)] * 3)
    ]
    rows = to_csv(half, HEADER).split(b"\n", 1)[1]  # its rows, under the varying sweep's
    ids = upload_by_name(client, ("pair.csv", VARYING + rows))
    params = {"sweep": [ids["agg"], ids["varying"]], "picked": 1, "preset": "custom",
              "tpot_ms": 20, "percentile": "p50", "usd_per_gpu_hour": 3.6}  # fmt: skip
    for mode in ("gpu", "decode_gpu"):
        [pair] = client.get("/api/compare", params={**params, "accounting": mode}).json()["pairs"]
        # At the SLO both operate at c = 32: 1250 against 625 tok/s per total GPU at one price.
        assert pair["at_slo"]["cost_ratios"] == {"$3.6/GPU-hour": pytest.approx(0.5)}, mode
        curve_costs = [c for p in pair["curve"] for c in p["cost_ratios"]]
        if mode == "gpu":
            assert all(c is not None for c in curve_costs)
            assert pair["at_slo"]["cost_reasons"] == {"$3.6/GPU-hour": None}
        else:  # each point has its own decode GPUs: the curve's costs are not given
            assert set(curve_costs) == {None}
            [why] = pair["at_slo"]["cost_reasons"].values()
            assert why.startswith("varying: the prefill:decode split changes along the sweep")
