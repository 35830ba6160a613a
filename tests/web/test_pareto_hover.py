"""Points carry their formatted numbers and one template per group; the hover reads as the
per-point text would, and a latency a point did not measure is left out, never shown as 0."""

from __future__ import annotations

import json
import re
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.charts.hover import hover_fields, hover_template, hover_values, point_hover
from app.domain.numbers import fmt_number
from app.domain.verdict import Slo
from app.services import analysis
from app.services.analysis import Params
from app.store.models import Sweep


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
        assert "text" not in trace
        assert len(trace["customdata"]) == len(trace["x"])
        for x, y, row in zip(trace["x"], trace["y"], trace["customdata"], strict=True):
            assert None not in row  # a missing value has no slot, so it cannot print as 0
            shown = _fill(trace["hovertemplate"], row)
            assert "%{" not in shown
            assert re.search(r"concurrency \d+(\.\d+)?<br>", shown)
            assert f"{fmt_number(x)} tok/s/user · {fmt_number(y)} tok/s/GPU" in shown
            dominated_note = "<i>dominated</i><extra></extra>"
            assert shown.endswith(dominated_note) == (trace in dominated)


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
