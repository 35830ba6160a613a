"""A sweep page's TTFT against prompt length (issue 50): the chart by load level and by turn of a
session, data only through application/json scripts, and the requests of a clicked bucket that
missed the SLO (the htmx fragment and its JSON twin /api/readoff/misses agree)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from fastapi.testclient import TestClient

from app.schemas.answers.ttft_context import MissesOut
from tests.helpers import soup, upload_ids
from tests.web.test_figure_specs import invalid

POINTS = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p90_ms,output_tok_s,total_tok_s\n"
    b"long-ctx,H100,1,2,20,900,200,4000\n"
    b"long-ctx,H100,1,4,25,1500,300,6000\n"
)
# Two sessions per load; prompts grow with the turn (the prefix is re-sent). TTFT = 50 ms +
# input ÷ 20,000 tok/s at concurrency 2; the 16k-token turn at concurrency 4 is slow.
REQUESTS = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok,session_id,turn_index\n"
    b"long-ctx,2,75,1075,51,500,true,a,0\n"
    b"long-ctx,2,150,1150,51,2000,true,a,1\n"
    b"long-ctx,2,450,1450,51,8000,true,a,2\n"
    b"long-ctx,2,75,1075,51,500,true,b,0\n"
    b"long-ctx,2,150,1150,51,2000,true,b,1\n"
    b"long-ctx,2,850,1850,51,16000,true,b,2\n"
    b"long-ctx,4,80,1080,51,500,true,c,0\n"
    b"long-ctx,4,160,1160,51,2000,true,c,1\n"
    b"long-ctx,4,1700,2700,51,16000,true,c,2\n"
    b"long-ctx,4,90,5090,51,500,true,d,0\n"
    b"long-ctx,4,,,0,2000,false,d,1\n"
)


def clicked(client: TestClient, url: str, **query: Any) -> Any:
    """What the page's script requests for a clicked marker: the trace's URL (the limits) and
    the marker's point, bucket and turn appended."""
    return soup(client.get(url + "&" + urlencode(query)), 200)


def context_figure(page: Any, fid: str) -> dict[str, Any]:
    script = page.select_one(f"script#{fid}")
    assert script is not None and script["type"] == "application/json"
    found: dict[str, Any] = json.loads(script.string)
    return found


def test_the_sweep_page_draws_ttft_against_prompt_length_per_load_with_the_limit(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("l.csv", POINTS), ("l.requests.csv", REQUESTS))
    page = soup(client.get(f"/sweeps/{sweep}", params={"ttft_ms": 500, "tpot_ms": 30}), 200)
    fig = context_figure(page, "context-figure")
    lines = [t for t in fig["data"] if t.get("showlegend") is not False]
    assert [t["name"] for t in lines] == ["concurrency 2", "concurrency 4"]
    # Buckets [256, 512), [1,024, 2,048)… hold the 500-, 2,000-, 8,000- and 16,000-token prompts.
    first = lines[0]
    assert first["y"] == [75, 150, 450, 850]
    assert [c[1:3] for c in first["customdata"]] == [
        [256, 512],
        [1024, 2048],
        [4096, 8192],
        [8192, 16384],
    ]
    assert first["meta"]["misses"]["url"] == f"/sweeps/{sweep}/misses?ttft_ms=500.0&tpot_ms=30.0"
    fits = [t for t in fig["data"] if t.get("showlegend") is False]
    assert fits[0]["name"] == "concurrency 2 fit"
    assert fig["layout"]["shapes"][0]["y0"] == 500
    assert page.select_one("#ctx-ttft_ms")["value"] == "500"
    assert "your limits" in page.select_one("#context-limits").get_text()
    # Data reaches scripts only as JSON: no inline script holds code.
    assert all(s.get("type") == "application/json" for s in page.select("#ttft-context script"))


def test_the_turns_chart_draws_one_line_per_turn_at_the_chosen_load(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("l.csv", POINTS), ("l.requests.csv", REQUESTS))
    page = soup(client.get(f"/sweeps/{sweep}"), 200)
    fig = context_figure(page, "turns-figure")
    assert invalid(fig) is None and invalid(context_figure(page, "context-figure")) is None
    # The heaviest load by default: sessions c and d, their first turns' median TTFT 85 ms.
    assert [t["name"] for t in fig["data"]] == ["turn 0 (cold)", "turn 1", "turn 2"]
    assert fig["data"][0]["y"] == [85]
    assert fig["data"][2]["y"] == [1700]
    # An unseeded database has no Chat preset to default to: no limits, said so.
    assert "Judged against no limits" in page.select_one("#context-limits").get_text()
    options = page.select("#turn-point option")
    assert [o.get_text() for o in options] == ["concurrency 2", "concurrency 4"]
    first = options[0]["value"]
    again = soup(client.get(f"/sweeps/{sweep}", params={"turn_point": first}), 200)
    third = context_figure(again, "turns-figure")["data"][2]
    # At concurrency 2 the third turns re-send 8,000 and 16,000 tokens: two buckets.
    assert (third["name"], third["y"]) == ("turn 2", [450, 850])


def test_a_clicked_bucket_lists_its_requests_that_missed_and_the_json_twin_agrees(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("l.csv", POINTS), ("l.requests.csv", REQUESTS))
    page = soup(client.get(f"/sweeps/{sweep}", params={"ttft_ms": 500, "tpot_ms": 30}), 200)
    heavy = context_figure(page, "context-figure")["data"][2]
    assert heavy["name"] == "concurrency 4"
    point_id, low, high = heavy["customdata"][-1][:3]
    assert (low, high) == (8192, 16384)
    url = heavy["meta"]["misses"]["url"]
    query = {"point_id": point_id, "input_tokens_low": low, "input_tokens_high": high}
    fragment = clicked(client, url, **query)
    rows = fragment.select("#sweep-misses-table tbody tr")
    # Request 3 of the point (16,000 tokens, TTFT 1,700 ms) missed TTFT only.
    assert [[td.get_text(strip=True) for td in r.select("td")] for r in rows] == [
        ["3", "16,000", "51", "1,700 ms", "20 ms", "2,700 ms", "TTFT"]
    ]
    assert fragment.select_one(".miss-count").get_text(strip=True) == "1 of 1 request"
    api = client.get(
        "/api/readoff/misses",
        params={"sweep": sweep, "ttft_ms": 500, "tpot_ms": 30, **query},
    )
    assert api.status_code == 200, api.text
    body = MissesOut.model_validate(api.json())
    assert (body.issued, body.missed) == (1, 1)
    assert body.requests[0].request == 3 and body.requests[0].missed == ["ttft"]
    assert body.among.input_tokens_low == 8192


def test_a_clicked_turn_bucket_lists_that_turns_misses_and_a_failed_request_misses_all(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("l.csv", POINTS), ("l.requests.csv", REQUESTS))
    page = soup(client.get(f"/sweeps/{sweep}", params={"ttft_ms": 500, "tpot_ms": 30}), 200)
    cold = context_figure(page, "turns-figure")["data"][0]
    point_id, low, high, turn = cold["customdata"][0][:4]
    assert turn == 0
    url = cold["meta"]["misses"]["url"]
    params = {"point_id": point_id, "input_tokens_low": low, "input_tokens_high": high}
    fragment = clicked(client, url, **params, turn_index=0)
    # Session d's first turn took 5,090 ms for 51 tokens: TPOT 100 ms misses the 30 ms limit.
    rows = fragment.select("#sweep-misses-table tbody tr")
    assert [r.select_one(".missed").get_text(strip=True) for r in rows] == ["TPOT"]
    assert "turn 0" in fragment.select_one("h3").get_text()
    later = clicked(client, url, point_id=point_id, turn_index=1)
    # Turn 1: session c's request met every limit; session d's failed, so it misses all.
    assert [r.select_one(".missed").get_text() for r in later.select("tbody tr")] == ["failed"]
    assert later.select_one(".miss-count").get_text(strip=True) == "1 of 2 requests"
