"""POST /api/production and GET /api/production/{id}: scrapes in, windows beside a frontier out,
bad telemetry refused with its reason and nothing stored."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.numbers import fmt_percent
from app.schemas.answers.production import ProductionReport, ProductionStored
from app.store.models import Deployment, ProductionWindow
from tests.factories import count, post_files, to_csv
from tests.prom_stream import make_stream

STREAM = make_stream(n=1200, duration_s=600)
ORIGIN = 1_780_000_000
DEPLOYMENT = {
    "deployment": "chat-prod",
    "model": "llama-3.1-70b",
    "hardware": "H100",
    "num_gpus": 4,
}
# A frontier on x = 20, 50, 100 tok/s/user (TPOT p50 50, 20, 10 ms) with 2000, 500, 100 tok/s/GPU.
FRONTIER_ROWS = [
    {"sweep": "bench", "hardware": "H100", "num_gpus": 4, "model": "llama-3.1-70b",
     "concurrency": c, "tpot_p50_ms": tpot, "output_tok_s": tok_s * 4}
    for c, tpot, tok_s in ((64, 50.0, 2000.0), (16, 20.0, 500.0), (1, 10.0, 100.0))
]  # fmt: skip


def scrape_files(*times: int) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [
        (
            "files",
            (
                f"metrics-{t}.prom",
                STREAM.exposition(t, scraped_at=ORIGIN + t).encode(),
                "text/plain",
            ),
        )
        for t in times
    ]


def upload_telemetry(client: TestClient, files: list[Any], **fields: Any) -> Any:
    data = {k: str(v) for k, v in (DEPLOYMENT | fields).items()}
    return client.post("/api/production", files=files, data=data)


def test_scrapes_become_windows_read_beside_the_matching_frontier(
    client: TestClient, session: Session
) -> None:
    assert post_files(client, ("bench.csv", to_csv(FRONTIER_ROWS))).status_code == 201
    stored = upload_telemetry(client, scrape_files(0, 300, 600))
    assert stored.status_code == 201, stored.text
    body = stored.json()
    assert (body["stored_windows"], body["engine"], body["source"]) == (2, "vllm", "snapshots")
    again = upload_telemetry(client, scrape_files(0, 300, 600)).json()
    assert (again["stored_windows"], again["already_stored_windows"]) == (0, 2)

    report = client.get(
        f"/api/production/{body['deployment_id']}",
        params={"tpot_ms": 50, "attainment": 0.5, "min_efficiency": 0.9, "usd_per_gpu_hour": 2},
    ).json()
    ProductionReport.model_validate(report)  # written without validation: checked here
    ProductionStored.model_validate(body)
    assert report["frontier"]["matched"] is True and report["frontier"]["xs"] == [20.0, 50.0, 100.0]
    assert "histogram_quantile" in report["rules"]["percentiles"]
    first = report["windows"][0]
    mine = STREAM.finished(0, 300)
    assert first["requests"] == mine.sum()
    assert first["output_tok_s"] == STREAM.output_len[mine].sum() / 300
    assert first["tok_s_per_gpu"] == first["output_tok_s"] / 4
    # TPOT p50 lies in vLLM's (25, 50] ms bucket: x in [20, 40), where the staircase reads
    # 2000 at x = 20 and 500 above it: no single efficiency, the interval and why.
    assert 20 <= first["interactivity_tok_s_user"] < 50
    assert first["tpot"]["bucket_ms"] == [25.0, 50.0] and first["tpot"]["exact"] is False
    assert first["efficiency"]["value"] is None
    assert first["efficiency"]["frontier_tok_s_per_gpu"] is None
    assert first["efficiency"]["bounds"] == [
        first["tok_s_per_gpu"] / 2000,
        first["tok_s_per_gpu"] / 500,
    ]
    assert first["efficiency"]["interactivity_range"] == [20.0, 40.0]
    assert "25–50 ms bucket" in first["efficiency"]["reason"]
    assert first["usd_per_mtok"] == 2 * 1e6 / (3600 * first["tok_s_per_gpu"])
    assert set(first["percentiles"]["ttft"]) == {"p50", "p90", "p99"}
    tpot = first["slo"]["limits"]["tpot"]
    truth = (STREAM.tpot_s[mine] <= 0.05).mean()
    assert tpot["exact"] is True and tpot["lower"] == truth  # 50 ms is a bucket boundary
    assert first["slo"]["verdict"] == "pass"
    # The whole interval is below 90 % only when its upper end is.
    upper = first["efficiency"]["bounds"][1]
    assert first["flags"] == [
        "efficiency below 90 %"
        if upper < 0.9
        else "efficiency may be below 90 % (the buckets allow it)"
    ]
    assert report["flagged"] == 2
    # A frontier that starts above the window's interactivity: unknown, with the reason.
    narrow = [r | {"sweep": "narrow"} for r in FRONTIER_ROWS[1:]]
    [sweep] = post_files(client, ("narrow.csv", to_csv(narrow))).json()["sweeps"]
    far = client.get(f"/api/production/{body['deployment_id']}", params={"sweep": sweep["id"]})
    eff = far.json()["windows"][0]["efficiency"]
    assert eff["value"] is None and "outside the measured range [50, 100]" in eff["reason"]
    more = client.get(
        f"/api/production/{body['deployment_id']}", params={"percentile": ["p75", "p99.9"]}
    ).json()["windows"][0]["percentiles"]["e2el"]
    assert list(more) == ["p50", "p90", "p99", "p75", "p99.9"]
    values = [STREAM.e2el_s[mine].max() * 1000]
    assert more["p99.9"]["bucket_ms"][0] < values[0] <= (more["p99.9"]["bucket_ms"][1] or 1e12)
    listed = client.get("/api/production").json()["deployments"]
    assert [(d["name"], d["windows"]) for d in listed] == [("chat-prod", 2)]
    assert count(session, ProductionWindow) == 2


def test_bad_telemetry_is_refused_with_its_reason_and_nothing_is_stored(
    client: TestClient, session: Session
) -> None:
    cases = [
        (scrape_files(300), "two scrapes"),
        (scrape_files(5000, 5300), "no traffic"),
        ([("files", ("notes.prom", b"hello world\n", "text/plain"))], "notes.prom"),
        ([("files", ("a.prom", b'vllm:x{a="b} 1\n', "text/plain"))] * 2, "a.prom, row 1: label"),
        ([("files", ("r.json", b'{"status": "success", "data": {"resultType": "vector"}}', "x"))],
         "query_range"),
    ]  # fmt: skip
    for files, reason in cases:
        response = upload_telemetry(client, files)
        assert response.status_code == 422, response.text
        assert reason in response.json()["detail"], (reason, response.json())
    bad_selector = upload_telemetry(client, scrape_files(0, 300), selector="model_name=")
    assert bad_selector.status_code == 422 and "no vLLM" in bad_selector.json()["detail"]
    assert upload_telemetry(client, scrape_files(0, 300), num_gpus=0).status_code == 422
    nul = upload_telemetry(client, scrape_files(0, 300), selector='model_name="m\x00"')
    assert nul.status_code == 422 and "NUL" in nul.json()["detail"]
    nul_name = upload_telemetry(client, scrape_files(0, 300), deployment="a\x00b")
    assert nul_name.status_code == 422 and "NUL" in nul_name.json()["detail"]
    assert count(session, Deployment) == 0
    assert upload_telemetry(client, scrape_files(0, 300)).status_code == 201
    clash = upload_telemetry(client, scrape_files(300, 600), hardware="B200")
    assert clash.status_code == 409 and "H100" in clash.json()["detail"]
    assert count(session, ProductionWindow) == 1
    assert client.get("/api/production/999").status_code == 404
    as_sweep = post_files(client, ("metrics.prom", STREAM.exposition(300).encode()))
    assert as_sweep.status_code == 422 and "POST /api/production" in as_sweep.json()["detail"]


def test_a_live_pull_without_a_reachable_prometheus_says_why_and_stores_nothing(
    make_client: Callable[..., TestClient], session: Session
) -> None:
    body = {"deployment": "chat", "start": "2026-12-03T10:00:00Z", "end": "1796292600"}
    unset = make_client().post("/api/production/pull", json=body)
    assert unset.status_code == 422 and "PARETOSCOPE_PROMETHEUS_URL" in unset.json()["detail"]
    down = make_client(prometheus_url="http://127.0.0.1:9199", prometheus_timeout_s=2)
    answer = down.post("/api/production/pull", json=body)
    assert answer.status_code == 502 and "unreachable" in answer.json()["detail"]
    # The request's own fault is a 422 naming the field, not "Prometheus unavailable".
    backwards = down.post("/api/production/pull", json=body | {"end": "1796292000"})
    assert backwards.status_code == 422
    assert backwards.json()["detail"] == "end: the end of the range must be after its start"
    assert count(session, Deployment) == 0


def test_the_deployment_page_shows_the_windows_flags_and_charts_as_its_json_twin(
    client: TestClient,
) -> None:
    assert post_files(client, ("bench.csv", to_csv(FRONTIER_ROWS))).status_code == 201
    deployment = upload_telemetry(client, scrape_files(0, 300, 600)).json()["deployment_id"]
    params = {"tpot_ms": 50, "attainment": 0.5, "min_efficiency": 0.9, "usd_per_gpu_hour": 2}
    twin = client.get(f"/api/production/{deployment}", params=params).json()
    page = BeautifulSoup(client.get(f"/production/{deployment}", params=params).text, "html.parser")
    rows = page.select("#windows-table tbody tr")
    assert len(rows) == 2 and all("flagged" in r["class"] for r in rows)
    first = twin["windows"][0]
    low, high = first["efficiency"]["bounds"]
    assert rows[0].select_one(".eff").text.strip() == f"{fmt_percent(low)} – {fmt_percent(high)}"
    assert rows[0].select_one(".verdict").text.strip() == "pass"
    assert page.select_one("#flag-count").text.strip() == "2 windows flagged."
    overlay = json.loads(page.select_one("script#overlay-figure").string)
    assert overlay["data"][1]["y"] == [w["tok_s_per_gpu"] for w in twin["windows"]]
    assert page.select_one("#json-link")["href"].startswith(f"/api/production/{deployment}?")
    listed = BeautifulSoup(client.get("/production").text, "html.parser")
    assert listed.select_one("#deployments-table a")["href"] == f"/production/{deployment}"


def test_explore_overlays_a_deployments_windows_on_the_frontier_coloured_by_time(
    client: TestClient,
) -> None:
    [bench] = post_files(client, ("bench.csv", to_csv(FRONTIER_ROWS))).json()["sweeps"]
    deployment = upload_telemetry(client, scrape_files(0, 300, 600)).json()["deployment_id"]
    twin = client.get(f"/api/production/{deployment}").json()
    query = {"sweep": bench["id"], "picked": 1, "deployment": deployment}
    page = BeautifulSoup(client.get("/", params=query).text, "html.parser")
    figure = json.loads(page.select_one("script#pareto-figure").string)
    [overlay] = [t for t in figure["data"] if t["name"] == "production: chat-prod"]
    assert overlay["y"] == [w["tok_s_per_gpu"] for w in twin["windows"]]
    assert overlay["x"] == [w["interactivity_tok_s_user"] for w in twin["windows"]]
    assert overlay["marker"]["color"] == [0.0, 5.0]  # minutes since the first window's end
    assert page.select_one("#explore-form input[name=deployment]")["value"] == str(deployment)
    assert page.select_one("#production-overlay-note a")["href"] == f"/production/{deployment}"


def test_dollars_per_mtok_come_from_a_profile_of_the_deployments_own_gpu_only(
    client: TestClient, seeded: None
) -> None:
    deployment = upload_telemetry(client, scrape_files(0, 300))
    assert deployment.status_code == 201, deployment.text
    url = f"/api/production/{deployment.json()['deployment_id']}"
    h100 = client.get("/api/pricing", params={"hardware": "H100"}).json()["profiles"][0]
    b200 = client.get("/api/pricing", params={"hardware": "B200"}).json()["profiles"][0]
    own = client.get(url, params={"pricing": h100["id"]}).json()
    hourly = h100["hourly_cost"]["total_usd_per_gpu_hour"]
    [window] = own["windows"]
    expected = hourly * 1e6 / (3600 * window["tok_s_per_gpu"] * h100["utilization"])
    assert window["usd_per_mtok"] == pytest.approx(expected, rel=1e-12)
    assert own["price"]["name"] == h100["name"]
    other = client.get(url, params={"pricing": b200["id"]}).json()
    assert other["windows"][0]["usd_per_mtok"] is None
    assert other["windows"][0]["usd_per_mtok_reason"] == f"{b200['name']} prices B200, not H100"
    page = BeautifulSoup(
        client.get(f"/production/{deployment.json()['deployment_id']}").text, "html.parser"
    )
    assert h100["name"] in [o.text for o in page.select("select[name=pricing] option")]


def test_the_production_page_has_the_default_slo_and_the_scraped_model(
    client: TestClient, seeded: None
) -> None:
    data = {k: str(v) for k, v in DEPLOYMENT.items() if k != "model"}
    stored = client.post("/api/production", files=scrape_files(0, 300, 600), data=data)
    assert stored.status_code == 201, stored.text
    deployment = stored.json()["deployment_id"]
    url = f"/api/production/{deployment}"
    report = client.get(url).json()
    ProductionReport.model_validate(report)
    assert report["deployment"]["model"] == "m"  # the series' model_name label
    options = report["options"]
    assert (options["preset"], options["slo"], options["attainment"]) == (
        "chat-interactive",
        {"ttft": 500.0, "tpot": 40.0},
        0.9,
    )
    assert all(w["slo"] is not None for w in report["windows"])
    page = BeautifulSoup(client.get(f"/production/{deployment}").text, "html.parser")
    note = page.select_one("#slo-note").text
    assert "chat-interactive, the default" in note and "TTFT ≤ 500 ms" in note
    assert page.select_one("input[name=tpot_ms]")["value"] == "40"
    none = client.get(url, params={"preset": "none"}).json()
    assert none["options"]["slo"] == {} and none["windows"][0]["slo"] is None
    own = client.get(url, params={"tpot_ms": 50}).json()["options"]
    assert (own["preset"], own["slo"]) == (None, {"tpot": 50.0})
    bad = client.get(url, params={"preset": "nonesuch"})
    assert bad.status_code == 422 and "nonesuch" in bad.json()["detail"]


def test_a_live_pulls_share_is_marked_extrapolated_and_the_mean_is_exact(
    client: TestClient, session: Session
) -> None:
    from app.domain.prom_text import parse_exposition
    from app.domain.prom_window import windows
    from app.services.telemetry import windows as production

    rows = [r | {"tpot_mean_ms": r["tpot_p50_ms"]} for r in FRONTIER_ROWS]
    [sweep] = post_files(client, ("bench.csv", to_csv(rows))).json()["sweeps"]
    scrapes = [parse_exposition(STREAM.exposition(t), scraped_at_s=ORIGIN + t) for t in (0, 300)]
    made = windows(scrapes, num_gpus=4)
    given = production.DeploymentIn(name="pulled", num_gpus=4)
    pulled = production.store_windows(session, given, made, "live", {})
    session.commit()
    url = f"/api/production/{pulled.deployment_id}"
    report = client.get(url, params={"tpot_ms": 50, "sweep": sweep["id"], "stat": "mean"}).json()
    ProductionReport.model_validate(report)
    [window] = report["windows"]
    # 50 ms is a bucket boundary, yet the counts are increase()'s extrapolation: not exact.
    assert window["slo"]["limits"]["tpot"]["exact"] is False
    assert window["slo"]["limits"]["tpot"]["share"] == "extrapolated"
    assert "increase()" in report["share_basis"]["extrapolated"]
    mine = STREAM.finished(0, 300)
    assert window["tpot"]["exact"] is True and window["tpot"]["bucket_ms"] is None
    assert window["tpot"]["value_ms"] == pytest.approx(STREAM.tpot_s[mine].mean() * 1000, rel=1e-9)
    # The exact mean gives one efficiency: 1000 / mean TPOT lies in [20, 50): the staircase
    # reads the frontier point at 50 tok/s/user (500 tok/s/GPU).
    assert 20 <= window["interactivity_tok_s_user"] < 50
    assert window["efficiency"]["value"] == window["tok_s_per_gpu"] / 500
    snapshots = upload_telemetry(client, scrape_files(0, 300), deployment="files").json()
    shared = client.get(f"/api/production/{snapshots['deployment_id']}", params={"tpot_ms": 50})
    assert shared.json()["windows"][0]["slo"]["limits"]["tpot"]["share"] == "exact"
