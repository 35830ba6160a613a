"""Charts draw only what exists (issue 45, item 6): no ratio without a shared range, an empty
chart says why with no axis at all, the axes fit the frontier bands, and the band export ends
at the frontier's last interactivity."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.domain.frontier_band import even_grid
from tests.helpers import soup, upload_by_name, upload_id
from tests.web.test_bands import RUNS as BAND_RUNS
from tests.web.test_own_prices import NO_A100, PRICE_SET, SET_LABEL

# A at TPOT p50 30 and 40 ms (33.3 … 25 tok/s/user), B at 8 and 10 ms (125 … 100): both meet
# TPOT p50 ≤ 50 ms, at interactivities that never overlap.
APART = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    b"A,A100,1,8,30,1200\nA,A100,1,16,40,1600\n"
    b"B,A100,1,1,8,300\nB,A100,1,4,10,1000\n"
)
SLO = {"tpot_ms": 50, "percentile": "p50", "picked": 1, "preset": "custom"}
EMPTY_AXES = {"visible": False}


def _compare(client: TestClient, ids: dict[str, int], **params: Any) -> dict[str, Any]:
    query = {"sweep": [ids["B"], ids["A"]], **SLO, **params}
    response = client.get("/api/compare", params=query)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _reason(figure: dict[str, Any]) -> str:
    [note] = [a for a in figure["layout"]["annotations"] if a.get("name") == "empty-reason"]
    return str(note["text"])


def test_without_a_shared_range_the_ratio_chart_draws_nothing_and_says_why(
    client: TestClient,
) -> None:
    ids = upload_by_name(client, ("apart.csv", APART))
    body = _compare(client, ids, usd_per_gpu_hour=2)
    [pair] = body["pairs"]
    assert pair["shared_range_tok_s_user"] is None
    # The box's goodput ratio at the SLO stands (1,600 ÷ 1,000), but the chart draws no line:
    # today its SLO marker's bar joined 25 and 125 tok/s/user as if a ratio ran along it.
    assert pair["at_slo"]["throughput_ratio"] == 1.6
    ratio = body["figures"]["throughput_ratio"]
    assert ratio["data"] == [
        {
            "type": "scatter",
            "mode": "lines",
            "name": "A ÷ B",
            "x": [],
            "y": [],
            "line": {"color": ratio["data"][0]["line"]["color"], "width": 2, "shape": "hv",
                     "dash": "solid"},
            "customdata": [],
            "hovertemplate": "%{customdata[0]} tok/s/user: %{customdata[1]}×<extra></extra>",
        }
    ]  # fmt: skip
    why = "no shared interactivity range: A covers [25, 33.3], B covers [100, 125] tok/s/user"
    assert _reason(ratio) == f"Nothing to draw: {why}"
    assert ratio["layout"]["xaxis"]["visible"] is False
    assert ratio["layout"]["yaxis"]["visible"] is False
    assert ratio["layout"]["shapes"] == []  # no 1× line, no SLO floor line
    cost = body["figures"]["cost_ratio"]
    assert cost["data"] == [] and _reason(cost) == f"Nothing to draw: {why}"
    assert cost["layout"]["shapes"] == []
    page = soup(client.get("/compare", params={"sweep": [ids["B"], ids["A"]], **SLO}), expect=200)
    box = page.select_one(".no-overlap").get_text()
    assert box.endswith("No ratio without a shared range (nothing is extrapolated).")
    drawn = json.loads(page.select_one("script#ratio-figure").string)
    assert drawn["data"] == ratio["data"] and _reason(drawn) == _reason(ratio)


def test_an_unpriced_cost_sensitivity_chart_says_why_instead_of_a_negative_axis(
    client: TestClient, seeded: None
) -> None:
    ids = upload_by_name(client, ("apart.csv", APART))
    query = {"sweep": [ids["B"], ids["A"]], **SLO, "price_set": PRICE_SET}
    page = soup(client.get("/compare", params=query), expect=200)
    cost = json.loads(page.select_one("script#cost-sensitivity-figure").string)
    # Every step has a goodput, none a price: the set prices no A100.
    assert [t["y"] for t in cost["data"]] == [[None] * 4, [None] * 4]
    assert _reason(cost) == f"Nothing to draw: B: {NO_A100}; A: {NO_A100}"
    assert cost["layout"]["yaxis"] == {"title": {"text": "$/Mtok"}, "type": "linear",
                                       "rangemode": "nonnegative", "visible": False}  # fmt: skip
    assert cost["layout"]["xaxis"]["visible"] is False
    # Priced, the same chart draws its costs on an axis that never goes below 0.
    query = {"sweep": [ids["B"], ids["A"]], **SLO, "usd_per_gpu_hour": 2}
    priced = soup(client.get("/compare", params=query), expect=200)
    drawn = json.loads(priced.select_one("script#cost-sensitivity-figure").string)
    assert "annotations" not in drawn["layout"]
    assert drawn["layout"]["yaxis"]["rangemode"] == "nonnegative"
    assert all(y is not None for y in drawn["data"][0]["y"])


def test_the_cost_sensitivity_chart_reads_your_own_price_for_a_gpu_the_price_set_leaves_out(
    client: TestClient, seeded: None
) -> None:
    """Issue 47: the set prices no A100, the user's $2/GPU-hour does: the chart is priced at
    it and says so as the read-off does. $/Mtok = 2 ÷ (goodput × 3,600) × 10⁶."""
    ids = upload_by_name(client, ("apart.csv", APART))
    query = {"sweep": [ids["B"], ids["A"]], **SLO, "price_set": PRICE_SET, "usd_per_gpu_hour": 2}
    page = soup(client.get("/compare", params=query), expect=200)
    cost = json.loads(page.select_one("script#cost-sensitivity-figure").string)
    assert "annotations" not in cost["layout"]
    steps = [(t["name"], t["x"], t["text"]) for t in cost["data"]]
    assert steps == [
        ("B", [8, 10, 30, 40], ["$1.85/Mtok", "$0.56/Mtok", "$0.56/Mtok", "$0.56/Mtok"]),
        ("A", [8, 10, 30, 40], ["–", "–", "$0.46/Mtok", "$0.35/Mtok"]),
    ]
    b, a = (t["y"] for t in cost["data"])
    assert b == pytest.approx([2e6 / 3600 / 300, *[2e6 / 3600 / 1000] * 3], rel=1e-12)
    assert a[:2] == [None, None]
    assert a[2:] == pytest.approx([2e6 / 3600 / 1200, 2e6 / 3600 / 1600], rel=1e-12)
    title = page.select_one("#cost-sensitivity-title").get_text(" ", strip=True)
    assert title == "$/Mtok as the limit tightens — your $2/GPU-hour"
    # Without the user's price, the set's label heads it (and the chart says why it is empty).
    query.pop("usd_per_gpu_hour")
    page = soup(client.get("/compare", params=query), expect=200)
    title = page.select_one("#cost-sensitivity-title").get_text(" ", strip=True)
    assert title == f"$/Mtok as the limit tightens — {SET_LABEL}"


def test_an_unpriced_plan_chart_says_why_instead_of_empty_axes(
    client: TestClient, seeded: None
) -> None:
    ids = upload_by_name(client, ("apart.csv", APART))
    query = {"sweep": ids["A"], "tpot_ms": 50, "percentile": "p50", "price_set": PRICE_SET}
    body = client.get("/api/plan", params={**query, "requests_per_s": 10}).json()
    figure = body["figure"]
    assert figure["data"] == [] and body["results"][0]["unpriced"][0]["reason"] == NO_A100
    assert _reason(figure) == (
        "Nothing to draw: no option both meets the SLO and has a price: see each system's "
        "reason in the table"
    )
    assert figure["layout"]["shapes"] == []
    assert figure["layout"]["xaxis"]["visible"] is False
    assert figure["layout"]["yaxis"]["visible"] is False


def test_a_goodput_sensitivity_chart_with_nothing_to_step_through_says_why(
    client: TestClient,
) -> None:
    ids = upload_by_name(client, ("apart.csv", APART))
    body = _compare(client, ids, sensitivity="ttft")  # the files give no TTFT
    sens = body["figures"]["sensitivity"]
    assert [t["y"] for t in sens["data"]] == [[], []]
    assert _reason(sens) == (
        "Nothing to draw: no point has a p50 TTFT, stored or from request samples: choose a "
        "percentile the files report (e.g. p50 or p99) or upload per-request data"
    )
    assert sens["layout"]["yaxis"]["visible"] is False


def test_the_explore_axes_fit_the_frontier_bands(client: TestClient) -> None:
    runs = upload_id(client, ("runs.csv", BAND_RUNS))
    body = client.get(
        "/api/explore",
        params={"sweep": runs, "picked": 1, "preset": "custom", "bands": 1, "ci_level": 0.9},
    ).json()
    [band] = body["bands"]
    top = max(h for h in band["high_tok_s_per_gpu"] if h is not None)
    # The frontier's highest value is 1,100 tok/s (the mean of three runs at 50 tok/s/user);
    # its band reaches 1,505 (today it ran past an axis ending at 1,100 × 1.08 = 1,188).
    assert max(band["tok_s_per_gpu"]) == 1100.0
    assert top > 1100 * 1.08
    assert body["figure"]["layout"]["yaxis"]["range"] == [0.0, top * 1.08]


# Two runs at each of two loads, at TPOT 8 and 21 ms: the frontier spans 1000 ÷ 21 … 125
# tok/s/user, where lo + (hi − lo) × 59 ÷ 59 is 125.00000000000001, one ulp past its end.
ENDS = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    b"ends,H100,1,4,8,500\nends,H100,1,4,8,540\n"
    b"ends,H100,1,8,21,1000\nends,H100,1,8,21,1200\n"
)


def test_the_frontier_band_export_ends_at_the_frontiers_last_interactivity(
    client: TestClient,
) -> None:
    lo, hi = 1000 / 21, 1000 / 8
    assert lo + (hi - lo) * 59 / 59 != hi  # the case the grid met
    assert even_grid(lo, hi)[-1] == hi
    sweep = upload_id(client, ("ends.csv", ENDS))
    text = client.get("/api/export/frontier_band.csv", params={"sweep": sweep}).text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 60
    assert rows[-1]["x_tok_s_user"] == "125.0"
    # Each row has the frontier and both ends of its interval (the staircase's last step is
    # the two runs at c = 4: their mean, 520 tok/s).
    assert all(r["tok_s_per_gpu"] and r["low_tok_s_per_gpu"] and r["high_tok_s_per_gpu"]
               for r in rows)  # fmt: skip
    assert rows[-1]["tok_s_per_gpu"] == "520.0"
