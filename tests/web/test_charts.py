"""Charts that stay readable (issue 13, point 4): the figure dicts, with exact values.

The Pareto figures are built from sweeps held in memory and analysed by the real services, so
the numbers below follow from the rows by hand: x = 1000 / TPOT, y = output tok/s / GPUs.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.charts import compare as charts_compare
from app.charts import history as charts_history
from app.charts import ranges
from app.charts import sweep as sweep_charts
from app.charts.pareto import pareto_figure
from app.charts.style import PALETTE, SYMBOLS, series_style
from app.domain.columns import POINT_COLUMN_NAMES
from app.domain.sweep_meta import SweepMeta
from app.domain.verdict import Slo
from app.services.analysis import Params, SweepAnalysis, analyse
from app.store.point_blocks import StoredPoint
from app.store.points import SweepPoints
from tests.factories import post_files
from tests.web.test_readoff_api import STELLALEE

# (concurrency, p50 TPOT ms, output tok/s) on 8 GPUs: x = 50, 40, 25, 12.5; y = 250 … 2,000.
ROWS = ((1, 20.0, 2000.0), (4, 25.0, 6000.0), (16, 40.0, 12000.0), (64, 80.0, 16000.0))


def sweep(i: int, *, model: str = "llama-3.1-70b", hardware: str = "H100", scale: float = 1.0):
    meta = SweepMeta(
        id=i, name=f"sweep {i:02d}", hardware=hardware, num_gpus=8, model=model,
        engine="vllm", precision="fp8", isl=1024, osl=1024,
    )  # fmt: skip
    rows = []
    for k, (concurrency, tpot, out) in enumerate(ROWS):
        row: dict[str, Any] = dict.fromkeys(POINT_COLUMN_NAMES)
        row.update(
            point_id=100 * i + k,
            concurrency=concurrency,
            tpot_p50_ms=tpot,
            tpot_p90_ms=tpot * 1.25,
            output_tok_s=out * scale,
        )
        rows.append(row)
    return SweepPoints(meta, rows)


def analysed(n: int = 1, slo: Slo | None = None, **kw: Any) -> tuple[list[SweepAnalysis], Params]:
    params = Params(slo=slo or Slo())
    models = ("llama-3.1-70b", "llama-3.1-8b", "qwen-32b")
    sweeps = [sweep(i + 1, model=models[i % 3], hardware=("H100", "H200")[i % 2]) for i in range(n)]
    return analyse(sweeps, params, []), params


def shapes_by_name(layout: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in layout["shapes"]}


def annotation(layout: dict[str, Any], name: str) -> dict[str, Any]:
    [found] = [a for a in layout["annotations"] if a.get("name") == name]
    return found


# --- the SLO floor on log and linear x ---------------------------------------------------------


def test_on_log_x_the_floor_band_and_line_use_data_values_and_the_label_log10() -> None:
    results, params = analysed(slo=Slo(tpot_ms=50, tpot_percentile="p50"))
    layout = pareto_figure(results, params, log_x=True)["layout"]
    # Fitted to the points (x 12.5 … 50) and padded by 1.25× each side, in log10 for the range.
    assert layout["xaxis"]["range"] == pytest.approx([math.log10(10.0), math.log10(62.5)])
    shapes = shapes_by_name(layout)
    # Shapes take data values on a log axis: the band runs from the left edge (10) to the floor.
    assert (shapes["slo-band"]["x0"], shapes["slo-band"]["x1"]) == pytest.approx((10.0, 20.0))
    assert (shapes["slo-floor"]["x0"], shapes["slo-floor"]["x1"]) == pytest.approx((20.0, 20.0))
    # Annotations take log10 values; 20 sits at 0.38 of the axis's log width, so the label
    # goes right of the line.
    label = annotation(layout, "slo-floor-label")
    assert label["x"] == pytest.approx(math.log10(20.0))
    assert label["xanchor"] == "left"
    assert label["text"].startswith("SLO: ≥ 20 tok/s/user (p50 TPOT ≤ 50 ms)")


def test_on_linear_x_the_band_starts_at_zero_and_the_label_sits_at_the_floor() -> None:
    results, params = analysed(slo=Slo(tpot_ms=40, tpot_percentile="p50"))
    layout = pareto_figure(results, params)["layout"]
    assert layout["xaxis"]["range"] == pytest.approx([0.0, 50 * ranges.LINEAR_PAD])
    assert layout["yaxis"]["range"] == pytest.approx([0.0, 2000 * ranges.LINEAR_PAD])
    shapes = shapes_by_name(layout)
    assert (shapes["slo-band"]["x0"], shapes["slo-band"]["x1"]) == pytest.approx((0.0, 25.0))
    assert annotation(layout, "slo-floor-label")["x"] == pytest.approx(25.0)


def test_a_floor_beyond_every_point_widens_the_x_axis_to_show_it() -> None:
    results, params = analysed(slo=Slo(tpot_ms=10, tpot_percentile="p50"))  # floor 100 tok/s/user
    layout = pareto_figure(results, params, log_x=True)["layout"]
    assert layout["xaxis"]["range"] == pytest.approx([math.log10(10.0), math.log10(125.0)])
    label = annotation(layout, "slo-floor-label")
    assert label["xanchor"] == "right"  # the line is in the right half: the label goes left of it


# --- 20+ series ----------------------------------------------------------------------------------


def test_no_two_of_the_first_48_series_share_colour_symbol_and_dash() -> None:
    styles = [series_style(i) for i in range(48)]
    assert len(PALETTE) * len(SYMBOLS) == 48
    assert len(set(styles)) == 48
    # The first eight differ by colour alone; the ninth is the first colour with a new symbol
    # and dash.
    assert {(s.symbol, s.dash) for s in styles[:8]} == {("circle", "solid")}
    assert (styles[8].colour, styles[8].symbol, styles[8].dash) == ("#0072B2", "square", "dash")


def test_21_series_have_distinct_styles_a_side_legend_and_model_hardware_headings() -> None:
    results, params = analysed(21)
    fig = pareto_figure(results, params)
    frontiers = [t for t in fig["data"] if t["mode"] == "lines+markers"]
    assert len(frontiers) == 21
    looks = {(t["line"]["color"], t["marker"]["symbol"], t["line"]["dash"]) for t in frontiers}
    assert len(looks) == 21
    legend = fig["layout"]["legend"]
    assert (legend["orientation"], legend["x"], legend["xanchor"]) == ("v", 1.02, "left")
    assert legend["groupclick"] == "toggleitem"
    # Grouped by model · hardware: 3 models × 2 GPUs cycle, so 6 headings, each given once.
    titles = [t["legendgrouptitle"]["text"] for t in frontiers if "legendgrouptitle" in t]
    assert len(titles) == len(set(titles)) == 6
    assert titles[0] == "llama-3.1-70b · H100"
    first = frontiers[0]
    assert first["legendgroup"] == "group-llama-3.1-70b|H100"
    # Every trace of a sweep says which sweep it is: the legend click shows and hides them all.
    assert all(t["meta"]["sweep"] == 1 for t in fig["data"] if t["name"].startswith("sweep 01"))


def test_up_to_eight_series_keep_one_legend_group_each_without_headings() -> None:
    results, params = analysed(8)
    frontiers = [t for t in pareto_figure(results, params)["data"] if t["mode"] == "lines+markers"]
    assert [t["legendgroup"] for t in frontiers] == [f"sweep-{i}" for i in range(1, 9)]
    assert not any("legendgrouptitle" in t for t in frontiers)


# --- limits beyond the measured range ------------------------------------------------------------


def ceiling(xs: list[float], ys: list[float]) -> dict[str, Any]:
    return {
        "type": "scatter", "mode": "lines", "meta": "roofline", "name": "Physics limit · H100",
        "legendgroup": "physics", "x": xs, "y": ys, "text": [f"batch {k}" for k in range(len(xs))],
        "line": {"color": "#0072B2", "dash": "dash"},
    }  # fmt: skip


def test_a_ceiling_wholly_beyond_the_data_keeps_the_axes_and_gets_one_edge_triangle() -> None:
    results, params = analysed()
    far = ceiling([200.0, 150.0, 120.0], [300.0, 9000.0, 40000.0])
    fig = pareto_figure(results, params, extra_traces=[far])
    layout = fig["layout"]
    assert layout["xaxis"]["range"] == pytest.approx([0.0, 54.0])
    assert layout["yaxis"]["range"] == pytest.approx([0.0, 2160.0])
    [edge] = [t for t in fig["data"] if t.get("meta") == "edge"]
    # Nearest to the box: (200, 300), beyond the right edge only: a right-pointing triangle on it.
    assert (edge["x"], edge["y"]) == ([54.0], [300.0])
    assert edge["marker"]["symbol"] == ["triangle-right"]
    assert edge["cliponaxis"] is False
    assert edge["text"] == [
        "<b>Physics limit · H100</b><br>batch 0<br>beyond the axes: 200 tok/s/user, 300 tok/s/GPU"
    ]
    assert any(t is far for t in fig["data"])  # the line stays, for its legend entry


def test_ceilings_beyond_the_same_corner_get_markers_side_by_side_on_the_top_edge() -> None:
    results, params = analysed()
    far = [ceiling([400.0 * k, 300.0 * k], [9000.0 * k, 20000.0 * k]) for k in (1, 2, 3)]
    fig = pareto_figure(results, params, extra_traces=far)
    edges = [t for t in fig["data"] if t.get("meta") == "edge"]
    assert [e["marker"]["symbol"] for e in edges] == [["triangle-ne"]] * 3
    # The first at the corner (54, 2160); each next one 6 % of the x axis further left.
    assert [e["x"][0] for e in edges] == pytest.approx([54.0, 54.0 * 0.94, 54.0 * 0.88])
    assert [e["y"][0] for e in edges] == pytest.approx([2160.0] * 3)
    assert edges[2]["text"][0].endswith("beyond the axes: 1,200 tok/s/user, 27,000 tok/s/GPU")


def test_a_ceiling_crossing_the_plot_gets_no_edge_marker() -> None:
    results, params = analysed()
    near = ceiling([200.0, 45.0, 10.0], [100.0, 1500.0, 9000.0])
    fig = pareto_figure(results, params, extra_traces=[near])
    assert not [t for t in fig["data"] if t.get("meta") == "edge"]
    assert fig["layout"]["yaxis"]["range"] == pytest.approx([0.0, 2160.0])


def claim(name: str, xs: list[float], ys: list[float], mode: str) -> dict[str, Any]:
    trace = {"type": "scatter", "meta": "claim", "name": name, "legendgroup": f"claim-{name}"}
    trace.update(mode=mode, x=xs, y=ys, text=[f"<b>{name}</b>"] * len(xs))
    trace["marker" if mode == "markers" else "line"] = {"color": "#7F3C8D"}
    return trace


def test_claims_beyond_the_data_become_edge_triangles_with_their_true_values() -> None:
    results, params = analysed()
    claims = [
        claim("point", [3000.0], [5000.0], "markers"),
        claim("per user", [1000.0, 1000.0], [0.0, 9000.0], "lines"),
        claim("system", [0.0, 3000.0], [9000.0, 9000.0], "lines"),
        claim("inside", [30.0], [1000.0], "markers"),
    ]
    fig = pareto_figure(results, params, extra_traces=claims)
    shown = {t["name"]: t for t in fig["data"] if t.get("meta") == "claim"}
    assert set(shown) == {
        "point ▸ beyond the axis",
        "per user ▸ beyond the axis",
        "system ▸ beyond the axis",
        "inside",
    }
    point = shown["point ▸ beyond the axis"]
    assert (point["x"], point["y"], point["marker"]["symbol"]) == (
        [54.0],
        [2160.0],
        ["triangle-ne"],
    )
    assert point["text"] == [
        "<b>point</b><br><b>beyond the axis: 3,000 tok/s/user, 5,000 tok/s/GPU</b>"
    ]
    per_user = shown["per user ▸ beyond the axis"]
    assert (per_user["x"], per_user["y"]) == ([54.0], [pytest.approx(1080.0)])
    assert per_user["marker"]["symbol"] == ["triangle-right"]
    assert per_user["text"][0].endswith("beyond the axis: 1,000 tok/s/user</b>")
    system = shown["system ▸ beyond the axis"]
    assert (system["x"], system["y"]) == ([pytest.approx(27.0)], [2160.0])
    assert system["marker"]["symbol"] == ["triangle-up"]
    assert shown["inside"]["x"] == [30.0]
    assert fig["layout"]["xaxis"]["range"] == pytest.approx([0.0, 54.0])


def test_two_line_claims_on_one_edge_sit_apart() -> None:
    results, params = analysed()
    a = claim("a", [1000.0, 1000.0], [0.0, 1.0], "lines")
    b = claim("b", [2000.0, 2000.0], [0.0, 1.0], "lines")
    data = pareto_figure(results, params, extra_traces=[a, b])["data"]
    ys = [t["y"][0] for t in data if t.get("meta") == "claim"]
    assert ys == pytest.approx([1080.0, 1080.0 - 0.06 * 2160.0])  # moved down the edge


def test_the_claim_audit_chart_fits_the_claim_in_instead() -> None:
    results, params = analysed()
    far = claim("point", [3000.0], [5000.0], "markers")
    fig = pareto_figure(results, params, extra_traces=[far], limits_at_edge=False)
    assert fig["layout"]["xaxis"]["range"] == pytest.approx([0.0, 3000 * ranges.LINEAR_PAD])
    assert [t["x"] for t in fig["data"] if t.get("meta") == "claim"] == [[3000.0]]


def test_error_bars_widen_the_fitted_range() -> None:
    trace = {"x": [10.0, 20.0], "y": [100.0, 200.0], "error_y": {"array": [5.0, 50.0]}}
    box = ranges.fit_box([trace], log_x=False, log_y=False)
    assert box is not None
    assert (box.x1, box.y1) == pytest.approx((21.6, 270.0))


# --- empty charts --------------------------------------------------------------------------------


def test_an_empty_pareto_chart_says_why() -> None:
    fig = pareto_figure([], Params(slo=Slo()))
    assert (
        annotation(fig["layout"], "empty-reason")["text"] == "Nothing to draw: no series selected"
    )
    assert "range" not in fig["layout"]["xaxis"]


# --- the sweep page ------------------------------------------------------------------------------


def load_point(
    rate: float, ttft: float | None, tpot: float | None, e2el: float | None
) -> StoredPoint:
    return StoredPoint(
        0,
        0,
        0,
        request_rate=rate,
        ttft_p50_ms=ttft,
        tpot_p50_ms=tpot,
        e2el_p50_ms=e2el,
        e2el_p90_ms=None if e2el is None else e2el * 1.5,
        output_tok_s=100.0 * min(rate, 16.0),
    )


RATES = [
    load_point(1.0, 120.0, 18.0, 4000.0),
    load_point(2.0, 150.0, 20.0, 5000.0),
    load_point(8.0, 900.0, 35.0, 9000.0),
    load_point(math.inf, 4800.0, 38.0, 12000.0),
]


def test_ttft_and_tpot_get_their_own_axes_and_the_inf_rate_a_labelled_place() -> None:
    fig = sweep_charts.latency_figure(RATES)
    by_name = {t["name"]: t for t in fig["data"]}
    assert set(by_name) == {"TTFT p50 (left axis)", "TPOT p50 (right axis)"}
    ttft, tpot = by_name["TTFT p50 (left axis)"], by_name["TPOT p50 (right axis)"]
    assert (ttft["yaxis"], tpot["yaxis"]) == ("y", "y2")
    # ∞ is drawn a quarter of the largest finite rate beyond it: 8 × 1.25 = 10.
    assert ttft["x"] == [1.0, 2.0, 8.0, 10.0]
    assert tpot["y"] == [18.0, 20.0, 35.0, 38.0]
    layout = fig["layout"]
    assert layout["yaxis"]["title"]["text"] == "TTFT (ms)"
    assert layout["yaxis2"]["title"]["text"] == "TPOT (ms)"
    assert (layout["yaxis2"]["overlaying"], layout["yaxis2"]["side"]) == ("y", "right")
    inf = annotation(layout, "inf-load")
    assert (inf["x"], inf["text"]) == (10.0, "<b>∞</b>")
    [fence] = layout["shapes"]
    assert fence["x0"] == pytest.approx(10.0 / 1.125)


def test_e2el_is_in_seconds_once_it_reaches_10_000_ms() -> None:
    fig = sweep_charts.e2el_figure(RATES)
    assert fig["layout"]["yaxis"]["title"]["text"] == "E2EL (s)"
    p50 = next(t for t in fig["data"] if t["name"] == "E2EL p50")
    assert p50["y"] == [4.0, 5.0, 9.0, 12.0]
    assert [c[0] for c in p50["customdata"]] == ["4 s", "5 s", "9 s", "12 s"]
    short = sweep_charts.e2el_figure(RATES[:3])  # p90 9,000 × 1.5 = 13,500 ms: still seconds
    assert short["layout"]["yaxis"]["title"]["text"] == "E2EL (s)"
    shorter = sweep_charts.e2el_figure(RATES[:2])  # at most 7,500 ms
    assert shorter["layout"]["yaxis"]["title"]["text"] == "E2EL (ms)"
    assert next(t for t in shorter["data"] if t["name"] == "E2EL p50")["y"] == [4000.0, 5000.0]
    assert not [a for a in shorter["layout"]["annotations"] if a["name"] == "inf-load"]


def test_empty_sweep_charts_say_why() -> None:
    bare = [StoredPoint(0, 0, 0, concurrency=4)]
    latency = sweep_charts.latency_figure(bare)
    assert latency["data"] == []
    assert annotation(latency["layout"], "empty-reason")["text"] == (
        "Nothing to draw: no point has a p50 or p90 TTFT or TPOT"
    )
    e2el = sweep_charts.e2el_figure(bare)["layout"]
    assert (
        "no point has a p50 or p90 end-to-end latency" in annotation(e2el, "empty-reason")["text"]
    )
    throughput = sweep_charts.throughput_figure(bare, 8)["layout"]
    assert annotation(throughput, "empty-reason")["text"] == (
        "Nothing to draw: no point has an output or total throughput"
    )


def test_the_sweep_page_draws_the_inf_rate_point_and_notes_it(client: TestClient) -> None:
    # vLLM's "inf" run was tagged and dated apart from the 1–8 req/s runs: a sweep of its own.
    files = [(p.name, p.read_bytes()) for p in STELLALEE if "infqps" in p.name]
    response = post_files(client, *files, hardware="RTX4090", num_gpus=1)
    assert response.status_code == 201, response.text
    [created] = response.json()["sweeps"]
    page = BeautifulSoup(client.get(f"/sweeps/{created['id']}").text, "html.parser")
    latency = json.loads(page.select_one("#latency-figure").string)
    ttft = next(t for t in latency["data"] if t["name"].startswith("TTFT p50"))
    assert ttft["x"] == [1.0]  # no finite load to go beyond: ∞ is drawn at 1, labelled ∞
    assert ttft["y"] == [pytest.approx(4818.1159425000715)]  # the file's median TTFT
    assert annotation(latency["layout"], "inf-load")["x"] == 1.0
    e2el = json.loads(page.select_one("#e2el-figure").string)
    assert e2el["layout"]["yaxis"]["title"]["text"] == "E2EL (ms)"  # p50 7,243 ms; no p90
    note = page.select_one("#inf-load-note").text
    assert "request rate ∞ (all requests sent at once) is drawn at the right, marked ∞" in note


def test_empty_compare_and_history_charts_say_why() -> None:
    ratio = charts_compare.throughput_ratio_figure([], Slo())
    assert annotation(ratio["layout"], "empty-reason")["text"] == (
        "Nothing to draw: select two or more systems to compare"
    )
    history = charts_history.history_figure([], {}, cost=False)
    assert annotation(history["layout"], "empty-reason")["text"] == (
        "Nothing to draw: no series selected"
    )


def test_limits_beyond_the_axes_are_noted_beneath_the_chart() -> None:
    results, params = analysed()
    far = [ceiling([400.0, 300.0], [9000.0, 20000.0]), claim("c", [3000.0], [10.0], "markers")]
    assert pareto_figure(results, params, extra_traces=far)["notes"] == [
        "2 limits or claims lie beyond the measured range: each is a triangle on the axis edge "
        "pointing its way (hover it for the value); the axes keep to the measurements."
    ]
    assert pareto_figure(results, params)["notes"] == []
