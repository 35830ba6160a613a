"""Every chart's numbers go through the tables' formatter (issue 32 §2): tick labels on log axes
and every number in hover text, read from the specs the pages emit on real fixture uploads.

A log axis carries explicit ticks whose text is `fmt_number` (or `fmt_usd`) of its value; Plotly
would print "5" at 50. A hover never asks Plotly to format a number (no `%{y:,.1f}`): its numbers
reach Plotly as strings (a Pareto chart's written by charts.js from the numbers the server chose,
app.charts.shown), and each string is what one of the app's formatters writes for its value.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.charts import ticks
from app.domain.numbers import fmt_load, fmt_number, fmt_percent, fmt_usd
from app.services.seed import seed
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.helpers import with_hover

VLLM = sorted((FIXTURES / "vllm").glob("stellalee_openai-*qps-*.json"))
SGLANG = FIXTURES / "sglang" / "datacrunch_llama_3_3_70b_online_output.jsonl"
GUIDELLM = FIXTURES / "guidellm" / "llm-d-benchmark_guidellm_report_v2.json"
PLACEHOLDER = re.compile(r"%\{([^}]*)\}")
# A number as the formatters write it, with what may come before (a $) and after (a unit).
FORMATTED = re.compile(r"^(?P<usd>\$?)(?P<num>-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?)(?P<rest>.*)$")
# Numbers inside free hover text: not part of a word, a date, a version or an ISL/OSL pair.
TOKEN = re.compile(r"(?<![\w.,/:-])\$?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?(?![\w.:/-]|,\d)")


def stored_id(client: TestClient, paths: list[Path], **fields: Any) -> int:
    response = post_files(client, *[(p.name, p.read_bytes()) for p in paths], **fields)
    assert response.status_code == 201, response.text
    return int(response.json()["sweeps"][0]["id"])


@pytest.fixture
def chart_site(client: TestClient, session: Session) -> dict[str, Any]:
    """The seed (demo sweeps, claims, prices) plus three real tool outputs."""
    seed(session)
    session.commit()
    ids = [
        stored_id(client, VLLM, sweep="vLLM Qwen 7B rate sweep", hardware="H100", num_gpus=1),
        stored_id(client, [SGLANG], sweep="SGLang Llama 70B online", hardware="H200", num_gpus=8),
        stored_id(client, [GUIDELLM], sweep="llm-d guidellm mock", hardware="H100", num_gpus=2),
    ]
    claims = client.get("/api/claims").json()
    claim_ids = [c["id"] for c in (claims["claims"] if isinstance(claims, dict) else claims)]
    return {"ids": ids, "claims": claim_ids}


def figures(client: TestClient, url: str) -> dict[str, dict[str, Any]]:
    response = client.get(url)
    assert response.status_code == 200, (url, response.text[:500])
    soup = BeautifulSoup(response.text, "html.parser")
    found = {}
    for script in soup.select('script[type="application/json"]'):
        spec = json.loads(script.string or "null")
        if isinstance(spec, dict) and "data" in spec and "layout" in spec:
            found[str(script["id"])] = spec
    return found


def formatted_as_the_app_writes(text: str) -> bool:
    """Whether `text` (one value, maybe with a unit) is exactly what a formatter writes."""
    if text in ("–", "∞", "unknown") or text.startswith(("∞ ", "$∞")):
        return True
    match = FORMATTED.match(text)
    if match is None:
        return False
    value = float(match["num"].replace(",", ""))
    rest = match["rest"]
    if match["usd"]:
        return fmt_usd(value, rest) == text
    unit = rest.strip() or None
    if rest and not rest.startswith(" "):
        return False
    candidates = {fmt_number(value, unit), fmt_load(value, unit)}
    if value == int(value):
        candidates.add(fmt_number(int(value), unit))
    if unit == "%":
        candidates.add(fmt_percent(value / 100))
    return text in candidates


def numbers_in(text: str) -> list[str]:
    """Numeric tokens of hover text, leaving out names (bold: a sweep's, a claim's, a limit's)."""
    plain = re.sub(r"<[^>]+>", " ", re.sub(r"<b>.*?</b>", " ", text))
    return TOKEN.findall(plain)


def axes(layout: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in layout.items() if re.fullmatch(r"[xy]axis\d*", k)}


def check_ticks(name: str, layout: dict[str, Any]) -> int:
    """Every log axis has explicit ticks, and every explicit tick reads formatter(value)."""
    checked = 0
    for key, axis in axes(layout).items():
        if axis.get("type") == "log" and axis.get("visible", True):
            assert axis.get("tickmode") == "array", (name, key, "a log axis without ticktext")
        values, texts = axis.get("tickvals"), axis.get("ticktext")
        if values is None:
            assert "tickformat" not in axis, (name, key)  # Plotly's ticks: charts.js formats
            continue
        expect = [
            ticks.money(v) if t.startswith("$") else ticks.number(v)
            for v, t in zip(values, texts, strict=True)
        ]
        assert texts == expect, (name, key)
        assert all(
            fmt_number(v) == t or fmt_usd(v) == t for v, t in zip(values, texts, strict=True)
        )
        checked += len(values)
    return checked


def trace_axis_type(layout: dict[str, Any], trace: dict[str, Any], letter: str) -> str:
    ref = str(trace.get(f"{letter}axis") or letter)
    key = f"{letter}axis{ref[1:]}"
    return str((layout.get(key) or {}).get("type") or "linear")


def check_hover(name: str, fig: dict[str, Any]) -> int:
    """No hover asks Plotly to format a number; every formatted string reads as the app writes."""
    checked = 0
    layout = fig["layout"]
    for trace in fig["data"]:
        label = (name, trace.get("name"))
        if trace.get("hoverinfo") in ("skip", "none"):
            continue
        template = trace.get("hovertemplate")
        if template is None:
            assert trace.get("hoverinfo") == "text", (*label, "Plotly's own hover numbers")
        else:
            for slot in PLACEHOLDER.findall(template):
                if slot in ("x", "y"):  # a raw axis value: only a date may show that way
                    assert trace_axis_type(layout, trace, slot) == "date", (*label, slot)
                    continue
                assert re.fullmatch(r"customdata(\[\d+\])?|text", slot), (*label, slot)
            for token in numbers_in(PLACEHOLDER.sub(" ", template)):
                assert formatted_as_the_app_writes(token), (*label, token, template)
        # Numbers sent as meta.hover columns are written by charts.js (app.charts.shown): the
        # texts it writes must read as the app writes too.
        drawn = with_hover(trace)
        custom = drawn.get("customdata") or []
        for item in custom:
            for value in item if isinstance(item, list) else [item]:
                assert isinstance(value, str), (*label, "customdata must be formatted text")
                assert formatted_as_the_app_writes(value), (*label, value)
                checked += 1
        texts = drawn.get("text") or []
        for text in [texts] if isinstance(texts, str) else texts:
            for token in numbers_in(str(text)):
                assert formatted_as_the_app_writes(token), (*label, token, text)
                checked += 1
    return checked


def check_page(client: TestClient, url: str, expect: set[str]) -> tuple[int, int, set[str]]:
    found = figures(client, url)
    assert expect <= set(found), (url, set(found))
    tick_count = hover_count = 0
    for name, fig in found.items():
        tick_count += check_ticks(f"{url} {name}", fig["layout"])
        hover_count += check_hover(f"{url} {name}", fig)
    return tick_count, hover_count, set(found)


def qs_of(ids: list[int], **extra: Any) -> str:
    parts = ["picked=1", *(f"sweep={i}" for i in ids), *(f"{k}={v}" for k, v in extra.items())]
    return "&".join(parts)


def test_every_chart_labels_its_ticks_and_hovers_with_the_tables_formatter(
    client: TestClient, chart_site: dict[str, Any]
) -> None:
    ids = chart_site["ids"]
    demo = [s["id"] for s in client.get("/api/sweeps?per_page=100").json()["sweeps"]][:4]
    every = ids + [i for i in demo if i not in ids]
    pages = {
        f"/?{qs_of(every, logx=1, logy=1, usd_per_gpu_hour=2)}": {"pareto-figure"},
        f"/?{qs_of(every, usd_per_gpu_hour=2)}": {"pareto-figure", "sensitivity-figure"},
        f"/plan?{qs_of(every, demand=50, demand_unit='requests_per_s', usd_per_gpu_hour=2)}": {
            "plan-figure"
        },
        f"/compare?{qs_of(every[:3], usd_per_gpu_hour=2)}": {"ratio-figure", "cost-figure"},
        f"/history?{qs_of(every)}": {"history-figure"},
        f"/report?{qs_of(every, logx=1, usd_per_gpu_hour=2)}": {"pareto-figure"},
        f"/report?view=compare&{qs_of(every[:3], usd_per_gpu_hour=2)}": {"ratio-figure"},
    }
    for sweep in ids:
        pages[f"/sweeps/{sweep}"] = {"latency-figure", "throughput-figure"}
    for claim in chart_site["claims"]:
        pages[f"/claims/{claim}"] = set()  # a claim with no comparable sweep has no chart
    tick_total = hover_total = 0
    drawn: list[str] = []
    for url, expect in pages.items():
        t, h, found = check_page(client, url, expect)
        tick_total += t
        hover_total += h
        drawn += sorted(found)
    assert drawn.count("claim-figure") >= 1
    # Log axes were labelled (Explore log–log, Plan, a claim far out) and hovers were read.
    assert tick_total >= 20 and hover_total >= 200


def test_plans_ticks_read_50_at_a_demand_of_50_and_its_costs_in_dollars(
    client: TestClient, chart_site: dict[str, Any]
) -> None:
    demand = {"demand": 50, "demand_unit": "requests_per_s", "usd_per_gpu_hour": 2}
    url = f"/plan?{qs_of(chart_site['ids'], **demand)}"
    layout = figures(client, url)["plan-figure"]["layout"]
    x = layout["xaxis"]
    assert x["type"] == "log"
    assert x["ticktext"] == ["5", "10", "20", "50", "100", "200", "500"]  # 0.1× … 10× of 50
    y = layout["yaxis"]
    assert y["type"] == "log" and all(t.startswith("$") for t in y["ticktext"])
    buttons = [b["label"] for b in layout["updatemenus"][0]["buttons"]]
    assert buttons == ["log–log", "linear"]


RATE_POINTS = (
    b"sweep,hardware,num_gpus,request_rate,duration_s,tpot_p50_ms,output_tok_s\n"
    b"rates,H100,1,1,4.0,40,88.0\n"
    b"rates,H100,1,inf,4.0,60,120.0\n"
)
RATE_REQUESTS = (
    b"sweep,request_rate,ttft_ms,e2el_ms,output_len,input_len,ok\n"
    b"rates,1,120,3090,100,10,true\n"
    b"rates,1,180,4140,100,10,true\n"
    b"rates,inf,250,5220,100,10,true\n"
    b"rates,inf,300,6040,100,10,true\n"
)


def test_the_sweep_page_names_load_levels_by_rate_and_says_why_a_chart_is_empty(
    client: TestClient, chart_site: dict[str, Any]
) -> None:
    response = post_files(client, ("rates.csv", RATE_POINTS), ("rates.r.csv", RATE_REQUESTS))
    assert response.status_code == 201, response.text
    found = figures(client, f"/sweeps/{response.json()['sweeps'][0]['id']}")
    for cdf in ("ttft-cdf-figure", "tpot-cdf-figure"):
        assert [t["name"] for t in found[cdf]["data"]] == ["rate 1 req/s", "rate ∞"]
    # These points measured no E2EL percentile: the chart says so, with no axes around nothing.
    e2el = found["e2el-figure"]
    assert e2el["data"] == []
    [note] = [a for a in e2el["layout"]["annotations"] if a.get("name") == "empty-reason"]
    assert note["text"] == "Nothing to draw: no point has a p50 or p90 end-to-end latency (E2EL)"
    assert all(axis["visible"] is False for axis in axes(e2el["layout"]).values())
    latency = found["latency-figure"]["data"]
    assert [c[1] for c in latency[0]["customdata"]] == ["1", "∞"]  # the load as set, not 1.25
