"""Exports: canonical CSV/zip that re-imports as the same sweep, read-off CSV, offline report."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.orm import Session

from app.services.exports import neutralise
from app.store.models import Sweep
from tests.factories import FULL_HEADER, count, full_row, post_files, sample_count, to_csv
from tests.web.test_readoff_api import O9_POINTS, O9_REQUESTS, O11


def test_exported_csv_reimports_as_the_same_sweep(client: TestClient, session: Session) -> None:
    notes = "=cmd|' /C calc'!A0"
    rows = [full_row(notes=notes), full_row(concurrency=32, request_rate=12.5, notes=notes)]
    [sweep] = post_files(client, ("s.csv", to_csv(rows, FULL_HEADER))).json()["sweeps"]
    exported = client.get("/api/export/sweeps.csv", params={"sweep": sweep["id"]})
    assert "'=cmd" in exported.text
    assert exported.headers["content-disposition"] == 'attachment; filename="sweeps.csv"'
    again = post_files(client, ("exported.csv", exported.content))
    assert again.status_code == 200
    assert again.json()["sweeps"] == [{**sweep, "created": False}]
    assert count(session, Sweep) == 1


def test_several_sweeps_export_in_the_order_asked_in_two_queries_and_an_unknown_one_is_404(
    client: TestClient,
) -> None:
    engine = client.app.state.engine  # type: ignore[attr-defined]
    rows = [full_row(sweep=f"s{k}", concurrency=c) for k in range(3) for c in (1, 8)]
    ids = [
        s["id"] for s in post_files(client, ("s.csv", to_csv(rows, FULL_HEADER))).json()["sweeps"]
    ]
    asked: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        asked.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        exported = client.get("/api/export/sweeps.json", params={"sweep": ids[::-1]})
    finally:
        event.remove(engine, "before_cursor_execute", note)
    assert [s["name"] for s in exported.json()["sweeps"]] == ["s2", "s1", "s0"]
    assert [len(s["points"]) for s in exported.json()["sweeps"]] == [2, 2, 2]
    # A sweep per line, so a diff of two exports reads sweep by sweep.
    lines = exported.text.splitlines()
    assert lines[0] == '{"sweeps": [' and lines[-1] == "]}"
    assert [json.loads(line.rstrip(","))["name"] for line in lines[1:-1]] == ["s2", "s1", "s0"]
    assert len([q for q in asked if "FROM sweep" in q or "FROM point" in q]) == 2
    missing = client.get("/api/export/sweeps.csv", params={"sweep": [ids[0], 999999]})
    assert missing.status_code == 404
    assert missing.json()["detail"] == "sweep 999999 does not exist"


def test_an_export_zip_carries_request_samples_and_reimports_unchanged(
    client: TestClient, session: Session
) -> None:
    [sweep] = post_files(client, ("o9.csv", O9_POINTS), ("o9.requests.csv", O9_REQUESTS)).json()[
        "sweeps"
    ]
    archive = client.get("/api/export/sweeps.zip", params={"sweep": sweep["id"]}).content
    names = zipfile.ZipFile(io.BytesIO(archive)).namelist()
    assert names == ["points.csv", "requests.csv"]
    again = post_files(client, ("sweeps.zip", archive))
    assert again.json()["sweeps"] == [{**sweep, "created": False}]
    assert sample_count(session) == 8


def test_the_json_export_counts_each_points_request_samples(client: TestClient) -> None:
    plain = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nbare,H100,1,1,10,100\n"
    stored = post_files(client, ("o9.csv", O9_POINTS), ("o9.requests.csv", O9_REQUESTS))
    [with_samples] = stored.json()["sweeps"]
    [without] = post_files(client, ("bare.csv", plain)).json()["sweeps"]
    ids = [with_samples["id"], without["id"]]
    exported = client.get("/api/export/sweeps.json", params={"sweep": ids}).json()["sweeps"]
    assert [[p["request_samples"] for p in s["points"]] for s in exported] == [[8], [0]]
    detail = client.get(f"/api/sweeps/{ids[0]}").json()
    assert detail["points"][0]["request_samples"] == 8  # the sweep's own page says the same


def test_formula_cells_are_neutralised_but_numbers_are_not() -> None:
    assert neutralise("=SUM(A1)") == "'=SUM(A1)"
    assert neutralise("+cmd") == "'+cmd"
    assert neutralise("@x") == "'@x"
    assert neutralise("-3.5") == "-3.5"
    assert neutralise("plain") == "plain"


def test_a_dangerous_name_is_exported_as_text(client: TestClient) -> None:
    data = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n@evil,H100,1,1,10,100\n"
    [sweep] = post_files(client, ("e.csv", data)).json()["sweeps"]
    text = client.get("/api/export/sweeps.csv", params={"sweep": sweep["id"]}).text
    row = next(csv.DictReader(io.StringIO(text)))
    assert row["sweep"] == "'@evil"
    readoff = client.get("/api/export/readoff.csv", params={"sweep": sweep["id"], "tpot_ms": 20})
    assert next(csv.DictReader(io.StringIO(readoff.text)))["sweep"] == "'@evil"


def test_the_read_off_csv_has_the_same_numbers_as_the_api(client: TestClient) -> None:
    [sweep] = post_files(client, ("o11.csv", O11)).json()["sweeps"]
    params = {"sweep": sweep["id"], "tpot_ms": 35, "ttft_ms": 300, "usd_per_gpu_hour": 2}
    [row] = csv.DictReader(io.StringIO(client.get("/api/export/readoff.csv", params=params).text))
    api = client.get("/api/readoff", params=params).json()["results"][0]
    assert float(row["goodput_tok_s_per_gpu"]) == api["goodput_tok_s_per_gpu"] == 3200.0
    assert row["concurrency"] == "16.0"
    assert float(row["usd_per_mtok [$2/GPU-hour]"]) == api["costs"][0]["usd_per_mtok"]
    assert row["meets_slo"] == "true"


def test_the_offline_report_embeds_everything_and_shows_the_page_numbers(
    client: TestClient,
) -> None:
    [sweep] = post_files(client, ("o11.csv", O11)).json()["sweeps"]
    params = {"sweep": sweep["id"], "picked": 1, "preset": "custom", "tpot_ms": 35, "ttft_ms": 300}
    report = client.get("/report", params={"view": "explore", **params})
    doc = BeautifulSoup(report.text, "html.parser")
    assert not doc.select("script[src]")
    assert not doc.select("link[rel=stylesheet]")
    assert "Plotly" in doc.select("script")[0].string
    page = BeautifulSoup(client.get("/", params=params).text, "html.parser")
    assert (
        [td.text for td in doc.select("#readoff-table td.goodput")]
        == [td.text for td in page.select("#readoff-table td.goodput")]
        == ["3,200"]
    )
    assert doc.select_one("#pareto-figure") is not None


def test_the_compare_report_carries_the_headline_table(client: TestClient) -> None:
    data = O11 + b"o11b,H100,8,8,9,10,100,24000,3.0\no11b,H100,8,16,12,14,120,40000,5.0\n"
    ids = [s["id"] for s in post_files(client, ("two.csv", data)).json()["sweeps"]]
    report = client.get("/report", params={"view": "compare", "sweep": ids, "picked": 1})
    doc = BeautifulSoup(report.text, "html.parser")
    assert doc.select_one("#headlines .headline-table") is not None
    assert client.get("/report", params={"view": "nope"}).status_code == 422
