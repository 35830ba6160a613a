"""Dominated points carry numbers and one template per group; their hover reads as a frontier
point's does, and a latency a point did not measure is left out, never shown as 0."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.charts.hover import hover_fields, hover_template, hover_values, point_hover
from app.domain.verdict import Slo
from app.services import analysis
from app.services.analysis import Params
from app.services.seed import seed
from app.store.models import Sweep


@pytest.fixture
def seeded(session: Session) -> None:
    seed(session)
    session.commit()


def _d3(value: float, spec: str) -> str:
    """The two d3-format specs the templates use, as Plotly applies them."""
    if spec == ",.1f":
        return f"{value:,.1f}"
    assert spec == "~g", spec
    return f"{value:g}"


def _fill(template: str, x: float, y: float, row: list[float]) -> str:
    """Plotly's substitution of %{x}, %{y} and %{customdata[i]} for one point."""

    def one(match: re.Match[str]) -> str:
        name, spec = match.group(1), match.group(2)
        value = {"x": x, "y": y}.get(name)
        if value is None:
            value = row[int(re.fullmatch(r"customdata\[(\d+)\]", name).group(1))]  # type: ignore[union-attr]
        return _d3(value, spec)

    return re.sub(r"%\{([^}:]+):([^}]+)\}", one, template)


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
            shown = _fill(trace["hovertemplate"], x, y, row)
            assert "%{" not in shown.replace("<extra></extra>", "")
            assert re.search(r"concurrency \d+(\.\d+)?<br>", shown)
            assert f"{x:,.1f} tok/s/user · {y:,.1f} tok/s/GPU" in shown
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
            shown = _fill(
                hover_template(fields, params),
                result.xs[k] or 0,
                result.ys[k] or 0,
                hover_values(result, k, fields),
            )
            assert shown == point_hover(result, k, params)
            checked += 1
    assert checked >= 4
