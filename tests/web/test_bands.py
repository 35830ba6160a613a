"""Frontier bands on Explore (bands=1): the arrays in /api/explore, the shaded traces, the note;
Compare's stretches of "where is A really better"."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers import upload_id

# Two configurations of one GPU, 10 s each, with requests whose lengths vary: concurrency 4
# (TPOT 10 ms, 100 tok/s/user) and 8 (TPOT 20 ms, 50 tok/s/user).
POINTS = (
    b"sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,output_tok_s\n"
    b"reqs,H100,1,4,10,10,{light}\n"
    b"reqs,H100,1,8,10,20,{heavy}\n"
)


def requests_csv(scale: int) -> bytes:
    """40 requests at 4 and 80 at 8; output lengths 50…149 (times `scale`, in another order),
    TPOT near the points' own."""
    rows = []
    for k in range(40):
        n = (50 + (k * (37 + scale)) % 100) * scale
        rows.append(f"reqs,4,100,{100 + 10 * (n - 1) + k % 5},{n},10,true\n")
    for k in range(80):
        n = (50 + (k * 53) % 100) * scale
        rows.append(f"reqs,8,100,{100 + 20 * (n - 1) + k % 7},{n},10,true\n")
    return b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n" + "".join(rows).encode()


def per_request_sweep(client: TestClient, name: str, scale: int) -> int:
    body = requests_csv(scale)
    light = sum(int(r.split(b",")[4]) for r in body.splitlines()[1:41]) / 10
    heavy = sum(int(r.split(b",")[4]) for r in body.splitlines()[41:]) / 10
    points = POINTS.replace(b"reqs", name.encode()).replace(b"{light}", str(light).encode())
    points = points.replace(b"{heavy}", str(heavy).encode())
    return upload_id(
        client,
        (f"{name}.csv", points),
        (f"{name}.requests.csv", body.replace(b"reqs", name.encode())),
    )


RUNS = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    b"runs,H100,1,4,10,500\n"
    b"runs,H100,1,4,10,540\n"
    b"runs,H100,1,8,20,1000\n"
    b"runs,H100,1,8,20,1200\n"
    b"runs,H100,1,8,20,1100\n"
)


def banded_explore(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/explore", params={"picked": 1, "preset": "custom", **params})
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_bands_come_as_arrays_in_the_explore_answer_and_shade_the_chart(
    client: TestClient,
) -> None:
    reqs = per_request_sweep(client, "reqs", 1)
    runs = upload_id(client, ("runs.csv", RUNS))
    assert banded_explore(client, sweep=[reqs, runs])["bands"] is None  # off unless asked
    body = banded_explore(client, sweep=[reqs, runs], bands=1, ci_level=0.9)
    by_id = {b["sweep_id"]: b for b in body["bands"]}
    r, u = by_id[reqs], by_id[runs]
    assert r["method"] == "bootstrap-requests" and r["level"] == 0.9 and r["seed"] == 0
    assert r["resamples"] == 1000 and r["reason"] is None
    assert r["x_tok_s_user"][0] == 50 and r["x_tok_s_user"][-1] == 100
    for y, lo, hi in zip(
        r["tok_s_per_gpu"], r["low_tok_s_per_gpu"], r["high_tok_s_per_gpu"], strict=True
    ):
        assert lo is not None and hi is not None and lo <= y <= hi
    # Runs: the frontier is each configuration's mean (1100 at 50 tok/s/user).
    assert u["method"] == "bootstrap-runs"
    assert u["tok_s_per_gpu"][0] == 1100
    assert u["low_tok_s_per_gpu"][0] < 1100 < u["high_tok_s_per_gpu"][0]
    # Shaded: two traces per band (upper, then lower filled up to it), under the lines.
    shaded = [t for t in body["figure"]["data"] if t.get("meta", {}).get("band")]
    assert len(shaded) == 4 and shaded[1]["fill"] == "tonexty"
    assert body["figure"]["data"][:4] == shaded
    go.Figure({"data": body["figure"]["data"], "layout": body["figure"]["layout"]})  # valid
    # The same query gives the same band (seeded).
    again = banded_explore(client, sweep=[reqs, runs], bands=1, ci_level=0.9)["bands"]
    assert again == body["bands"]
    page = BeautifulSoup(
        client.get(
            "/", params={"sweep": [reqs, runs], "picked": 1, "bands": 1, "preset": "custom"}
        ).text,
        "html.parser",
    )
    note = page.select_one("#band-note")
    assert note is not None and "95 % confidence band" in note.get_text(" ", strip=True)
    statuses = {s["data-sweep"]: s["data-has-band"] for s in note.select(".band-status")}
    assert statuses == {str(reqs): "true", str(runs): "true"}
    box = page.select_one("#a-bands")
    assert box is not None and box.has_attr("checked")


def test_compare_splits_the_shared_range_into_stretches_with_their_ratio_intervals(
    client: TestClient,
) -> None:
    base = per_request_sweep(client, "base", 1)
    double = per_request_sweep(client, "double", 2)  # twice the tokens: about 2× throughput
    params = {"sweep": [base, double], "picked": 1, "preset": "custom", "bands": 1}
    response = client.get("/api/compare", params=params)
    assert response.status_code == 200, response.text
    [pair] = response.json()["pairs"]
    split = pair["bands"]
    assert split["reason"] is None and len(split["x_tok_s_user"]) == 60
    [stretch] = split["stretches"]
    assert stretch["side"] == "above"
    assert (stretch["from_tok_s_user"], stretch["to_tok_s_user"]) == (50, 100)
    assert 1.5 < stretch["ratio_low"] < 2 < stretch["ratio_high"] < 2.5
    low, high = (f"{v:.3g}" for v in (stretch["ratio_low"], stretch["ratio_high"]))
    assert split["headline"] == f"double is {low}–{high}× base from 50 to 100 tok/s/user"
    area = split["area"]
    assert area["ratio"]["ci_low"] > 1 and area["ratio"]["ci_method"] == "ratio-bootstrap"
    shapes = response.json()["figures"]["throughput_ratio"]["layout"]["shapes"]
    assert [s["name"] for s in shapes if s.get("name", "").startswith("stretch")] == [
        "stretch-above"
    ]
    figure = response.json()["figures"]["throughput_ratio"]
    go.Figure({"data": figure["data"], "layout": figure["layout"]})  # a valid Plotly figure
    page = BeautifulSoup(client.get("/compare", params=params).text, "html.parser")
    rows = page.select(f"#stretches-{double} tr.stretch")
    assert [r["data-side"] for r in rows] == ["above"]
    headline = page.select_one(f"#stretches-{double} .stretch-headline")
    assert headline is not None and split["headline"] in headline.get_text(" ", strip=True)
    without = client.get("/api/compare", params={**params, "bands": 0}).json()
    assert without["pairs"][0]["bands"] is None


def test_the_frontier_answer_gives_the_band_when_asked(client: TestClient) -> None:
    runs = upload_id(client, ("runs.csv", RUNS))
    plain = client.get("/api/frontier", params={"sweep": runs}).json()
    assert plain["sweeps"][0]["band"] is None
    body = client.get("/api/frontier", params={"sweep": runs, "band": 1, "ci_level": 0.8}).json()
    band = body["sweeps"][0]["band"]
    assert band["method"] == "bootstrap-runs" and band["level"] == 0.8
    assert band["x_tok_s_user"][0] == 50 and band["tok_s_per_gpu"][0] == 1100


def test_the_api_check_judges_the_frontier_against_the_baselines_band(
    client: TestClient,
) -> None:
    base = per_request_sweep(client, "base", 1)
    double = per_request_sweep(client, "double", 2)
    body = {"baseline": double, "candidate": base, "scope": "frontier", "mode": "requests"}
    response = client.post("/api/check", json=body)
    assert response.status_code == 200, response.text
    doc = response.json()
    assert (doc["scope"], doc["share"], doc["verdict"]) == ("frontier", 0.3, "regression")
    [finding] = doc["findings"]
    assert finding["figure"] == "frontier" and finding["regression"] is True
    assert finding["change"] < -0.4  # half the throughput, everywhere
    assert "over 100 % of the shared range" in finding["note"]
    faster = client.post("/api/check", json={**body, "baseline": base, "candidate": double})
    assert faster.json()["verdict"] == "pass"
