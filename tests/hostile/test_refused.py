"""Issue 46 §4-6, on both databases: impossible splits and Prometheus readings refused naming
the file, row and field with nothing stored; links out of a folder never followed; MCP over
stdio answers what it cannot read; GET /mcp, two Host headers and a schema behind Alembic's
head get their refusals; an import's own warnings reach every answer that stores the file."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from app.settings import PROJECT_ROOT
from app.store.migrate import _heads
from app.store.models import Base, Deployment, ProductionWindow, Sweep
from tests.factories import count, point_count
from tests.hostile.corpus import SPLITS, Case
from tests.ingest.test_vllm import RATE, save_detailed, with_empty_streams
from tests.web.test_production_api import ORIGIN, STREAM, scrape_files, upload_telemetry

NEVER_ADDS_UP = "prefill and decode GPUs must add up to it"
SPLIT_AT: dict[str, tuple[int | None, str]] = {
    "split_100_100.csv": (2, "the split 100P + 100D is 200 GPUs, but the deployment has 8"),
    "split_point.csv": (3, "point at concurrency 8: the split 4P + 12D is 16 GPUs, but the "),
    "split_form.json": (None, "the split 100P + 100D is 200 GPUs, but the deployment has 8"),
}


def nothing_stored(session: Session) -> bool:
    session.expire_all()
    counts = (count(session, Sweep), point_count(session), count(session, Deployment))
    return counts == (0, 0, 0) and count(session, ProductionWindow) == 0


@pytest.mark.parametrize("case", SPLITS, ids=[c.id for c in SPLITS])
def test_a_split_that_does_not_add_up_to_the_gpus_is_a_422_naming_file_row_and_field(
    client: TestClient, session: Session, case: Case
) -> None:
    response = client.post(
        "/api/sweeps",
        files=[("files", (case.filename, case.payload(), "application/octet-stream"))],
        data=case.fields,
    )
    assert response.status_code == 422, response.text
    [error] = response.json()["errors"]
    row, message = SPLIT_AT[case.filename]
    assert (error["file"], error["row"], error["column"]) == (
        case.filename,
        row,
        "num_prefill_gpus",
    )
    assert error["message"].startswith(message) and error["message"].endswith(NEVER_ADDS_UP)
    assert nothing_stored(session)


def test_a_split_that_adds_up_is_stored_and_one_given_on_the_upload_page_is_checked_too(
    client: TestClient, session: Session
) -> None:
    """The staged path (the upload page's) applies each sweep's own details, then checks."""
    good = SPLITS[0].payload().replace(b",100,100", b",4,4")
    stored = client.post("/api/sweeps", files=[("files", ("split_4_4.csv", good))])
    assert stored.status_code == 201, stored.text
    staged = client.post("/api/uploads", files=[("files", ("run.json", SPLITS[2].payload()))])
    token = staged.json()["staging"]
    details = {"hardware": "H100", "num_gpus": "8", "num_prefill_gpus": "6", "num_decode_gpus": "6"}
    refused = client.post(f"/api/uploads/{token}", json={"details": details})
    assert refused.status_code == 422, refused.text
    assert refused.json()["errors"][0]["message"].startswith("the split 6P + 6D is 12 GPUs")
    assert count(session, Sweep) == 1


def exposition(t: int, change: Callable[[list[str]], None]) -> bytes:
    lines = STREAM.exposition(t, scraped_at=ORIGIN + t).splitlines()
    change(lines)
    return ("\n".join(lines) + "\n").encode()


def _set(line: int, value: str) -> Callable[[list[str]], None]:
    def change(lines: list[str]) -> None:
        lines[line - 1] = lines[line - 1].rsplit(" ", 1)[0] + " " + value

    return change


def _duplicate(lines: list[str]) -> None:
    lines.insert(148, lines[147].rsplit(" ", 1)[0] + " 12.0")  # right after line 148


def matrix(*series: tuple[dict[str, str], list[list[Any]]]) -> bytes:
    result = [{"metric": metric, "values": values} for metric, values in series]
    doc = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    return json.dumps(doc).encode()


RUNNING = {"__name__": "vllm:num_requests_running", "model_name": "m"}
PROM_CASES = {
    # The counter at -1 after 0 read as a reset: -1 token over 60 s was -0.0167 output tok/s.
    "negative counter": (
        exposition(300, _set(148, "-1")),
        148,
        "vllm:generation_tokens_total",
        'vllm:generation_tokens_total{engine="0", model_name="m"} is -1: a count is never negative',
    ),
    "negative running gauge": (
        exposition(300, _set(154, "-5")),
        154,
        "vllm:num_requests_running",
        'vllm:num_requests_running{engine="0", model_name="m"} is -5: a gauge of requests is '
        "never negative",
    ),
    "duplicate series with another value": (
        exposition(300, _duplicate),
        149,
        "vllm:generation_tokens_total",
        'vllm:generation_tokens_total{engine="0", model_name="m"} is given twice in one '
        "scrape: 98017 on line 148 and 12 here",
    ),
    "range answer with a negative gauge": (
        matrix((RUNNING, [[ORIGIN, "-5"]])),
        None,
        "vllm:num_requests_running",
        'vllm:num_requests_running{model_name="m"} is -5: a gauge of requests is never negative',
    ),
    "range answer with one series twice": (
        matrix((RUNNING, [[ORIGIN, "3"]]), (RUNNING, [[ORIGIN, "4"]])),
        None,
        "vllm:num_requests_running",
        'vllm:num_requests_running{model_name="m"} is given twice in one scrape: 3 and 4 here',
    ),
}


@pytest.mark.parametrize("name", PROM_CASES)
def test_an_impossible_prometheus_reading_is_a_422_naming_file_line_and_metric(
    client: TestClient, session: Session, name: str
) -> None:
    data, line, metric, message = PROM_CASES[name]
    first = scrape_files(0)
    files = [*first, ("files", ("bad.prom", data, "text/plain"))]
    if line is None:  # a range answer is uploaded alone
        files = [("files", ("bad.prom", data, "application/json"))]
    response = upload_telemetry(client, files)
    assert response.status_code == 422, response.text
    [error] = response.json()["errors"]
    assert error == {"file": "bad.prom", "row": line, "column": metric, "message": message}
    assert nothing_stored(session)


def test_sound_scrapes_with_repeated_equal_series_are_still_stored(client: TestClient) -> None:
    def repeat(lines: list[str]) -> None:
        lines.insert(148, lines[147])

    files = [*scrape_files(0), ("files", ("same.prom", exposition(300, repeat), "text/plain"))]
    assert upload_telemetry(client, files).status_code == 201


def folder_with_links(root: Path) -> Path:
    """run/ with a result file, a link to a file outside run/ and a link to one inside."""
    outside, run = root / "outside", root / "run"
    outside.mkdir()
    (run / "inner").mkdir(parents=True)
    private = b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s\n"
    (outside / "private.csv").write_bytes(private + b"private,H100,8,m,4,12.5,400\n")
    (run / "inner" / "own.csv").write_bytes(private + b"own,H100,8,m,4,12.5,400\n")
    (run / "private.csv").symlink_to("../outside/private.csv")
    (run / "absolute.csv").symlink_to(outside / "private.csv")
    (run / "again.csv").symlink_to("inner/own.csv")
    return run


def test_the_cli_skips_a_link_out_of_the_folder_and_lists_it(
    cli: Callable[..., int],
    session: Session,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = folder_with_links(tmp_path)
    assert cli("import", run) == 0
    out = capsys.readouterr().out
    reason = "a link to a file outside the folder, not followed"
    assert f"skipped run/private.csv (a link out of the folder): {reason}" in out
    assert f"skipped run/absolute.csv (a link out of the folder): {reason}" in out
    session.expire_all()
    # The inside link reads the same content as the file it names: one sweep, never "private".
    assert [s.name for s in session.query(Sweep).all()] == ["own"]


def test_a_folder_holding_only_a_link_out_of_it_imports_nothing(
    cli: Callable[..., int],
    session: Session,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = folder_with_links(tmp_path)
    for name in ("again.csv", "inner/own.csv", "absolute.csv"):
        (run / name).unlink()
    assert cli("import", run) == 2
    err = capsys.readouterr().err
    assert "run/private.csv (a link out of the folder): a link to a file outside the folder" in err
    assert nothing_stored(session)


def test_mcp_over_stdio_answers_a_parse_error_to_every_line_it_cannot_read(
    database_url: str, session: Session, tmp_path: Path
) -> None:
    unreadable = [
        '{"jsonrpc":"2.0","id":1,"method":"ping"',  # truncated
        "[" * 100_000 + "]" * 100_000,  # 100,000 deep
        '{"jsonrpc":"2.0","id":' + "9" * 5_000 + ',"method":"ping"}',  # a 5,000-digit id
        "\udcff not text",
        "",
    ]
    invalid = ["[1, 2]", '{"a": 1}', '"ping"']
    lines = [*unreadable, *invalid, '{"jsonrpc":"2.0","id":7,"method":"ping"}']
    env = {**os.environ, "PARETOSCOPE_DATABASE_URL": database_url, "PYTHONPATH": str(PROJECT_ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    assert server.stdin is not None and server.stdout is not None
    # stdin stays open until every answer is read: at end of input the server stops, and a
    # request still in flight then may go unanswered.
    server.stdin.write("\n".join(lines).encode("utf-8", "surrogateescape") + b"\n")
    server.stdin.flush()
    deadline = time.monotonic() + 60
    output = b""
    try:
        while output.count(b"\n") < len(lines) and time.monotonic() < deadline:
            ready, _, _ = select.select([server.stdout], [], [], 1.0)
            if ready:
                chunk = os.read(server.stdout.fileno(), 65536)
                assert chunk, "the server closed stdout"
                output += chunk
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    answers = [json.loads(line) for line in output.decode().splitlines()]
    codes = [(a.get("id"), a.get("error", {}).get("code")) for a in answers]
    assert codes == [
        *[(None, -32700)] * len(unreadable),
        *[(None, -32600)] * len(invalid),
        (7, None),  # and it answers on
    ]
    assert answers[-1] == {"jsonrpc": "2.0", "id": 7, "result": {}}
    assert b"9999" not in output  # the input is never echoed
    assert nothing_stored(session)


def test_get_on_mcp_is_a_405_for_any_origin_never_an_idle_stream(
    make_client: Callable[..., TestClient],
) -> None:
    http = make_client(mcp_http=True)
    accept = {"accept": "text/event-stream, application/json"}
    for origin in ({}, {"origin": "http://evil.example"}):
        response = http.get("/mcp", headers={**accept, **origin})
        assert (response.status_code, response.headers["allow"]) == (405, "POST")
        assert response.json()["detail"].startswith("The MCP endpoint answers POST only")
    # No session to end either; a cross-site DELETE is refused as every cross-site write is.
    assert http.delete("/mcp", headers=accept).status_code == 405
    assert http.delete("/mcp", headers={**accept, "origin": "http://evil.example"}).status_code == (
        403
    )


def test_two_host_headers_are_a_400_and_nothing_is_stored(
    client: TestClient, session: Session
) -> None:
    good = SPLITS[0].payload().replace(b",100,100", b",4,4")
    for hosts in (["testserver", "evil.example"], ["testserver", "testserver"]):
        response = client.post(
            "/api/sweeps",
            files=[("files", ("good.csv", good))],
            headers=[("host", host) for host in hosts],
        )
        assert response.status_code == 400
        assert response.json()["detail"].startswith("A request names one host")
        assert nothing_stored(session)
    assert client.get("/api/sweeps").status_code == 200


def test_healthz_is_503_while_the_schema_is_not_at_alembic_head(
    client: TestClient, session: Session
) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    [head] = sorted(_heads())
    session.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    session.commit()
    try:
        response = client.get("/healthz")
    finally:
        session.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": head})
        session.commit()
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "database": "schema_not_at_head",
        "revision": "older",
    }
    assert client.get("/healthz").status_code == 200


# Dropping every table of the shared Postgres database would take it from the tests beside.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_healthz_is_503_on_a_database_whose_tables_were_dropped(
    client: TestClient, engine: Engine
) -> None:
    assert client.get("/healthz").status_code == 200
    Base.metadata.drop_all(engine)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE alembic_version"))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["revision"] == "none (no tables)"


def test_the_old_vllm_empty_stream_warning_is_in_every_answer_that_stores_the_file(
    client: TestClient, cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.dumps(with_empty_streams(save_detailed(RATE[1.0]))).encode()
    fields = {"hardware": "H100", "num_gpus": "1"}
    created = client.post("/api/sweeps", files=[("files", ("old.json", data))], data=fields)
    again = client.post("/api/sweeps", files=[("files", ("old.json", data))], data=fields)
    assert (created.status_code, again.status_code) == (201, 200)
    name = created.json()["sweeps"][0]["name"]
    expected = f"{name}: 3 requests counted as completed returned an empty stream"
    for answer in (created, again):
        assert sum(w.startswith(expected) for w in answer.json()["warnings"]) == 1
    path = tmp_path / "old.json"
    path.write_bytes(data)
    assert cli("import", path, "--hardware", "H100", "--gpus", "1") == 0
    assert f"warning: {expected}" in capsys.readouterr().err


def test_an_edit_that_breaks_the_split_is_a_422_and_changes_nothing(
    client: TestClient, session: Session
) -> None:
    good = SPLITS[0].payload().replace(b",100,100", b",4,4")
    [sweep] = client.post("/api/sweeps", files=[("files", ("split.csv", good))]).json()["sweeps"]
    url = f"/api/sweeps/{sweep['id']}"
    for body in ({"num_gpus": 4}, {"num_prefill_gpus": 100, "num_decode_gpus": 100}):
        response = client.patch(url, json=body)
        assert response.status_code == 422, response.text
        assert response.json()["errors"][0]["column"] == "num_prefill_gpus"
    stored = client.get(url).json()
    assert (stored["num_gpus"], stored["num_prefill_gpus"], stored["num_decode_gpus"]) == (8, 4, 4)
    moved = client.patch(url, json={"num_gpus": 12, "num_decode_gpus": 8})
    assert (moved.status_code, moved.json()["num_gpus"]) == (200, 12)
