"""Points carry their formatted numbers and one template per group; the hover reads as the
per-point text would, and a latency a point did not measure is left out, never shown as 0."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.charts.hover import hover_fields, hover_header, hover_template, point_hover
from app.charts.pareto import pareto_figure
from app.charts.shown import cell, load_cell, number_cell
from app.domain.numbers import fmt_load, fmt_number
from app.domain.verdict import Slo
from app.services import analysis
from app.services.analysis import Params
from app.store.models import Sweep
from tests.helpers import battery, hover_texts, upload_id, with_hover
from tests.oracles import hover_values


def _fill(template: str, row: list[str]) -> str:
    """Plotly's substitution of %{customdata[i]} for one point."""
    return re.sub(r"%\{customdata\[(\d+)\]\}", lambda m: row[int(m.group(1))], template)


def _traces(client: TestClient) -> list[dict[str, Any]]:
    page = BeautifulSoup(client.get("/").text, "html.parser")
    return json.loads(page.select_one("#pareto-figure").string)["data"]


def test_frontier_and_dominated_points_hover_from_numbers_not_per_point_text(
    client: TestClient, seeded: None
) -> None:
    traces = [t for t in _traces(client) if t["mode"] in ("lines+markers", "markers")]
    dominated = [t for t in traces if t["name"].endswith("(dominated)")]
    frontiers = [t for t in traces if t["mode"] == "lines+markers"]
    assert dominated and frontiers, "the demo data has both"
    for trace in dominated + frontiers:
        assert "text" not in trace and "customdata" not in trace
        columns = trace["meta"]["hover"]
        assert all(len(column) == len(trace["x"]) for column in columns)
        # A missing value has no slot, so it cannot print as 0; no number goes as text.
        assert all(isinstance(v, int | float) for column in columns for v in column)
        for shown, row in zip(hover_texts(trace), with_hover(trace)["customdata"], strict=True):
            assert "%{" not in shown
            assert re.search(r"concurrency \d+(\.\d+)?<br>", shown)
            assert f"{row[1]} tok/s/user · {row[2]} tok/s/GPU" in shown
            dominated_note = "<i>dominated</i><extra></extra>"
            assert shown.endswith(dominated_note) == (trace in dominated)


RATES = (
    b"sweep,hardware,num_gpus,model,request_rate,tpot_p50_ms,ttft_p90_ms,output_tok_s\n"
    b"rates,H100,8,llama-3.1-70b,0.5,10.25,100.5,812.5\n"
    b"rates,H100,8,llama-3.1-70b,1.125,12.125,150,1600.25\n"
    b"rates,H100,8,llama-3.1-70b,1000.5,40,13320.79,24001\n"
    b"rates,H100,8,llama-3.1-70b,4,20,0.000123,2400\n"
)


def test_every_hover_reads_what_the_server_formatter_writes_for_its_point(
    client: TestClient, session: Session, seeded: None
) -> None:
    upload_id(client, ("rates.csv", RATES))  # request rates (the unit is the template's), ties
    session.commit()
    sweep_ids = [s.id for s in session.scalars(select(Sweep).order_by(Sweep.id))]
    params = Params(Slo(ttft_ms=500, tpot_ms=40))
    results, _ = analysis.run(session, sweep_ids, params, [], None)
    figure = pareto_figure(results, params)
    checked = 0
    for result in results:
        header = hover_header(result) + "<br>"
        shown = [
            text.removeprefix(header).removesuffix("<extra></extra>")
            for t in figure["data"]
            if (t.get("meta") or {}).get("sweep") == result.meta.id and "hover" in t["meta"]
            for text in hover_texts(t)
        ]
        expected = [point_hover(result, k, params) for k in result.frontier]
        expected += [
            point_hover(result, k, params) + "<br><i>dominated</i>" for k in result.dominated
        ]
        assert sorted(shown) == sorted(expected)
        checked += len(shown)
    assert checked >= 8
    rates = next(r for r in results if r.meta.name == "rates")
    assert sorted(point_hover(rates, k, params).split("<br>")[0] for k in range(4)) == [
        "rate 0.5 req/s",
        "rate 1,000.5 req/s",
        "rate 1.125 req/s",
        "rate 4 req/s",
    ]


def test_a_dominated_point_reads_as_it_would_on_the_frontier(
    session: Session, seeded: None
) -> None:
    # The same points rendered both ways: per-point text and one template over customdata.
    sweep_ids = [s.id for s in session.scalars(select(Sweep).order_by(Sweep.id))]
    params = Params(Slo(ttft_ms=500, tpot_ms=40))
    results, _ = analysis.run(session, sweep_ids, params, [], None)
    checked = 0
    for result in results:
        for k in result.dominated:
            fields = hover_fields(result, k)
            shown = _fill(hover_template(fields, params), hover_values(result, k, fields))
            assert shown == point_hover(result, k, params)
            checked += 1
    assert checked >= 4


def test_hover_numbers_sent_without_their_text_are_those_the_text_shows() -> None:
    values: list[float | None] = [*battery(), 99.95, 99.949, 0.0009995, 5e-324, None, math.inf]
    values += [float(n) for n in range(-5, 300)] + [n / 8 for n in range(-50, 900)]
    for v in values:
        for fast, slow in (
            (number_cell(v), cell(fmt_number(v))),
            (load_cell(v), cell(fmt_load(v))),
        ):
            assert (fast, type(fast)) == (slow, type(slow)), v
    assert number_cell(13320.79) == 13321 and number_cell(12.25) == 12.2
    assert number_cell(0.000123) == 0.000123 and number_cell(None) == "–"
    assert load_cell(2048.0) == 2048 and load_cell(1.125) == 1.125
