"""/sweeps and /sweeps/{id}: list, filters, pagination, points, edit, delete, and JSON twins."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.store.models import Sweep
from tests.factories import MINIMAL, count, point_count, post_files
from tests.helpers import soup

THREE_SWEEPS = (
    b"sweep,hardware,num_gpus,model,engine,precision,concurrency,tpot_p50_ms,output_tok_s\n"
    b"h100-a,H100,8,llama-70b,vllm,fp8,1,10,100\n"
    b"h200-b,H200,8,llama-70b,sglang,fp8,1,9,120\n"
    b"b200-c,B200,8,deepseek-r1,trt,fp4,1,8,300\n"
)


def test_the_list_shows_every_sweep_with_its_point_count(client: TestClient) -> None:
    post_files(client, ("three.csv", THREE_SWEEPS))
    page = soup(client.get("/sweeps"))
    rows = page.select("#sweeps-table tbody tr")
    assert sorted(r.select_one("td a").text for r in rows) == ["b200-c", "h100-a", "h200-b"]
    assert all(r.select("td")[7].text == "1" for r in rows)


def test_filters_narrow_the_list_and_the_json_twin_agrees(client: TestClient) -> None:
    post_files(client, ("three.csv", THREE_SWEEPS))
    page = soup(client.get("/sweeps?model=llama-70b&engine=sglang"))
    assert [a.text for a in page.select("#sweeps-table tbody td a")] == ["h200-b"]
    api = client.get("/api/sweeps?model=llama-70b&engine=sglang").json()
    assert api["total"] == 1
    assert api["sweeps"][0]["name"] == "h200-b"
    assert client.get("/api/sweeps?q=B200").json()["total"] == 1


def test_htmx_gets_only_the_table_fragment(hx_client: TestClient) -> None:
    post_files(hx_client, ("three.csv", THREE_SWEEPS))
    response = hx_client.get("/sweeps?hardware=H100")
    assert "<html" not in response.text
    fragment = soup(response)
    assert fragment.select_one("#sweeps-table") is not None
    assert len(fragment.select("tbody tr")) == 1


def test_pagination_splits_the_list(client: TestClient) -> None:
    post_files(client, ("three.csv", THREE_SWEEPS))
    first = client.get("/api/sweeps?per_page=2&page=1").json()
    second = client.get("/api/sweeps?per_page=2&page=2").json()
    assert first["total"] == second["total"] == 3
    names = [s["name"] for s in first["sweeps"] + second["sweeps"]]
    assert sorted(names) == ["b200-c", "h100-a", "h200-b"]
    page = soup(client.get("/sweeps?per_page=2&page=2"))
    assert page.select_one(".pager").text.split() == ["←", "Previous", "Page", "2", "of", "2"]


def test_an_empty_list_says_what_to_do_next(client: TestClient) -> None:
    empty = soup(client.get("/sweeps")).select_one("#sweeps-table .empty")
    assert empty is not None
    assert empty.select_one('a[href="/upload"]') is not None


def test_the_detail_page_shows_every_measured_column(client: TestClient) -> None:
    sweep_id = post_files(client, ("mini.csv", MINIMAL)).json()["sweeps"][0]["id"]
    page = soup(client.get(f"/sweeps/{sweep_id}"))
    assert page.select_one("h1").text == "mini"
    headers = [th.contents[0].strip() for th in page.select("#points-table thead th")]
    assert headers == ["Concurrency", "TPOT p50", "Output throughput", "Samples"]
    cells = [[td.text for td in tr.select("td")] for tr in page.select("#points-table tbody tr")]
    assert cells == [["1", "10", "100", "0"], ["4", "12.5", "320", "0"]]


def test_editing_metadata_through_the_form_and_the_api(client: TestClient) -> None:
    sweep_id = post_files(client, ("mini.csv", MINIMAL)).json()["sweeps"][0]["id"]
    response = client.post(
        f"/sweeps/{sweep_id}/edit",
        data={"sweep": "renamed", "hardware": "H200", "num_gpus": "2", "model": "qwen", "isl": ""},
        follow_redirects=False,
    )
    assert response.status_code == 303
    stored = client.get(f"/api/sweeps/{sweep_id}").json()
    assert (stored["name"], stored["hardware"], stored["num_gpus"]) == ("renamed", "H200", 2)
    assert stored["model"] == "qwen"
    patched = client.patch(f"/api/sweeps/{sweep_id}", json={"precision": "fp8", "osl": 512})
    assert patched.status_code == 200
    assert (patched.json()["precision"], patched.json()["osl"]) == ("fp8", 512)


def test_bad_edits_are_refused_and_change_nothing(client: TestClient) -> None:
    sweep_id = post_files(client, ("mini.csv", MINIMAL)).json()["sweeps"][0]["id"]
    bad = client.patch(f"/api/sweeps/{sweep_id}", json={"num_gpus": "many", "hardware": ""})
    assert bad.status_code == 422
    assert "num_gpus" in bad.json()["detail"]
    unknown = client.patch(f"/api/sweeps/{sweep_id}", json={"colour": "red"})
    assert unknown.status_code == 422
    assert "colour" in unknown.json()["detail"]
    stored = client.get(f"/api/sweeps/{sweep_id}").json()
    assert (stored["hardware"], stored["num_gpus"]) == ("H100", 1)


def test_deleting_removes_the_sweep_and_its_points(client: TestClient, session: Session) -> None:
    sweep_id = post_files(client, ("mini.csv", MINIMAL)).json()["sweeps"][0]["id"]
    response = client.post(f"/sweeps/{sweep_id}/delete", follow_redirects=False)
    assert response.status_code == 303
    assert count(session, Sweep) == 0
    assert point_count(session) == 0
    assert client.get(f"/api/sweeps/{sweep_id}").status_code == 404
    assert client.delete(f"/api/sweeps/{sweep_id}").status_code == 404


def test_an_unknown_sweep_is_a_404_page_and_a_404_json(client: TestClient) -> None:
    page = client.get("/sweeps/999")
    assert page.status_code == 404
    assert "sweep 999 does not exist" in soup(page).select_one("#error").text
    assert client.get("/api/sweeps/999").json()["detail"] == "sweep 999 does not exist"


def test_a_malformed_query_parameter_is_a_clear_4xx(client: TestClient) -> None:
    response = client.get("/api/sweeps?page=zero")
    assert response.status_code == 422
    assert "page" in response.json()["detail"]
    assert client.get("/sweeps?page=-1").status_code == 422


def test_healthz_reports_ok(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}


def test_the_metrics_page_and_its_json_twin_list_the_same_definitions(client: TestClient) -> None:
    page = soup(client.get("/metrics"))
    ids = [s["id"] for s in page.select("section.definition")]
    api = client.get("/api/metrics").json()["definitions"]
    assert ids == [d["id"] for d in api]
    assert {"interactivity", "slo-percentile", "slo-requests", "cost", "roofline"} <= set(ids)
    formula = page.select_one("#cost .formula").text
    assert "3600 × goodput tok/s/GPU × utilization" in formula


def test_the_detail_page_charts_latency_against_load_and_request_cdfs(client: TestClient) -> None:
    from tests.web.test_readoff_api import O9_POINTS, O9_REQUESTS

    sweep_id = post_files(client, ("o9.csv", O9_POINTS), ("o9.r.csv", O9_REQUESTS)).json()[
        "sweeps"
    ][0]["id"]
    page = soup(client.get(f"/sweeps/{sweep_id}"))
    import json

    throughput = json.loads(page.select_one("#throughput-figure").string)
    assert throughput["data"][0]["x"] == [8.0]
    assert throughput["data"][0]["y"] == [88.0]
    cdf = json.loads(page.select_one("#tpot-cdf-figure").string)["data"][0]
    # Per-request TPOT of the 6 successful requests with more than one output token, sorted:
    # 30 30 40 40 60 80 (ms); the one-token request has no TPOT and is left out, not drawn at 0.
    assert cdf["x"] == [30.0, 30.0, 40.0, 40.0, 60.0, 80.0]
    assert cdf["y"][0] == 1 / 6 and cdf["y"][-1] == 1.0
    assert page.select_one("#tpot-cdf-figure-note").text.startswith("1 of 7 successful requests")
    [latency] = json.loads(page.select_one("#latency-figure").string)["data"]
    assert (latency["name"], latency["y"]) == (
        "TPOT p50 (right axis)",
        [40.0],
    )  # the only one given
    assert latency["yaxis"] == "y2"
