"""Compare's frontier chart: both systems' frontiers, each one's band with bands=1 and the
stretches where A is significantly above B between them; the same arrays in /api/compare."""

from __future__ import annotations

import json
from typing import Any

import plotly.graph_objects as go
import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.web.test_bands import per_request_sweep


def compare_answer(client: TestClient, **params: Any) -> dict[str, Any]:
    response = client.get("/api/compare", params={"picked": 1, "preset": "custom", **params})
    assert response.status_code == 200, response.text
    return dict(response.json())


def traces(figure: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [t for t in figure["data"] if isinstance(t.get("meta"), dict) and kind in t["meta"]]


def test_compare_draws_both_frontiers_with_their_bands_and_the_stretches_between_them(
    client: TestClient,
) -> None:
    base = per_request_sweep(client, "base", 1)
    double = per_request_sweep(client, "double", 2)
    body = compare_answer(client, sweep=[base, double], bands=1, ci_level=0.9)
    figure = body["figures"]["frontier"]
    go.Figure({"data": figure["data"], "layout": figure["layout"]})  # a valid Plotly figure
    # Each system's frontier: base's two points at 50 and 100 tok/s/user (788 and 394 tok/s:
    # 7,880 and 3,940 tokens in 10 s), double's about twice the tokens (1,576 and 784).
    lines = [t for t in figure["data"] if t.get("name") in ("base", "double")]
    assert [(t["name"], t["x"], t["y"]) for t in lines] == [
        ("base", [50, 100], [788, 394]),
        ("double", [50, 100], [1576, 784]),
    ]
    # The bands are the same arrays as /api/compare's `bands` (and Explore's), per sweep.
    assert [b["sweep_id"] for b in body["bands"]] == [base, double]
    band_traces = traces(figure, "band")
    assert len(band_traces) == 4
    for k, band in enumerate(body["bands"]):
        assert band["level"] == 0.9 and band["method"] == "bootstrap-requests"
        upper, lower = band_traces[2 * k], band_traces[2 * k + 1]
        assert upper["x"] == lower["x"] == band["x_tok_s_user"]
        assert upper["y"] == band["high_tok_s_per_gpu"]
        assert lower["y"] == band["low_tok_s_per_gpu"] and lower["fill"] == "tonexty"
    explore = client.get(
        "/api/explore",
        params={"sweep": [base, double], "picked": 1, "preset": "custom", "bands": 1,
                "ci_level": 0.9},
    ).json()  # fmt: skip
    assert explore["bands"] == body["bands"]
    # One stretch, double above base over the whole shared range, filled between the frontiers.
    [split] = [p["bands"] for p in body["pairs"]]
    [stretch] = split["stretches"]
    [shaded] = traces(figure, "stretch")
    assert shaded["name"] == "double significantly above base" and shaded["showlegend"]
    assert shaded["fill"] == "toself" and shaded["meta"] == {"stretch": "above", "pair": 1}
    assert shaded["x"] == split["x_tok_s_user"] + split["x_tok_s_user"][::-1]
    assert (shaded["x"][0], shaded["x"][59]) == (stretch["from_tok_s_user"], 100.0)
    # A's frontier left to right, then B's back, each as drawn: straight lines between the
    # points (double 1,576 at 50 tok/s/user to 784 at 100; base 788 to 394). Grid point 30 is
    # at 50 + 50 · 30/59 tok/s/user: 1,576 − 792 · 30/59 and 788 − 394 · 30/59.
    assert (shaded["y"][0], shaded["y"][59], shaded["y"][60], shaded["y"][-1]) == (
        1576, 784, 394, 788
    )  # fmt: skip
    assert shaded["y"][30] == pytest.approx(1576 - 792 * 30 / 59, rel=1e-12)
    assert shaded["y"][119 - 30] == pytest.approx(788 - 394 * 30 / 59, rel=1e-12)
    # Beneath the lines: stretches first, then bands, then the frontiers.
    assert figure["data"][:5] == [shaded, *band_traces]
    page = BeautifulSoup(
        client.get(
            "/compare",
            params={"sweep": [base, double], "picked": 1, "preset": "custom", "bands": 1,
                    "ci_level": 0.9},
        ).text,
        "html.parser",
    )  # fmt: skip
    script = page.select_one("script#frontier-figure")
    assert script is not None and script["type"] == "application/json"
    assert json.loads(script.get_text()) == figure
    chart = page.select_one("#frontier-chart")
    assert chart is not None and chart["data-figure"] == "frontier-figure"
    note = page.select_one("#compare-band-note")
    assert note is not None and "90 % confidence band" in note.get_text(" ", strip=True)
    statuses = {s["data-sweep"]: s["data-has-band"] for s in note.select(".band-status")}
    assert statuses == {str(base): "true", str(double): "true"}


def test_without_bands_the_frontier_chart_has_only_the_frontiers(client: TestClient) -> None:
    base = per_request_sweep(client, "base", 1)
    double = per_request_sweep(client, "double", 2)
    body = compare_answer(client, sweep=[base, double])
    assert body["bands"] is None
    figure = body["figures"]["frontier"]
    assert traces(figure, "band") == [] and traces(figure, "stretch") == []
    assert [t["name"] for t in figure["data"] if t.get("mode") == "lines+markers"] == [
        "base",
        "double",
    ]


def test_the_area_under_the_frontier_is_read_over_a_stated_range_or_said_unknown_and_why(
    client: TestClient,
) -> None:
    base = per_request_sweep(client, "base", 1)
    double = per_request_sweep(client, "double", 2)
    both = {"sweep": [base, double], "bands": 1}
    shared = compare_answer(client, **both)["pairs"][0]["bands"]["area"]
    assert (shared["from_tok_s_user"], shared["to_tok_s_user"], shared["stated"]) == (
        50, 100, False
    )  # fmt: skip
    # From 60 to 90 tok/s/user the staircase reads each frontier's point at 100: double's
    # 784 tok/s and base's 394 over 30 tok/s/user, 23,520 and 11,820.
    area = compare_answer(client, **both, area_from=60, area_to=90)["pairs"][0]["bands"]["area"]
    assert (area["from_tok_s_user"], area["to_tok_s_user"], area["stated"]) == (60, 90, True)
    assert area["reason"] is None
    assert area["a"]["value"] == pytest.approx(23520, rel=1e-12)
    assert area["b"]["value"] == pytest.approx(11820, rel=1e-12)
    assert area["ratio"]["value"] == pytest.approx(23520 / 11820, rel=1e-12)
    assert area["ratio"]["ci_method"] == "ratio-bootstrap"
    assert area["ratio"]["ci_low"] < 23520 / 11820 < area["ratio"]["ci_high"]
    assert area["a"]["ci_low"] < 23520 < area["a"]["ci_high"]
    # One end given: the other is the shared range's.
    upper = compare_answer(client, **both, area_from=60)["pairs"][0]["bands"]["area"]
    assert (upper["from_tok_s_user"], upper["to_tok_s_user"]) == (60, 100)
    assert upper["reason"] is None and upper["b"]["value"] == pytest.approx(394 * 40, rel=1e-12)
    # Beyond either frontier: unknown, with the reason, never a zero.
    beyond = compare_answer(client, **both, area_from=40, area_to=90)["pairs"][0]["bands"]
    why = (
        "the stated range from 40 to 90 tok/s/user lies outside double's frontier (it covers "
        "50 to 100 tok/s/user): nothing is extrapolated"
    )
    assert beyond["area"]["reason"] == why and beyond["area"]["stated"] is True
    for figure in ("a", "b", "ratio"):
        assert beyond["area"][figure]["value"] is None
        assert beyond["area"][figure]["ci_reason"] == why
    assert [s["side"] for s in beyond["stretches"]] == ["above"]  # the split stays
    empty = compare_answer(client, **both, area_from=90, area_to=60)["pairs"][0]["bands"]["area"]
    assert empty["reason"] == "the stated range from 90 to 60 tok/s/user is empty"
    bad = client.get("/api/compare", params={**both, "area_from": -1})
    assert bad.status_code == 422 and "area_from" in bad.text
    # The page: the form holds the range, the summary says unknown and why.
    page = BeautifulSoup(
        client.get(
            "/compare",
            params={**both, "picked": 1, "preset": "custom", "area_from": 40, "area_to": 90},
        ).text,
        "html.parser",
    )
    assert page.select_one("#area-from")["value"] == "40"  # type: ignore[index]
    assert page.select_one("#area-to")["value"] == "90"  # type: ignore[index]
    summary = page.select_one(f"#stretches-{double} .area-summary")
    assert summary is not None and summary["data-stated"] == "true"
    text = summary.get_text(" ", strip=True)
    assert text.startswith(
        "Area under the frontier from 40 to 90 tok/s/user (your range) : unknown"
    )
    reason = summary.select_one(".area-reason")
    assert reason is not None and reason.get_text() == why
