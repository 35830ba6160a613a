"""Explore (/): seeded frontiers and read-offs, SLO changes through htmx, URL state, JSON twin."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.domain.numbers import fmt_number, fmt_usd
from tests.factories import post_files
from tests.helpers import soup, with_hover
from tests.web.test_readoff_api import O11


def figure(page: BeautifulSoup) -> dict[str, Any]:
    return json.loads(page.select_one("#pareto-figure").string)


def test_a_fresh_visit_shows_seeded_frontiers_with_the_chat_preset(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/").text)
    rows = page.select("#readoff-table tbody tr")
    # The largest comparable group: the six demo Llama 3.1 70B 1k/1k systems.
    names = [tr.select_one("td a").text for tr in rows]
    assert len(names) == 6
    assert all(n.startswith("Demo · Llama 3.1 70B") for n in names)
    assert page.select_one("#slo-preset option[selected]")["value"] == "chat-interactive"
    assert page.select_one("#slo-ttft")["value"] == "500"
    fig = figure(page)
    frontiers = [t for t in fig["data"] if t["mode"] == "lines+markers"]
    assert len(frontiers) == 6
    assert all(len(t["x"]) == len(t["y"]) >= 1 for t in frontiers)
    assert fig["layout"]["shapes"][0]["x1"] == pytest.approx(25.0)  # 1000 / 40 ms
    assert "$/Mtok" in page.select_one("#readoff-table thead").text


def test_the_table_shows_the_same_numbers_as_the_readoff_api(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/?sweep=2&sweep=3&picked=1&ttft_ms=500&tpot_ms=40&preset=custom").text)
    shown = {
        int(tr["data-sweep"]): tr.select_one("td.goodput").text
        for tr in page.select("#readoff-table tbody tr")
    }
    api = client.get("/api/readoff", params={"sweep": [2, 3], "ttft_ms": 500, "tpot_ms": 40})
    for result in api.json()["results"]:
        expected = result["goodput_tok_s_per_gpu"]
        assert shown[result["sweep_id"]] == fmt_number(expected)


def test_changing_the_slo_through_htmx_swaps_the_view_and_pushes_the_url(
    hx_client: TestClient,
) -> None:
    [sweep] = [s["id"] for s in post_files(hx_client, ("o11.csv", O11)).json()["sweeps"]]
    params = {"sweep": sweep, "picked": 1, "preset": "custom", "ttft_ms": 300, "tpot_ms": 35}
    response = hx_client.get("/", params=params)
    assert "<html" not in response.text
    view = soup(response.text)
    assert view.select_one("#explore") is not None
    assert view.select_one("#readoff-table td.goodput").text == "3,200"
    assert response.headers["HX-Push-Url"] == (
        f"/?ttft_ms=300.0&tpot_ms=35.0&sweep={sweep}&picked=1&preset=custom"
    )
    looser = hx_client.get("/", params={**params, "tpot_ms": 45})
    assert soup(looser.text).select_one("#readoff-table td.goodput").text == "4,800"


def test_choosing_a_preset_applies_its_limits(client: TestClient, seeded: None) -> None:
    page = soup(
        client.get(
            "/",
            params={
                "picked": 1,
                "preset": "reasoning",
                "applied_preset": "chat-interactive",
                "ttft_ms": 500,
                "tpot_ms": 40,
            },
        ).text
    )
    assert page.select_one("#slo-ttft")["value"] == "1500"
    assert page.select_one("#slo-tpot")["value"] == "15"
    assert page.select_one("#slo-preset option[selected]")["value"] == "reasoning"


def test_editing_a_limit_makes_the_preset_custom(client: TestClient, seeded: None) -> None:
    params = {
        "picked": 1,
        "preset": "reasoning",
        "applied_preset": "reasoning",
        "ttft_ms": 900,
        "tpot_ms": 15,
    }
    page = soup(client.get("/", params=params).text)
    assert page.select_one("#slo-preset option[selected]")["value"] == "custom"
    assert page.select_one("#slo-ttft")["value"] == "900"


def test_unticking_every_series_shows_what_to_do(client: TestClient, seeded: None) -> None:
    page = soup(client.get("/?picked=1&preset=custom").text)
    assert "No series selected" in page.select_one(".results .empty").text
    assert page.select_one("#pareto-chart") is None


def test_an_empty_database_points_to_the_upload_page(client: TestClient) -> None:
    empty = soup(client.get("/").text).select_one(".results .empty")
    assert empty.select_one('a[href="/upload"]') is not None


def test_a_price_set_prices_each_gpu_with_its_own_profile(client: TestClient, seeded: None) -> None:
    params = {"sweep": [2, 4], "picked": 1, "price_set": "costr@2026-09-08"}
    api = client.get("/api/explore", params=params).json()
    assert api["price_columns"][0]["label"] == "InferenceX 3-year rental · Sep 2026"
    page = soup(client.get("/", params=params).text)
    cells = [tr.select_one("td.cost").text for tr in page.select("#readoff-table tbody tr")]
    by_id = {r["sweep_id"]: r for r in api["results"]}
    for sweep_id, cell in zip([2, 4], cells, strict=True):
        cost = next(c for c in by_id[sweep_id]["costs"] if c["usd_per_mtok"] is not None)
        assert cell == fmt_usd(cost["usd_per_mtok"])
        hardware = by_id[sweep_id]["hardware"]
        assert cost["name"].startswith(hardware)


def test_the_json_twin_carries_the_figure_and_results(client: TestClient, seeded: None) -> None:
    api = client.get("/api/explore", params={"sweep": 2, "picked": 1, "tpot_ms": 40}).json()
    assert api["selected"] == [2]
    assert api["results"][0]["sweep_id"] == 2
    assert api["figure"]["data"][0]["name"] == api["results"][0]["name"]


def test_a_malformed_parameter_is_a_clear_error_page(client: TestClient) -> None:
    response = client.get("/?tpot_ms=fast")
    assert response.status_code == 422
    assert "tpot_ms" in soup(response.text).select_one("#error").text


def test_a_claim_far_beyond_the_measurements_does_not_squash_the_chart(
    client: TestClient, seeded: None
) -> None:
    params = {"sweep": [2, 3], "picked": 1, "claims": "examples"}
    fig = client.get("/api/explore", params=params).json()["figure"]
    claims = [t for t in fig["data"] if t.get("meta") == "claim"]
    assert claims, "the O6 worked-example claims are shown when examples are asked for"
    measured_x = [x for t in fig["data"] if t.get("meta") != "claim" for x in t["x"] if x]
    right = fig["layout"]["xaxis"]["range"][1]
    assert right == pytest.approx(max(measured_x) * 1.08)
    # Each such claim is a triangle on the edge pointing its way; the hover gives its value.
    [per_user] = [c for c in claims if "3,000 tok/s per user" in c["name"]]
    assert per_user["name"].endswith("▸ beyond the axis")
    assert (per_user["x"], per_user["marker"]["symbol"]) == ([right], ["triangle-right"])
    assert per_user["text"][0].endswith("<b>beyond the axis: 3,000 tok/s/user</b>")
    [system] = [c for c in claims if "Worked example" in c["name"] and "system" in c["name"]]
    assert system["y"] == [fig["layout"]["yaxis"]["range"][1]]
    assert system["text"][0].endswith("<b>beyond the axis: 3,000 tok/s/GPU</b>")
    # The page says so beneath the chart.
    note = soup(client.get("/", params=params).text).select_one(".chart-note").text
    assert note.startswith("9 limits or claims lie beyond the measured range")  # all 9 claims


# --- Issue 12: per-limit percentiles, three states, chart honesty, exports with the prices ----


def vllm_sweep(client: TestClient) -> int:
    from tests.web.test_readoff_api import upload_vllm

    return upload_vllm(client)


def explore(client: TestClient, **params: Any) -> BeautifulSoup:
    response = client.get("/", params={"picked": 1, "preset": "custom", **params})
    assert response.status_code == 200, response.text
    return soup(response.text)


def test_unknown_reads_unknown_with_its_reason_in_the_verdict_cell_not_a_red_no(
    client: TestClient,
) -> None:
    sweep = vllm_sweep(client)
    page = explore(client, sweep=sweep, ttft_ms=500, tpot_ms=25)
    cell = page.select_one("#readoff-table tbody tr td.verdict")
    assert cell["class"] == ["verdict", "unknown"]
    assert cell["data-status"] == "unknown"
    assert cell.contents[0].strip() == "unknown"
    reason = cell.select_one(".verdict-reason").text
    assert "p90 TTFT not measured: the file has TTFT at p50, p95, p99" in reason
    assert "or upload per-request data" in reason
    # Drawn distinctly: one legend entry of hollow grey rings around the 4 unknown points.
    [unknown] = [t for t in figure(page)["data"] if t.get("legendgroup") == "slo-unknown"]
    assert unknown["name"] == "SLO unknown (statistic not measured)"
    assert unknown["marker"]["symbol"] == "circle-open"
    assert len(unknown["x"]) == 4
    assert unknown["x"][0] == pytest.approx(1000 / 16.357071523336927)
    # The sweep's one reason is sent once; the browser gives it to each of the 4 points.
    [text] = unknown["meta"]["texts"]
    assert unknown["meta"]["text"] == [0, 0, 0, 0] and "text" not in unknown
    assert with_hover(unknown)["text"] == [text] * 4
    assert "<br>SLO unknown: p90 TTFT not measured: the file has TTFT at p50, p95, p99" in text


def test_per_limit_percentiles_come_from_the_url_and_give_the_vllm_file_a_goodput(
    client: TestClient,
) -> None:
    sweep = vllm_sweep(client)
    params = {"ttft_percentile": "p99", "tpot_percentile": "p50"}
    page = explore(client, sweep=sweep, ttft_ms=400, tpot_ms=20, **params)
    assert page.select_one("#slo-ttft-pct option[selected]").text == "p99"
    assert page.select_one("#slo-tpot-pct option[selected]").text == "p50"
    assert page.select_one("#slo-e2el-pct option[selected]")["value"] == ""
    assert "p99 TTFT ≤ 400 ms, p50 TPOT ≤ 20 ms" in page.select_one("#readoff h2").text
    row = page.select_one("#readoff-table tbody tr")
    assert row.select_one("td.verdict").contents[0].strip() == "yes"
    assert row.select_one("td.goodput").text == "366"
    assert row.select_one("td.reason").text == (
        "p99 TTFT 341 ms ≤ 400 ms; p50 TPOT 18.4 ms ≤ 20 ms"
    )
    assert figure(page)["layout"]["shapes"][0]["type"] == "rect"  # axis p50 = the limit's p50
    api = client.get("/api/explore", params={"sweep": sweep, "picked": 1, **params}).json()
    assert api["slo"]["ttft_percentile"] == "p99"


def test_the_slo_band_is_only_shaded_when_the_axis_shows_the_limits_statistic(
    client: TestClient,
) -> None:
    [sweep] = [s["id"] for s in post_files(client, ("o11.csv", O11)).json()["sweeps"]]
    # TPOT limited at p90 while the x axis is 1000 / p50 TPOT: a line, no shading, and why.
    layout = figure(explore(client, sweep=sweep, tpot_ms=35))["layout"]
    assert [s["type"] for s in layout["shapes"]] == ["line"]
    assert (
        "this axis is p50 TPOT,<br>so the line is not the pass boundary"
        in (layout["annotations"][0]["text"])
    )
    same = figure(explore(client, sweep=sweep, tpot_ms=35, stat="p90"))["layout"]
    assert [s["type"] for s in same["shapes"]] == ["rect", "line"]
    assert same["shapes"][0]["x1"] == pytest.approx(1000 / 35)


def test_empty_charts_say_why(client: TestClient) -> None:
    sweep = vllm_sweep(client)
    page = explore(client, sweep=sweep, tpot_ms=25, stat="p90")
    texts = [a["text"] for a in figure(page)["layout"]["annotations"]]
    assert (
        "Nothing to draw: no point has a p90 TPOT, the x axis: choose another TPOT statistic "
        "for the x axis (e.g. p50 or mean)"
    ) in texts
    empty = page.select_one("#sensitivity .empty-reason").text
    assert "no point has a p90 TPOT, stored or from request samples" in empty


def test_the_preset_shows_its_source_and_uses_median_and_p99(
    client: TestClient, seeded: None
) -> None:
    page = soup(client.get("/").text)
    assert page.select_one("#slo-preset option[selected]")["value"] == "chat-interactive"
    assert "metrics-and-costs.md §6 suggested presets" in page.select_one("#slo-preset-source").text
    assert "p99 TTFT ≤ 500 ms, p50 TPOT ≤ 40 ms" in page.select_one("#readoff h2").text


def test_export_links_carry_the_pages_price_set(client: TestClient, seeded: None) -> None:
    [sweep] = [s["id"] for s in post_files(client, ("o11.csv", O11)).json()["sweeps"]]
    params = {"tpot_ms": 35, "ttft_ms": 300, "price_set": "costr@2026-09-08"}
    page = explore(client, sweep=sweep, **params)
    label = "InferenceX 3-year rental · Sep 2026"
    assert label in page.select_one("#readoff-table thead").text
    # 3,200 tok/s/GPU at the H100 price of the set, $2.00/GPU-hour: 2·10⁶ / (3600 · 3200).
    expected = 2.0 * 1e6 / (3600 * 3200)
    assert page.select_one("#readoff-table td.cost").text == "$0.17"  # 0.1736 in cents
    assert expected == pytest.approx(0.1736, abs=5e-5)
    links = {a.text: a["href"] for a in page.select("nav.exports a")}
    csv_text = client.get(links["read-off CSV"]).text
    import csv
    import io

    [row] = csv.DictReader(io.StringIO(csv_text))
    assert float(row[f"usd_per_mtok [{label}]"]) == pytest.approx(expected)
    assert float(row[f"usd_per_gpu_hour [{label}]"]) == 2.0
    assert row["status"] == "pass"
    body = client.get(links["read-off JSON"]).json()
    [cell] = body["results"][0]["price_cells"]
    assert (cell["label"], cell["usd_per_gpu_hour"]) == (label, 2.0)
    assert cell["usd_per_mtok"] == pytest.approx(expected)
    report = soup(client.get(links["offline HTML report"]).text)
    assert report.select_one("#readoff-table td.cost").text == "$0.17"
