"""Every figure spec the app emits is a valid Plotly figure: each page's (and each JSON twin's)
spec goes through plotly.graph_objects.Figure, which refuses an unknown or ill-typed property.

Real benchmark files (vLLM runs, an LLMPerf pair with its per-request samples) are uploaded into
a seeded database, so every chart has real points, samples, prices and claims to draw; and every
page that draws charts loads Plotly once, from base.html, through its hashed, long-cached URL.
"""

from __future__ import annotations

import json
from typing import Any

import plotly.graph_objects as go
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.http.static import IMMUTABLE, PLOTLY_JS, static_url
from app.services.seed import seed
from app.store.models import Sweep, VendorClaim
from tests.conftest import FIXTURES
from tests.helpers import upload_ids

SLO = {"picked": 1, "preset": "custom", "ttft_ms": 2000, "tpot_ms": 50, "usd_per_gpu_hour": 2.5}
# Keys a spec may carry beside what Plotly draws: charts.js reads `config`, pages show the notes.
NOT_DRAWN = {"config", "notes", "note"}
# Every figure the pages embed as <script type="application/json" id="...-figure">.
PAGE_FIGURES = {
    "pareto-figure",  # Explore, and its offline report
    "sensitivity-figure",  # Explore's SLO sensitivity, Compare's
    "ratio-figure",  # Compare
    "frontier-figure",  # Compare's frontiers (with bands=1 their bands and the stretches)
    "cost-figure",
    "cost-sensitivity-figure",
    "plan-figure",  # Plan
    "history-figure",  # History
    "history-cost-figure",
    "claim-figure",  # a claim's roofline audit
    "latency-figure",  # a sweep's page
    "e2el-figure",
    "throughput-figure",
    "ttft-cdf-figure",  # from per-request samples
    "tpot-cdf-figure",
    "context-figure",  # TTFT against prompt length, from per-request samples (issue 50)
}


def real_sweeps(client: TestClient) -> tuple[int, int]:
    """The four fixed-rate vLLM runs (one sweep on an H100) and the LLMPerf anyscale pair with
    its per-request samples (on four A100s)."""
    vllm = sorted((FIXTURES / "vllm").glob("stellalee_*.0qps-*.json"))
    [a] = upload_ids(client, *((f.name, f.read_bytes()) for f in vllm), hardware="H100", num_gpus=1)
    llmperf = [FIXTURES / "llmperf" / n for n in ("summary_anyscale_70b.json",)]
    llmperf.append(FIXTURES / "llmperf" / "individual_anyscale_70b.json")
    [b] = upload_ids(
        client, *((f.name, f.read_bytes()) for f in llmperf), hardware="A100", num_gpus=4
    )
    return a, b


def pages(client: TestClient, session: Session) -> dict[str, str]:
    """Every page that draws a chart, by what it is, as its HTML."""
    seed(session)
    session.commit()
    a, b = real_sweeps(client)
    seeded = session.scalars(select(Sweep.id).order_by(Sweep.id)).all()
    claims = session.scalars(select(VendorClaim.id).order_by(VendorClaim.id)).all()
    both = {**SLO, "sweep": [a, b]}
    asked = {
        "explore (fresh visit)": client.get("/"),
        "explore": client.get("/", params={**both, "sensitivity": "ttft"}),
        "explore report": client.get("/report", params=both),
        "compare (fresh visit)": client.get("/compare"),
        "compare": client.get("/compare", params=both),
        "compare report": client.get("/report", params={**both, "view": "compare"}),
        "plan": client.get("/plan", params={**both, "output_tok_s": 5000}),
        "history": client.get("/history", params=SLO),
        "history of H100": client.get("/history", params={**SLO, "hardware": "H100"}),
        **{f"sweep {i}": client.get(f"/sweeps/{i}") for i in (a, b, seeded[0])},
        **{f"claim {i}": client.get(f"/claims/{i}") for i in claims},
    }
    for name, response in asked.items():
        assert response.status_code == 200, f"{name}: {response.status_code} {response.text}"
    return {name: response.text for name, response in asked.items()}


def embedded_figures(html: str) -> dict[str, dict[str, Any]]:
    page = BeautifulSoup(html, "html.parser")
    return {
        str(tag["id"]): json.loads(tag.string or "")
        for tag in page.select('script[type="application/json"]')
        if str(tag.get("id", "")).endswith("figure")
    }


def invalid(spec: dict[str, Any]) -> str | None:
    """Why Plotly refuses this spec, or None."""
    extra = set(spec) - {"data", "layout"} - NOT_DRAWN
    if extra:
        return f"keys Plotly does not know: {sorted(extra)}"
    try:
        go.Figure({"data": spec["data"], "layout": spec.get("layout", {})})
    except (ValueError, TypeError) as error:
        return str(error).splitlines()[0] + " …"
    return None


def test_plotly_refuses_what_the_check_is_meant_to_catch() -> None:
    assert invalid({"data": [{"type": "scatter", "x": [1], "y": [2]}], "layout": {}}) is None
    assert invalid({"data": [{"type": "scatter", "x": [1], "markr": {}}]}) is not None
    assert invalid({"data": [], "layout": {"xaxis": {"type": "logarithmic"}}}) is not None
    assert invalid({"data": [], "layout": {}, "extra": 1}) == "keys Plotly does not know: ['extra']"


def test_every_figure_every_page_and_json_twin_emits_is_a_valid_plotly_figure(
    client: TestClient, session: Session
) -> None:
    html = pages(client, session)
    drawn: set[str] = set()  # figures with at least one trace on some page
    refused = []
    for name, text in html.items():
        for figure_id, spec in embedded_figures(text).items():
            if spec.get("data"):
                drawn.add(figure_id)
            why = invalid(spec)
            if why:
                refused.append(f"{name} #{figure_id}: {why}")
    assert drawn == PAGE_FIGURES
    # The JSON twins that carry a figure: the plan's cost chart and a claim's placement.
    sweeps = session.scalars(select(Sweep.id).order_by(Sweep.id.desc()).limit(2)).all()
    plan = client.get("/api/plan", params={**SLO, "sweep": sweeps, "output_tok_s": 5000})
    claim = session.scalars(select(VendorClaim.id)).first()
    audit = client.get(f"/api/claims/{claim}/audit")
    for name, response in (("/api/plan", plan), ("claim audit JSON", audit)):
        assert response.status_code == 200, f"{name}: {response.text}"
        why = invalid(response.json()["figure"])
        if why:
            refused.append(f"{name}: {why}")
    assert refused == []


def test_every_page_that_draws_loads_plotly_once_by_its_hashed_long_cached_url(
    client: TestClient, session: Session
) -> None:
    hashed = static_url(PLOTLY_JS)
    for name, text in pages(client, session).items():
        page = BeautifulSoup(text, "html.parser")
        sources = [s["src"] for s in page.select("script[src]") if "plotly" in s["src"]]
        if name.endswith("report"):  # the offline report inlines Plotly: it opens with no network
            assert sources == [], name
            continue
        assert sources == [hashed], name
    answer = client.get(hashed)
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == IMMUTABLE
    assert client.get("/static/" + PLOTLY_JS).headers["cache-control"] == "no-cache"
