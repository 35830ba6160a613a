"""Multi-turn imports through HTTP (issue 49): the session read-off of a vLLM multi-turn run, an
SGLang multi-turn log's unknown sessions, and warm-up requests counted on the sweep page and in
its JSON, never read off, kept by an export."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from fastapi.testclient import TestClient

from tests.helpers import guidellm_conversations, soup, upload_by_name, upload_id

FIXTURES = Path(__file__).parent.parent / "fixtures"
DETAILS = {"hardware": "H100", "num_gpus": 1}


def test_a_vllm_multi_turn_run_reads_off_its_session_attainment(
    client: TestClient, seeded: None
) -> None:
    path = FIXTURES / "vllm_multiturn" / "stats.json"
    sweep = upload_id(client, (path.name, path.read_bytes()), **DETAILS)
    body = client.get(f"/api/readoff?sweep={sweep}&ttft_ms=200&attainment=0.5").json()
    (result,) = body["results"]
    assert result["scenario"] == "chat-multiturn"
    assert result["operating_point"]["concurrency"] == 2.0
    sessions = result["sessions"]
    # CONV_ID_1's second turn took 250 ms: 3 of the 4 conversations met TTFT ≤ 200 ms.
    assert (sessions["count"], sessions["met"], sessions["cut"]) == (4, 3, 0)
    assert sessions["attainment"] == 0.75
    assert result["turns"]["first_requests"] == 4 and result["turns"]["later_requests"] == 7


def test_an_sglang_multi_turn_log_reads_off_with_sessions_unknown_and_why(
    client: TestClient, seeded: None
) -> None:
    path = FIXTURES / "sglang_multiturn" / "performance_metrics.jsonl"
    sweep = upload_id(client, (path.name, path.read_bytes()), **DETAILS)
    body = client.get(f"/api/readoff?sweep={sweep}&ttft_ms=600").json()
    (result,) = body["results"]
    assert result["scenario"] == "chat-multiturn"
    assert result["sessions"]["count"] is None
    assert result["sessions"]["reason"] == "no request samples"


POINTS = b"sweep,concurrency,output_tok_s,tpot_p50_ms,duration_s\nchat,4,400,20,10\n"
PHASED = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok,session_id,turn_index,phase\n"
    b"chat,4,2900,5000,100,900,true,w1,0,warmup\n"
    b"chat,4,2800,4900,100,900,true,w2,0,warmup\n"
    b"chat,4,300,2300,100,900,true,s1,0,profiling\n"
    b"chat,4,120,2100,100,1200,true,s1,1,profiling\n"
    b"chat,4,,,,900,false,s2,0,profiling\n"
    b"chat,4,400,2400,100,900,true,s3,0,profiling\n"
)


def test_warm_up_requests_are_counted_on_the_sweep_page_and_never_read_off(
    client: TestClient, seeded: None
) -> None:
    sweep = upload_by_name(client, ("chat.csv", POINTS), ("chat.requests.csv", PHASED), **DETAILS)[
        "chat"
    ]
    page = soup(client.get(f"/sweeps/{sweep}").text)
    rows = [
        [td.get_text() for td in tr.select("td")]
        for tr in page.select("#accounting-table tbody tr")
    ]
    assert rows == [["4", "6", "3", "2", "1", ""]]
    point = client.get(f"/api/sweeps/{sweep}").json()["points"][0]
    assert point["extra"]["request_accounting"]["records_warmup_dropped"] == 2
    # Per request, TTFT ≤ 500 ms: 3 of the 4 profiled requests are good, 0.75 ≥ 0.7 (with
    # the warm-up ones at 2.8-2.9 s it would be 3 of 6, and no load would meet the SLO).
    body = client.get(f"/api/readoff?sweep={sweep}&ttft_ms=500&mode=requests&attainment=0.7")
    (result,) = body.json()["results"]
    assert result["meets_slo"] is True
    assert result["intervals"]["attainment"]["value"] == 0.75
    assert "3 of 4 requests good" in result["borderline_reason"]
    # Sessions s1, s2 (its turn failed) and s3; the warm-up sessions w1 and w2 are not read.
    assert (result["sessions"]["count"], result["sessions"]["met"]) == (3, 2)


def test_an_export_keeps_the_warm_up_requests_and_imports_as_the_same_sweep(
    client: TestClient, seeded: None
) -> None:
    sweep = upload_by_name(client, ("chat.csv", POINTS), ("chat.requests.csv", PHASED), **DETAILS)[
        "chat"
    ]
    text = client.get(f"/api/export/requests.csv?sweep={sweep}").text
    lines = text.splitlines()
    assert lines[0].endswith(",phase")
    assert [line.rsplit(",", 1)[1] for line in lines[1:]].count("warmup") == 2
    data = client.get(f"/api/export/sweeps.zip?sweep={sweep}").content
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert "warmup" in archive.read("requests.csv").decode()
    again = client.post("/api/sweeps", files=[("files", ("sweeps.zip", data))])
    assert again.status_code in (200, 201), again.text
    assert [s["id"] for s in again.json()["sweeps"]] == [sweep]


def test_a_guidellm_runs_warm_up_and_cool_down_requests_are_counted_on_the_sweep_page(
    client: TestClient, seeded: None
) -> None:
    report = json.dumps(guidellm_conversations()).encode()
    sweep = upload_id(client, ("benchmarks.json", report), **DETAILS)
    page = soup(client.get(f"/sweeps/{sweep}").text)
    heads = [th.get_text() for th in page.select("#accounting-table thead th")]
    assert heads[3:5] == ["Warm-up dropped", "Cool-down dropped"]
    rows = [
        [td.get_text() for td in tr.select("td")]
        for tr in page.select("#accounting-table tbody tr")
    ]
    # 15 listed: 2 warm-up, 1 cool-down, 12 measured of which 1 errored → 11 profiled.
    assert [row[1:6] for row in rows] == [["15", "11", "2", "1", "1"]]
    body = client.get(f"/api/readoff?sweep={sweep}&ttft_ms=500&mode=requests&attainment=0.5")
    (result,) = body.json()["results"]
    assert result["scenario"] == "multi-turn"
    sessions = result["sessions"]
    assert (sessions["count"], sessions["met"], sessions["cut"]) == (4, 2, 0)
