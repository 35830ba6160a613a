"""The upload form on /production: scrapes stored by the service POST /api/production uses, the
stored deployment shown, refusals naming file, line and field with nothing stored; and `.prom`
files chosen on the Upload page sent there."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.prom_text import parse_exposition
from app.store.models import Deployment, ProductionWindow, Sweep
from tests.factories import count
from tests.helpers import soup
from tests.prom_stream import make_stream

STREAM = make_stream(n=1200, duration_s=600)
ORIGIN = 1_780_000_000
FIELDS = {"deployment": "chat-prod", "model": "llama-3.1-70b", "hardware": "H100", "num_gpus": "4"}


def prom_at(t: int, name: str | None = None) -> tuple[str, tuple[str, bytes, str]]:
    text = STREAM.exposition(t, scraped_at=ORIGIN + t).encode()
    return ("files", (name or f"metrics-{t}.prom", text, "text/plain"))


def post_form(client: TestClient, files: list[Any], **fields: str) -> Any:
    return client.post("/production", files=files, data=FIELDS | fields)


def problems(response: Any) -> list[str]:
    return [li.get_text(" ", strip=True) for li in soup(response).select("#production-errors li")]


def test_scrapes_uploaded_through_the_form_are_stored_as_the_api_stores_them(
    client: TestClient, session: Session
) -> None:
    form = soup(client.get("/production")).select_one("#production-form")
    assert (form["action"], form["method"], form["enctype"]) == (
        "/production",
        "post",
        "multipart/form-data",
    )
    picker = form.select_one("input[type=file][name=files]")
    assert picker.has_attr("multiple") and picker.has_attr("required")
    assert {i["name"] for i in form.select("input")} >= {
        "files", "deployment", "model", "hardware", "num_gpus", "engine", "engine_version",
        "selector", "times", "window_s",
    }  # fmt: skip

    stored = post_form(client, [prom_at(0), prom_at(300), prom_at(600)])
    assert stored.status_code == 201, stored.text
    page = soup(stored)
    summary = page.select_one("#production-stored")
    deployment = session.scalars(select(Deployment)).one()
    assert summary.select_one("a")["href"] == f"/production/{deployment.id}"
    assert summary.get_text(" ", strip=True).startswith(
        "Stored 2 windows for chat-prod (new deployment), from vllm snapshots."
    )
    assert page.select_one("#production-errors") is None
    row = [td.get_text(strip=True) for td in page.select("#deployments-table tbody tr td")]
    assert row == ["chat-prod", "llama-3.1-70b", "H100", "4", "vllm", "2"]
    assert (deployment.model, deployment.hardware, deployment.num_gpus) == (
        "llama-3.1-70b",
        "H100",
        4,
    )
    # The figures are those of the scrapes, exactly, and those the API stores from them.
    windows = client.get(f"/api/production/{deployment.id}").json()["windows"]
    mine = STREAM.finished(0, 300)
    assert windows[0]["requests"] == mine.sum()
    assert windows[0]["output_tok_s"] == STREAM.output_len[mine].sum() / 300
    assert windows[0]["tok_s_per_gpu"] == windows[0]["output_tok_s"] / 4
    twin = client.post(
        "/api/production",
        files=[prom_at(0), prom_at(300), prom_at(600)],
        data=FIELDS | {"deployment": "chat-api"},
    )
    assert twin.status_code == 201, twin.text
    by_api = client.get(f"/api/production/{twin.json()['deployment_id']}").json()["windows"]
    assert [{k: w[k] for k in w if k != "id"} for w in by_api] == [
        {k: w[k] for k in w if k != "id"} for w in windows
    ]
    # The same files again: counted, not stored twice.
    again = soup(post_form(client, [prom_at(0), prom_at(300), prom_at(600)]))
    assert "Stored 0 windows" in again.select_one("#production-stored").get_text(" ", strip=True)
    assert "2 windows already stored" in again.select_one("#production-stored").text
    assert count(session, ProductionWindow) == 4


def test_a_query_range_answer_uploaded_through_the_form_gives_the_scrapes_windows(
    client: TestClient, session: Session
) -> None:
    series: dict[tuple[str, tuple[tuple[str, str], ...]], list[list[object]]] = {}
    for t in (0, 300, 600):
        for s in parse_exposition(STREAM.exposition(t)).samples:
            series.setdefault((s.name, s.labels), []).append([ORIGIN + t, repr(s.value)])
    answer = {
        "status": "success",
        "data": {
            "resultType": "matrix",
            "result": [
                {"metric": {"__name__": name, **dict(labels)}, "values": values}
                for (name, labels), values in series.items()
            ],
        },
    }
    upload = ("files", ("range.json", json.dumps(answer).encode(), "application/json"))
    stored = post_form(client, [upload], deployment="from-range")
    assert stored.status_code == 201, stored.text
    text = soup(stored).select_one("#production-stored").get_text(" ", strip=True)
    assert text.startswith("Stored 2 windows for from-range (new deployment), from vllm range.")
    deployment = session.scalars(select(Deployment)).one()
    windows = client.get(f"/api/production/{deployment.id}").json()["windows"]
    for window, (t0, t1) in zip(windows, ((0, 300), (300, 600)), strict=True):
        mine = STREAM.finished(t0, t1)
        assert window["requests"] == mine.sum()
        assert window["output_tok_s"] == STREAM.output_len[mine].sum() / 300


def test_a_refused_upload_stores_nothing_and_names_the_file_line_and_field(
    client: TestClient, session: Session
) -> None:
    bad = ("files", ("a.prom", b'vllm:x{a="b} 1\n', "text/plain"))
    refused = post_form(client, [bad, bad], model="kept as typed")
    assert refused.status_code == 422
    assert problems(refused)[0].startswith("a.prom, row 1: label")
    assert soup(refused).select_one("#production-form input[name=model]")["value"] == (
        "kept as typed"
    )
    assert soup(refused).select_one("#production-stored") is None
    cases: list[tuple[list[Any], dict[str, str], str]] = [
        ([prom_at(300)], {}, "two scrapes"),
        ([prom_at(5000), prom_at(5300)], {}, "no traffic"),
        ([prom_at(0), prom_at(300)], {"num_gpus": "0"}, "“GPUs”: must be a whole number from 1"),
        ([prom_at(0), prom_at(300)], {"num_gpus": "2.5"}, "“GPUs”: must be a whole number"),
        ([prom_at(0), prom_at(300)], {"window_s": "nan"}, "“Window (s)”: must be a number"),
        ([prom_at(0), prom_at(300)], {"deployment": " "}, "“Deployment”: give the deployment"),
        ([prom_at(0), prom_at(300)], {"times": "1,x"}, "“Scrape times”: time 2"),
        ([prom_at(0), prom_at(300)], {"selector": 'model_name="x"'}, "match the selector"),
        ([prom_at(0), prom_at(300)], {"model": "m" * 201}, "“Model”: at most 200 characters"),
        ([], {}, "“Files”: choose two or more"),
    ]
    for files, fields, reason in cases:
        response = post_form(client, files, **fields)
        assert response.status_code == 422, (reason, response.text[:300])
        assert any(p.startswith(reason) or reason in p for p in problems(response)), (
            reason,
            problems(response),
        )
    assert count(session, Deployment) == 0 and count(session, ProductionWindow) == 0
    assert post_form(client, [prom_at(0), prom_at(300)]).status_code == 201
    clash = post_form(client, [prom_at(300), prom_at(600)], hardware="B200")
    assert clash.status_code == 409
    assert problems(clash) == ["deployment 'chat-prod' is stored with hardware 'H100', not 'B200'"]
    assert count(session, ProductionWindow) == 1


def test_the_form_needs_the_write_token_and_a_same_origin_post(
    make_client: Callable[..., TestClient], session: Session
) -> None:
    client = make_client(write_token="s3cret")
    page = soup(client.get("/production"))
    assert page.select_one("#production-form input[name=write_token]")["type"] == "password"
    assert post_form(client, [prom_at(0), prom_at(300)]).status_code == 401
    cross = client.post(
        "/production",
        files=[prom_at(0), prom_at(300)],
        data=FIELDS | {"write_token": "s3cret"},
        headers={"Origin": "http://evil.example"},
    )
    assert cross.status_code == 403
    assert count(session, Deployment) == 0
    ok = post_form(client, [prom_at(0), prom_at(300)], write_token="s3cret")
    assert ok.status_code == 201 and count(session, ProductionWindow) == 1


def test_prom_files_on_the_upload_page_are_sent_to_the_production_form(
    client: TestClient, session: Session
) -> None:
    files = [prom_at(0), prom_at(300)]
    answer = client.post("/upload/stage", files=files, headers={"HX-Request": "true"})
    assert answer.status_code == 422
    page = soup(answer)
    notice = page.select_one("#upload-telemetry")
    assert notice.select_one("a")["href"] == "/production#production-upload"
    text = notice.get_text(" ", strip=True)
    assert "metrics-0.prom, metrics-300.prom" in text and "Nothing was stored" in text
    # Not refused as a mistake pointing to curl: no error list at all.
    assert page.select_one(".alert-error") is None and "POST /api/production" not in answer.text
    # Beside a benchmark file the scrape is still sent there, the other problems listed.
    mixed = client.post(
        "/upload/stage",
        files=[prom_at(0), ("files", ("notes.bin", b"\x00\x01", "application/octet-stream"))],
        headers={"HX-Request": "true"},
    )
    mixed_page = soup(mixed)
    assert "metrics-0.prom" in mixed_page.select_one("#upload-telemetry").text
    errors = [li.get_text(strip=True) for li in mixed_page.select(".alert-error li")]
    assert [e for e in errors if "metrics-0.prom" in e] == []
    assert any(e.startswith("notes.bin") for e in errors)
    whole = soup(client.post("/upload/stage", files=files))  # without htmx: the whole page
    assert whole.select_one("#upload-result #upload-telemetry a")["href"].startswith("/production")
    assert count(session, Sweep) == 0 and count(session, Deployment) == 0
