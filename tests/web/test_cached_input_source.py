"""Where a sweep's cached input share comes from (issue 50), as the sweep page, its JSON twin,
the read-off and the read-off CSV say it: measured by the server, reported by the client,
theoretical (never shown as measured), or unknown."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.schemas.answers.readoff import ReadoffOut
from app.schemas.answers.sweeps import SweepDetail
from tests.helpers import soup, upload_id

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
AGENTX = FIXTURES / "inferencex" / "agentx_agg_bmk_built.json"
AIPERF = FIXTURES / "aiperf" / "cached"


def page_rows(client: TestClient, sweep: int) -> list[tuple[str, str, str]]:
    """The sweep page's cached-input rows: (concurrency, share, source key)."""
    page = soup(client.get(f"/sweeps/{sweep}"), 200)
    return [
        (
            tr.select("td")[0].get_text(strip=True),
            tr.select_one(".cached-share").get_text(strip=True),
            str(tr.select_one(".cached-source")["data-source"]),
        )
        for tr in page.select("#cached-input-table tbody tr")
    ]


def detail(client: TestClient, sweep: int) -> dict[str, Any]:
    body = client.get(f"/api/sweeps/{sweep}").json()
    SweepDetail.model_validate(body)  # every key documented
    return body


def readoff_classes(client: TestClient, sweep: int, **params: Any) -> dict[str, Any]:
    response = client.get("/api/readoff", params={"sweep": sweep, **params})
    assert response.status_code == 200, response.text
    body = response.json()
    ReadoffOut.model_validate(body)
    classes: dict[str, Any] = body["results"][0]["token_classes"]
    return classes


def test_an_agentx_sweep_shows_the_servers_measured_share_on_its_page_json_and_readoff(
    client: TestClient, seeded: None
) -> None:
    sweep = upload_id(client, (AGENTX.name, AGENTX.read_bytes()))
    assert page_rows(client, sweep) == [("4", "93.1 %", "measured"), ("16", "93.1 %", "measured")]
    page = soup(client.get(f"/sweeps/{sweep}"), 200)
    words = page.select_one("#cached-input-table .cached-source small").get_text(strip=True)
    assert words == "measured by the server (its prefix-cache counters)"
    rows = detail(client, sweep)["cached_input"]
    assert [
        (r["concurrency"], r["cached_input_share"], r["cached_input_source"]) for r in rows
    ] == [
        (4.0, 0.931, "measured"),
        (16.0, 0.931, "measured"),
    ]
    assert rows[0]["cached_input_from"] == "prefix_cache_hit_rate"
    classes = readoff_classes(client, sweep, ttft_ms=5000)
    assert (classes["cached_input_share"], classes["cached_input_source"]) == (0.931, "measured")
    explore = soup(
        client.get("/", params={"sweep": sweep, "picked": 1, "preset": "custom", "ttft_ms": 5000}),
        200,
    )
    cell = explore.select_one("#token-classes .cached-source")
    assert cell is not None and cell["data-source"] == "measured"
    assert cell.get_text(strip=True) == "measured by the server (its prefix-cache counters)"


def test_a_theoretical_rate_alone_is_shown_as_theoretical_never_as_measured(
    client: TestClient, seeded: None
) -> None:
    rows = json.loads(AGENTX.read_bytes())
    for row in rows:
        row["server_metrics"]["cache"] = {"gpu_cache_hit_rate": None}
    sweep = upload_id(client, ("theory.json", json.dumps(rows).encode()))
    assert page_rows(client, sweep) == [
        ("4", "96.2 %", "theoretical"),
        ("16", "96.2 %", "theoretical"),
    ]
    page = soup(client.get(f"/sweeps/{sweep}"), 200)
    sources = [
        td.get_text(" ", strip=True) for td in page.select("#cached-input-table .cached-source")
    ]
    assert all("measured" not in s.replace("not measured", "") for s in sources)
    assert all("not measured" in s for s in sources)
    classes = readoff_classes(client, sweep, ttft_ms=5000)
    assert classes["cached_input_source"] == "theoretical"
    assert classes["cached_input_source_words"] == (
        "theoretical (the workload's shared prefixes, not measured)"
    )


def test_an_aiperf_run_shows_the_clients_share_and_the_csv_export_names_its_source(
    client: TestClient,
) -> None:
    files = [(f"run/{p.name}", p.read_bytes()) for p in sorted(AIPERF.iterdir())]
    sweep = upload_id(client, *files, hardware="H100", num_gpus=1)
    assert page_rows(client, sweep) == [("4", "73.1 %", "client")]
    # The server's own counters (server_metrics_export.json) stay beside it, as measured.
    page = soup(client.get(f"/sweeps/{sweep}"), 200)
    covariates = [td.get_text(strip=True) for td in page.select("#covariates-table tbody td")]
    assert "70.4 %" in covariates and "73.1 %" in covariates and "80 %" in covariates
    [row] = detail(client, sweep)["cached_input"]
    assert row["cached_input_share"] == 5120 / 7000
    assert row["cached_input_from"] == "client_cache_hit_rate"
    # One request of four failed: a p50 TTFT limit allows it (a p90 one would not).
    slo = {"ttft_ms": 5000, "ttft_percentile": "p50"}
    classes = readoff_classes(client, sweep, **slo)
    assert (classes["cached_input_share"], classes["cached_input_source"]) == (
        5120 / 7000,
        "client",
    )
    prices = {"usd_per_mtok_input": 1.0, "usd_per_mtok_cached_input": 0.1}
    text = client.get("/api/export/readoff.csv", params={"sweep": sweep, **slo, **prices}).text
    [line] = list(csv.DictReader(io.StringIO(text)))
    assert line["cached_input_source"] == "client"
    assert float(line["cached_input_share"]) == pytest.approx(5120 / 7000, rel=1e-12)


def test_a_sweep_without_cached_tokens_has_no_cached_table_and_an_unknown_source(
    client: TestClient,
) -> None:
    points = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s,total_tok_s\n"
        b"plain,H100,1,4,20,100,1000\n"
    )
    sweep = upload_id(client, ("plain.csv", points))
    assert page_rows(client, sweep) == []
    assert detail(client, sweep)["cached_input"] == []
    classes = readoff_classes(client, sweep, tpot_ms=35, tpot_percentile="p50")
    assert (classes["cached_input_share"], classes["cached_input_source"]) == (None, "unknown")
