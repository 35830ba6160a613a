"""Every page writes numbers one way (app.domain.numbers): read as parsed HTML.

Concurrency 128 reads "128" (not "128.0"), money "$3.70" (not "$3.7000"), a latency "13,321 ms"
(not "13320.79 ms"), one GPU "1 GPU" and one point "1 point" — on every page.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import post_files
from tests.helpers import hover_texts, soup

# One sweep on one GPU with one point: 250 output tok/s per GPU at concurrency 128.
# At $3.33/GPU-hour: 3.33 · 10⁶ / (3600 · 250) = $3.70 per Mtok.
SOLO = (
    b"sweep,hardware,num_gpus,model,engine,precision,isl,osl,measured_at,concurrency,"
    b"tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,output_tok_s,requests_per_s\n"
    b"solo,H100,1,llama-70b,vllm,fp8,1024,1024,2026-06-01,128,10,12,13320.79,250,2\n"
)
# Two systems on one GPU each; A delivers twice B's tok/s at every interactivity.
PAIR = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,output_tok_s,"
    b"requests_per_s\n"
    b"A,H100,1,4,20,24,100,500,1\nA,H100,1,16,25,30,150,1000,2\n"
    b"B,H100,1,4,20,24,100,250,0.5\nB,H100,1,16,25,30,150,500,1\n"
)
SLO = {
    "picked": 1,
    "preset": "custom",
    "ttft_ms": 20000,
    "tpot_ms": 30,
    "usd_per_gpu_hour": 3.33,
}
# A count of one with a plural noun, e.g. "1 GPUs", "(1 points)" — never "11 GPUs".
WRONG_PLURAL = re.compile(
    r"(?<![\d.,])1 (GPUs|points|runs|sweeps|replicas|requests|samples|users|sequences)\b"
)
# A number with decimals that are all zero ("128.0", "3.7000"), or money with four decimals.
TRAILING_ZEROS = re.compile(r"(?<![\w.])\d[\d,]*\.0+(?![\d.])")
LONG_MONEY = re.compile(r"\$\d[\d,]*\.\d{3,}")


def solo(client: TestClient) -> int:
    response = post_files(client, ("solo.csv", SOLO))
    assert response.status_code == 201, response.text
    return int(response.json()["sweeps"][0]["id"])


def visible_text(page: BeautifulSoup) -> str:
    for hidden in page.select("script, style, option"):
        hidden.decompose()
    return page.get_text(" ", strip=True)


def test_explore_shows_concurrency_money_latency_and_gpus_by_the_rule(client: TestClient) -> None:
    sweep = solo(client)
    page = soup(client.get("/", params={**SLO, "sweep": sweep}), expect=200)
    row = page.select_one("#readoff-table tbody tr")
    cells = [td.get_text(" ", strip=True) for td in row.select("td")]
    assert row.select_one("td.goodput").text == "250"
    assert cells[5] == "128"  # operating point: concurrency 128.0 stored, 128 shown
    assert row.select_one("td.cost").text == "$3.70"
    assert row.select_one("td small.muted").text.startswith("H100 × 1 GPU")
    assert row.select_one("td.reason").text == (
        "p90 TTFT 13,321 ms ≤ 20,000 ms; p90 TPOT 12 ms ≤ 30 ms"
    )
    assert "p90 TTFT ≤ 20,000 ms, p90 TPOT ≤ 30 ms" in page.select_one("#readoff h2").text


def test_the_explore_chart_hover_uses_the_same_rule(client: TestClient) -> None:
    sweep = solo(client)
    api = client.get("/api/readoff", params={**SLO, "sweep": sweep}).json()
    assert api["results"][0]["goodput_tok_s_per_gpu"] == 250.0  # the API stays raw
    page = soup(client.get("/", params={**SLO, "sweep": sweep}), expect=200)
    figure_json = json.loads(page.select_one("#pareto-figure").string or "{}")
    # Hover as Plotly shows it: each point's formatted numbers in its trace's template slots.
    shown = [
        text
        for t in figure_json["data"]
        if "hover" in (t.get("meta") or {})
        for text in hover_texts(t)
    ]
    assert shown
    data = json.dumps(figure_json, ensure_ascii=False) + "".join(shown)
    assert "concurrency 128<br>" in data
    assert "H100 × 1 GPU" in data
    assert "100 tok/s/user · 250 tok/s/GPU (output)" in data
    assert "goodput at SLO: 250 tok/s/GPU" in data
    assert "128.0" not in data


def test_history_shows_the_same_numbers_and_counts_one_sweep(client: TestClient) -> None:
    solo(client)
    page = soup(client.get("/history", params={**SLO, "hardware": "H100"}), expect=200)
    [group] = page.select(".history-group")
    assert group.select_one("h2 .muted").text == "— 1 sweep"
    row = group.select_one("tbody tr")
    assert row.select_one("td.goodput").text == "250"
    assert [td.text for td in row.select("td.num")] == ["250", "128", "$3.70"]


def test_the_sweep_page_writes_loads_as_set_and_measurements_by_the_rule(
    client: TestClient,
) -> None:
    sweep = solo(client)
    page = soup(client.get(f"/sweeps/{sweep}"), expect=200)
    assert page.select_one(".page-head p.muted").text.startswith("H100 × 1 GPU ·")
    assert "(1 GPU)" in page.select_one("#points-table").find_previous("p").text
    headers = [th.contents[0].strip() for th in page.select("#points-table thead th")]
    cells = [td.text for td in page.select("#points-table tbody td")]
    shown = dict(zip(headers, cells, strict=True))
    assert shown["Concurrency"] == "128"
    assert shown["TTFT p90"] == "13,321"
    assert shown["TPOT p50"] == "10"
    assert shown["Output throughput"] == "250"
    assert shown["Requests per s" if "Requests per s" in shown else "Request throughput"] == "2"


def test_compare_writes_ratios_without_trailing_zeros(client: TestClient) -> None:
    ids = [s["id"] for s in post_files(client, ("pair.csv", PAIR)).json()["sweeps"]]
    a, b = ids
    page = soup(client.get("/compare", params={**SLO, "sweep": [b, a]}), expect=200)
    ratios = [td.text for td in page.select("#headlines .headline-table td.ratio")]
    assert ratios and set(ratios) == {"2×"}
    assert "A delivers 2× B's goodput" in page.select_one("#headlines").get_text(" ")


def test_the_plan_names_one_replica_and_one_gpu_in_the_singular(client: TestClient) -> None:
    sweep = solo(client)
    params = {**SLO, "sweep": sweep, "demand": 2, "demand_unit": "requests_per_s"}
    page = soup(client.get("/plan", params=params), expect=200)
    banner = page.select_one("#plan-cheapest").get_text(" ", strip=True)
    assert "— 1 replica, 1 GPU, $2,431/month" in banner  # 3.33 × 730 = 2,430.9
    row = page.select_one("#plan-table tbody tr")
    assert "H100 × 1 GPU" in row.select_one("td small").text
    assert "concurrency 128 ·" in row.select_one("small.op").text
    assert row.select_one("td.util").text == "100 % · 100 %"


def test_the_cli_counts_one_point_in_the_singular(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], database_url: str, monkeypatch: Any
) -> None:
    from app.cli import main
    from app.settings import get_settings

    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    path = tmp_path / "solo.csv"
    path.write_bytes(SOLO)
    try:
        assert main(["import", str(path)]) == 0
    finally:
        get_settings.cache_clear()
    assert capsys.readouterr().out == "created sweep 1: solo (1 point)\n"


@pytest.mark.usefixtures("catalog")
def test_no_page_writes_a_wrong_plural_or_a_padded_number(client: TestClient) -> None:
    """Every page with 1-GPU, 1-point data (and a 1-GPU claim): no "1 GPUs", "(1 points)",
    "128.0" or "$3.7000" anywhere in the visible text."""
    sweep = solo(client)
    a, b = (s["id"] for s in post_files(client, ("pair.csv", PAIR)).json()["sweeps"])
    claim = client.post(
        "/api/claims",
        json={
            "vendor": "Example",
            "hardware": "H100",
            "value_tok_s": 250.0,
            "measures": "per_gpu",
            "token_basis": "output",
            "scope_gpus": 1,
        },
    )
    assert claim.status_code == 201, claim.text
    claim_id = claim.json()["id"]
    pages = {
        "explore": client.get("/", params={**SLO, "sweep": [sweep, a, b]}),
        "sweeps": client.get("/sweeps"),
        "sweep": client.get(f"/sweeps/{sweep}"),
        "history": client.get("/history", params=SLO),
        "compare": client.get("/compare", params={**SLO, "sweep": [b, a]}),
        "plan": client.get(
            "/plan",
            params={**SLO, "sweep": [sweep, a], "demand": 1, "demand_unit": "requests_per_s"},
        ),
        "claims": client.get("/claims"),
        "audit": client.get(f"/claims/{claim_id}", params={**SLO, "sweep": sweep}),
        "pricing": client.get("/pricing"),
        "catalog": client.get("/catalog"),
        "upload": client.get("/upload"),
        "preview": client.post(
            "/upload/preview",
            files=[("files", ("solo.csv", SOLO, "text/csv"))],
            data={"hardware": "H100", "num_gpus": "1"},
        ),
        "report": client.get("/report", params={**SLO, "sweep": [sweep, a, b]}),
        "compare report": client.get("/report", params={**SLO, "sweep": [b, a], "view": "compare"}),
    }
    for name, response in pages.items():
        text = visible_text(soup(response, expect=200))
        assert WRONG_PLURAL.findall(text) == [], name
        assert TRAILING_ZEROS.findall(text) == [], name
        assert LONG_MONEY.findall(text) == [], name
    preview = visible_text(soup(pages["preview"], expect=200))
    assert "1 point" in preview
    audit = visible_text(soup(pages["audit"], expect=200))
    assert "H100 × 1 GPU (gpu)" in audit


# Ad-hoc number formatting in a template: a digit count for a filter, Python %-formats, |round.
AD_HOC = re.compile(r"\|(num|usd|load)\(\d|\|unit\(|\"%[^\"]*[dfg]\"\s*\|\s*format|\|round\b")


def test_templates_format_numbers_only_through_the_shared_filters() -> None:
    from app.settings import PROJECT_ROOT

    found = {
        str(path.relative_to(PROJECT_ROOT)): AD_HOC.findall(path.read_text(encoding="utf-8"))
        for path in (PROJECT_ROOT / "templates").rglob("*.html")
    }
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_filters_drop_an_old_digit_count_and_refuse_anything_else() -> None:
    from app.http.templating import templates

    env = templates.env
    assert env.from_string("{{ 3.7|usd(4) }} {{ 128.0|num(1) }}").render() == "$3.70 128"
    assert env.from_string('{{ 2.5|unit("req/s") }} {{ none|num("ms") }}').render() == (
        "2.5 req/s –"
    )
    with pytest.raises(TypeError):
        env.from_string("{{ 1.0|num(1.5) }}").render()
