"""Charts that read true (issue 32 §2): colours with contrast, axes fitted to the bulk of the
series, and Compare's SLO marker where its ratio is read. Exact values from hand-made sweeps."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.charts import outliers
from app.charts.history import REGRESSION_COLOUR
from app.charts.pareto import UNKNOWN_MARKER, pareto_figure
from app.charts.roofline import CLAIM_COLOUR
from app.charts.slo_floor import FLOOR_COLOUR
from app.charts.style import PALETTE, series_style
from app.domain.numbers import fmt_number
from app.domain.verdict import Slo
from app.services.analysis import Params, analyse
from tests.factories import post_files
from tests.web.test_charts import sweep

# WCAG 2 for graphics: a line or marker keeps 3:1 against the white plot.
MIN_CONTRAST = 3.0


def contrast_on_white(hex_colour: str) -> float:
    """WCAG 2 contrast ratio of an #rrggbb (or #rgb) colour against white."""
    digits = hex_colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[k : k + 2], 16) / 255 for k in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 1.05 / (luminance + 0.05)


def test_every_series_colour_keeps_a_3_to_1_contrast_on_white() -> None:
    assert contrast_on_white("#000000") == pytest.approx(21.0)
    assert contrast_on_white("#F0E442") == pytest.approx(1.32, abs=0.01)  # Okabe–Ito's yellow
    for colour in (
        *PALETTE,
        CLAIM_COLOUR,
        FLOOR_COLOUR,
        REGRESSION_COLOUR,
        UNKNOWN_MARKER["color"],
    ):
        assert contrast_on_white(colour) >= MIN_CONTRAST, colour


def test_20_series_and_up_to_48_each_look_different() -> None:
    looks = [series_style(i) for i in range(48)]
    assert len(set(looks)) == 48
    assert len({(s.colour, s.symbol, s.dash) for s in looks[:20]}) == 20


def with_mock(n_real: int, factor: float = 22.0) -> tuple[list, Params]:
    """`n_real` sweeps at x 12.5 … 50 tok/s/user and one mock server `factor` times faster."""
    params = Params(slo=Slo())
    mock = sweep(99)
    mock.meta = replace(mock.meta, name="mock server")
    for row in mock.rows:
        row["tpot_p50_ms"] /= factor
    return analyse([*(sweep(i + 1) for i in range(n_real)), mock], params, []), params


def test_a_mock_server_far_out_leaves_the_axes_to_the_real_curves() -> None:
    results, params = with_mock(5)
    fig = pareto_figure(results, params)
    layout = fig["layout"]
    # Real curves reach 50 tok/s/user: the axis ends there (+8 %), not at the mock's 1,100.
    assert layout["xaxis"]["range"] == pytest.approx([0.0, 54.0])
    [edge] = [t for t in fig["data"] if isinstance(t.get("meta"), dict) and t["meta"].get("edge")]
    assert edge["meta"] == {"sweep": 99, "edge": "outlier"}
    assert edge["x"] == [54.0] and edge["marker"]["symbol"] == ["triangle-right"]
    assert "4 points beyond the axes:<br>275–1,100 tok/s/user" in edge["text"][0]
    [menu] = layout["updatemenus"]
    fit, show = menu["buttons"]
    assert (fit["label"], show["label"]) == ("Fit to the bulk", "Show all points")
    index = fig["data"].index(edge)
    assert show["args"][0] == {"visible": False} and show["args"][2] == [index]
    assert show["args"][1]["xaxis.range"] == pytest.approx([0.0, 1100 * 1.08])
    assert fit["args"][1]["xaxis.range"] == pytest.approx([0.0, 54.0])
    assert "Show all points" in fig["notes"][-1]


def test_on_log_axes_the_ticks_cover_both_views_of_an_outlier() -> None:
    results, params = with_mock(5)
    x = pareto_figure(results, params, log_x=True)["layout"]["xaxis"]
    assert x["ticktext"] == ["10", "20", "50", "100", "200", "500", "1,000"]


def test_no_series_is_an_outlier_among_two_or_when_it_is_not_far() -> None:
    two, params = with_mock(1)
    assert "updatemenus" not in pareto_figure(two, params)["layout"]
    near, params = with_mock(5, factor=2.5)
    assert "updatemenus" not in pareto_figure(near, params)["layout"]
    assert outliers.bulk_top([100, 30, 20, 10]) == 30
    assert outliers.bulk_top([100, 90, 20]) is None


# A at x 150 … 105 tok/s/user, B at 140 … 110: at p50 TPOT ≤ 50 ms (a floor of 20 tok/s/user)
# every point passes, so each goodput is its heaviest load: A's at 105.3, B's at 110.
SLO_PAIR = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    b"A,H100,1,1,6.6667,150\nA,H100,1,4,8,480\nA,H100,1,16,9.5,1600\n"
    b"B,H100,1,1,7.1429,140\nB,H100,1,4,8.3333,400\nB,H100,1,16,9.0909,1200\n"
)


def test_compares_slo_marker_sits_where_its_ratio_is_read_not_at_the_floor(
    client: TestClient,
) -> None:
    ids = [s["id"] for s in post_files(client, ("pair.csv", SLO_PAIR)).json()["sweeps"]]
    query = [("picked", 1), *(("sweep", i) for i in ids), ("preset", "custom")]
    query += [("tpot_ms", 50), ("percentile", "p50")]
    page = BeautifulSoup(client.get("/compare", params=query).text, "html.parser")
    figure = json.loads(page.select_one("script#ratio-figure").string)
    curve = figure["data"][0]
    assert min(curve["x"]) >= 105
    [marks] = [t for t in figure["data"] if t.get("mode") == "markers"]
    k = next(i for i, t in enumerate(marks["text"]) if t.startswith("goodput at your SLO"))
    # Between A's operating point (105.3) and B's (110), spanning both; the ratio is the
    # first ticked system's goodput over the other's (1,600 and 1,200 tok/s/GPU).
    a, b = curve["name"].split(" ÷ ")
    at = {"A": 1000 / 9.5, "B": 1000 / 9.0909}
    goodput = {"A": 1600.0, "B": 1200.0}
    assert marks["x"][k] == pytest.approx((at["A"] + at["B"]) / 2, rel=1e-4)
    assert marks["x"][k] - marks["error_x"]["arrayminus"][k] == pytest.approx(at["A"])
    assert marks["x"][k] + marks["error_x"]["array"][k] == pytest.approx(at["B"])
    assert marks["y"][k] == pytest.approx(goodput[a] / goodput[b])
    where = f"{a} at {fmt_number(at[a])} tok/s/user ÷ {b} at {fmt_number(at[b])} tok/s/user"
    assert f"{where}: {fmt_number(goodput[a] / goodput[b])}×" in marks["text"][k]
    # The floor (20 tok/s/user) lies far left of every ratio: no line stretches the axis to it.
    assert figure["layout"]["shapes"][1:] == []
