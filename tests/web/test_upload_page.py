"""/upload: preview what each file was recognised as, fill what is missing, then save."""

from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.ingest.registry import importers
from app.store.models import Sweep
from tests.factories import MINIMAL, count

BARE = b"concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n8,14,700\n"


def test_the_form_labels_every_field(client: TestClient) -> None:
    page = BeautifulSoup(client.get("/upload").text, "html.parser")
    form = page.select_one("#upload-form")
    assert form["enctype"] == "multipart/form-data"
    assert form["action"] == "/upload/stage"
    # Files, or a whole folder (webkitdirectory): both send their files as `files`.
    assert [i["name"] for i in form.select("input")] == ["files", "files"]
    assert all(i.find_parent("label") is not None for i in form.select("input"))


def test_the_intro_names_every_format_the_registry_recognises(client: TestClient) -> None:
    page = BeautifulSoup(client.get("/upload").text, "html.parser")
    shown = [s.get_text() for s in page.select("#upload-formats strong")]
    assert shown == ["canonical CSV", *(t.name for t in importers())]
    for tool in ("vLLM bench serve", "SGLang bench_serving", "GenAI-Perf", "AIPerf", "LLMPerf",
                 "guidellm", "inference-perf", "llm-d benchmark report",
                 "InferenceX agg results", "TensorRT-LLM trtllm-bench"):  # fmt: skip
        assert tool in shown


def test_the_preview_names_the_format_and_what_is_missing(
    hx_client: TestClient, session: Session
) -> None:
    response = hx_client.post("/upload/preview", files=[("files", ("bare.csv", BARE, "text/csv"))])
    preview = BeautifulSoup(response.text, "html.parser")
    card = preview.select_one("#upload-preview article")
    assert "recognised as canonical CSV (points)" in card.text
    assert "Missing: Sweep name, Hardware, GPUs" in card.select_one(".alert-warn").text
    assert len(card.select("tbody tr")) == 2
    assert count(session, Sweep) == 0


def test_the_preview_lists_errors_with_file_row_and_column(hx_client: TestClient) -> None:
    bad = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,fast,1\n"
    response = hx_client.post("/upload/preview", files=[("files", ("bad.csv", bad, "text/csv"))])
    items = BeautifulSoup(response.text, "html.parser").select("#upload-preview .alert-error li")
    assert [li.text for li in items] == [
        "bad.csv, row 2, column 'tpot_p50_ms': 'fast' is not a number"
    ]


def test_saving_with_the_missing_fields_stores_the_sweep_and_opens_it(
    client: TestClient, session: Session
) -> None:
    response = client.post(
        "/upload",
        files=[("files", ("bare.csv", BARE, "text/csv"))],
        data={"sweep": "from-form", "hardware": "H100", "num_gpus": "8"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    sweep_id = int(response.headers["location"].rsplit("/", 1)[1])
    stored = client.get(f"/api/sweeps/{sweep_id}").json()
    assert (stored["name"], stored["hardware"], stored["num_gpus"]) == ("from-form", "H100", 8)
    assert [p["concurrency"] for p in stored["points"]] == [1, 8]


def test_saving_through_htmx_redirects_with_a_header(hx_client: TestClient) -> None:
    response = hx_client.post("/upload", files=[("files", ("mini.csv", MINIMAL, "text/csv"))])
    assert response.status_code == 204
    assert response.headers["HX-Redirect"].startswith("/sweeps/")


def test_saving_without_the_missing_fields_stores_nothing(
    client: TestClient, session: Session
) -> None:
    response = client.post("/upload", files=[("files", ("bare.csv", BARE, "text/csv"))])
    assert response.status_code == 422
    errors = BeautifulSoup(response.text, "html.parser").select(".alert-error li")
    # The page names the field by its label.
    assert "bare.csv, row 1: required column 'sweep' is missing and “Sweep name” was not given" in [
        e.text for e in errors
    ]
    assert count(session, Sweep) == 0


def test_the_form_asks_for_the_write_token_when_one_is_set(make_client, session: Session) -> None:  # type: ignore[no-untyped-def]
    client = make_client(write_token="s3cret")
    page = BeautifulSoup(client.get("/upload").text, "html.parser")
    assert page.select_one('input[name="write_token"]') is not None
    files = [("files", ("mini.csv", MINIMAL, "text/csv"))]
    assert client.post("/upload", files=files).status_code == 401
    ok = client.post("/upload", files=files, data={"write_token": "s3cret"}, follow_redirects=False)
    assert ok.status_code == 303
    assert count(session, Sweep) == 1
