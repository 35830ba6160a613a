"""Accounting modes end to end (issue 37): an 8P + 8D disaggregated H100 sweep and a 16-GPU
aggregated one, both at 16,000 output tok/s where the SLO passes, read in every mode."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.factories import to_csv
from tests.helpers import soup, upload_by_name
from tests.web.test_explore import figure

HEADER = ["sweep", "hardware", "num_gpus", "num_prefill_gpus", "num_decode_gpus", "concurrency"]
HEADER += ["tpot_p50_ms", "output_tok_s", "total_tok_s", "requests_per_s"]


def _rows(name: str, prefill: int | None, decode: int | None) -> list[dict[str, Any]]:
    common = {"sweep": name, "hardware": "H100", "num_gpus": 16}
    common |= {"num_prefill_gpus": prefill, "num_decode_gpus": decode}
    return [
        {**common, "concurrency": 8, "tpot_p50_ms": 10.0, "output_tok_s": 16000.0,
         "total_tok_s": 32000.0, "requests_per_s": 15.625},
        {**common, "concurrency": 64, "tpot_p50_ms": 40.0, "output_tok_s": 40000.0,
         "total_tok_s": 80000.0, "requests_per_s": 39.0625},
    ]  # fmt: skip


PAIR = to_csv([*_rows("disagg 8P+8D", 8, 8), *_rows("agg 16", None, None)], HEADER)
# Hand-computed (disagg, agg) goodput at TPOT ≤ 20 ms (the concurrency-8 point): 16,000 tok/s
# ÷ 16 GPUs, ÷ 8 decode, ÷ 8 prefill, ÷ 2 nodes of 8, ÷ 16 × 1.73 kW.
ORACLE = {
    "gpu": (1000.0, 1000.0),
    "decode_gpu": (2000.0, 1000.0),
    "prefill_gpu": (2000.0, 1000.0),
    "node": (8000.0, 8000.0),
    "kw": (16000 / 27.68, 16000 / 27.68),
}
WORDS = {"gpu": "GPU", "decode_gpu": "decode GPU", "prefill_gpu": "prefill GPU"}
WORDS |= {"node": "node", "kw": "kW"}


def test_every_mode_reads_the_hand_oracle_while_costs_stay_per_gpu_hour(
    client: TestClient, seeded: None
) -> None:
    ids = upload_by_name(client, ("pair.csv", PAIR))
    sweeps = f"sweep={ids['disagg 8P+8D']}&sweep={ids['agg 16']}"
    for mode, expected in ORACLE.items():
        slo = "tpot_ms=20&percentile=p50&usd_per_gpu_hour=3.6"
        url = f"/api/readoff?{sweeps}&{slo}&accounting={mode}"
        doc = client.get(url).json()
        assert doc["slo"]["accounting"] == mode
        results = doc["results"]
        goodput = tuple(r["goodput_tok_s_per_gpu"] for r in results)
        assert goodput == pytest.approx(expected, rel=1e-12), mode
        assert {r["throughput_per"] for r in results} == {WORDS[mode]}
        # $3.6 per GPU-hour at 1,000 tok/s per GPU: $1/Mtok in every mode.
        assert [r["costs"][0]["usd_per_mtok"] for r in results] == pytest.approx([1.0, 1.0])
        # 1,000 tok/s/GPU × 1,000 ÷ 1.73 kW: power figures are per total GPU too.
        assert results[0]["tok_s_per_mw"] == pytest.approx(1e6 / 1.73)
    assert [r["split"] for r in results] == ["8P + 8D", None]
    frontier = client.get(f"/api/frontier?{sweeps}&accounting=decode_gpu").json()
    assert frontier["y"] == "output tok/s per decode GPU"
    ys = [[p["y"] for p in s["frontier"]] for s in frontier["sweeps"]]
    assert ys == [[5000.0, 2000.0], [2500.0, 1000.0]]


def test_explore_names_the_mode_on_its_axis_hover_and_export(
    client: TestClient, seeded: None
) -> None:
    ids = upload_by_name(client, ("pair.csv", PAIR))
    sweeps = f"sweep={ids['disagg 8P+8D']}&sweep={ids['agg 16']}"
    query = f"{sweeps}&tpot_ms=20&percentile=p50&accounting=node"
    page = soup(client.get(f"/?{query}").text)
    assert page.select_one("#a-accounting option[selected]")["value"] == "node"
    fig = figure(page)
    assert "Output tok/s per node" in fig["layout"]["yaxis"]["title"]["text"]
    lines = [t for t in fig["data"] if t["mode"] == "lines+markers"]
    assert lines[0]["y"] == [20000, 8000]
    assert "H100 × 16 GPUs (8P + 8D)" in lines[0]["hovertemplate"]
    assert "tok/s/node" in lines[0]["hovertemplate"]
    # Claims and physics limits are per GPU: not drawn on a per-node axis, and it says so.
    notes = [p.get_text() for p in page.select(".chart-note")]
    assert any(n.startswith("Physics limits and vendor claims are per GPU") for n in notes)
    csv_text = client.get(f"/api/export/readoff.csv?{query}").text
    header, first = csv_text.splitlines()[:2]
    at = header.split(",").index("throughput_per")
    assert first.split(",")[at] == "node"
    # Unknown units say why rather than reading 0: the catalog has no all-in kW for the H100
    # PCIe (the A100 has an estimated one since issue 47).
    a100 = to_csv([{**r, "hardware": "H100PCIE"} for r in _rows("a100", None, None)], HEADER)
    sweep = upload_by_name(client, ("a100.csv", a100))["a100"]
    result = client.get(f"/api/readoff?sweep={sweep}&accounting=kw").json()["results"][0]
    assert (result["status"], result["goodput_tok_s_per_gpu"]) == ("unknown", None)
    assert "throughput per kW unknown: the catalog has no all-in kW" in result["reason"]
