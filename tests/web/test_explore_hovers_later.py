"""A big Explore chart sends its hover numbers after the page (app.charts.deferred): the page
keeps positions and templates, /explore/hovers gives the columns under the page's version
tokens, and joined back they are exactly what an inline page carries."""

from __future__ import annotations

import json
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

QUERY = "/?ttft_ms=500&tpot_ms=40"


def _figure(client: TestClient, url: str = QUERY) -> dict[str, Any]:
    page = BeautifulSoup(client.get(url).text, "html.parser")
    figure: dict[str, Any] = json.loads(page.select_one("#pareto-figure").string)
    return figure


def test_a_chart_over_the_size_sends_its_hovers_after_the_page_and_they_join_back_exactly(
    make_client: Any, seeded: None
) -> None:
    inline = _figure(make_client())
    later_client = make_client(hovers_inline_max_points=1)
    later = _figure(later_client)
    assert "hover_src" not in inline and inline["data"]

    with_columns = [k for k, t in enumerate(inline["data"]) if "hover" in (t.get("meta") or {})]
    assert len(with_columns) >= 2
    assert later["hover_src"] == "/explore/hovers?ttft_ms=500&tpot_ms=40"
    for k in with_columns:  # positions and templates stay in the page, the columns do not
        trace = later["data"][k]
        assert "hover" not in trace["meta"] and trace["meta"]["hover_later"] is True
        assert trace["hoverinfo"] == "none"
        assert (trace["x"], trace["y"]) == (inline["data"][k]["x"], inline["data"][k]["y"])
        assert trace["hovertemplate"] == inline["data"][k]["hovertemplate"]

    answer = later_client.get(later["hover_src"], headers={"Accept-Encoding": "gzip"})
    assert answer.status_code == 200
    assert answer.headers["content-encoding"] == "gzip"  # kept beside the page, zipped once
    body = answer.json()
    assert body["version"] == later["hover_version"] and body["version"]
    assert body["traces"] == {str(k): inline["data"][k]["meta"]["hover"] for k in with_columns}


def test_hovers_asked_for_without_the_page_are_rendered_for_that_query(
    make_client: Any, seeded: None
) -> None:
    inline = _figure(make_client(), "/?ttft_ms=400")
    client = make_client(hovers_inline_max_points=1)
    body = client.get("/explore/hovers?ttft_ms=400").json()  # nothing kept: rendered for it
    assert body["traces"]
    for k, columns in body["traces"].items():
        assert inline["data"][int(k)]["meta"]["hover"] == columns


def test_a_sweep_stored_after_the_page_changes_the_hovers_version_the_page_expects(
    make_client: Any, seeded: None
) -> None:
    client = make_client(hovers_inline_max_points=1)
    figure = _figure(client)
    csv = (
        b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,ttft_p90_ms,output_tok_s\n"
        b"late,H100,8,llama-3.1-70b,1,10,100,800\n"
    )
    stored = client.post("/api/sweeps", files={"files": ("late.csv", csv, "text/csv")})
    assert stored.status_code in (200, 201), stored.text
    body = client.get(figure["hover_src"]).json()
    # The script joins only an answer of the page's own version: this one it refuses.
    assert body["version"] != figure["hover_version"]
