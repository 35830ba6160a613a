"""Folders as the tools write them: result files beside side files (the command line, logs, a
README, plots, a summary of no known format). The result files import, every other file is
listed as skipped with why, through the API, the upload page and the CLI, on both databases;
only an upload without any result file is refused, and a broken result file still refuses all."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.cli import main
from app.ingest import IngestError, UploadFile, parse_upload_files
from app.settings import get_settings
from app.store.models import Sweep
from tests.conftest import FIXTURES
from tests.factories import count
from tests.helpers import soup

VLLM = FIXTURES / "vllm"
RATE_FILES = sorted(VLLM.glob("*qps*.json"))[:4]  # the rate sweep 1, 2, 4, 8 req/s
KUBECON = FIXTURES / "inference-perf" / "kubecon-na-2025-vllm"
LLMPERF = FIXTURES / "llmperf"
FIELDS = {"hardware": "H100", "num_gpus": "1"}
# What a results folder holds beside the results (written by this test, not fixtures).
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
SIDE_FILES: dict[str, bytes] = {
    "bench.commands": b"vllm bench serve --model Qwen/Qwen2.5-Coder-7B-Instruct "
    b"--request-rate 1 --num-prompts 150 --save-result\n",
    "server.log": b"INFO 07-07 09:39:20 [api_server.py:1880] Starting vLLM API server 0 on "
    b"http://0.0.0.0:8000\n",
    "README.md": b"# Qwen2.5-Coder-7B rate sweep\n\nFour rates, 150 prompts each.\n",
    "ttft_vs_rate.png": PNG,
    "benchmark_results.json": b'{"model": "Qwen2.5-Coder-7B-Instruct", "runs": '
    b'[{"qps": 1.0, "output_tok_s": 120.42}, {"qps": 8.0, "output_tok_s": 860.1}]}\n',
}
# A folder chosen on the page arrives with each file named by its path in the folder (Chromium
# sends `webkitRelativePath` as the file name), so a skipped file is named with its folder.
# Files read and recognised as no result come first, then the ones skipped by their name alone
# (logs, Markdown, images: never read).
SKIPPED = [
    {"file": "qwen-rates/bench.commands", "reason": "not a result file: skipped"},
    {"file": "qwen-rates/benchmark_results.json", "reason": "not a result file: skipped"},
    {"file": "qwen-rates/server.log", "reason": "not a result file: skipped"},
    {"file": "qwen-rates/README.md", "reason": "not a result file: skipped"},
    {"file": "qwen-rates/ttft_vs_rate.png", "reason": "not a result file: skipped"},
]
UNREAD = "not a result file (logs, text, Markdown, images, HTML and hidden files are not read)"
RATE_SWEEP = ("Qwen2.5-Coder-7B-Instruct · vllm bench serve · rate sweep 2026-07-07", 4)


def folder_files(
    paths: list[Path], side: dict[str, bytes] = SIDE_FILES, folder: str = "qwen-rates"
) -> list[tuple[str, tuple[str, bytes, str]]]:
    """The files of a folder as the page's folder choice sends them (each named by its path
    from the folder chosen): results, then side files."""
    files = [(p.name, p.read_bytes()) for p in paths] + list(side.items())
    return [("files", (f"{folder}/{n}", data, "application/octet-stream")) for n, data in files]


def zipped_folder(folder: str, paths: list[Path], side: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for p in paths:
            archive.writestr(f"{folder}/{p.name}", p.read_bytes())
        for name, data in side.items():
            archive.writestr(f"{folder}/{name}", data)
        archive.writestr(f"__MACOSX/{folder}/._README.md", b"\x00\x05\x16\x07")
    return buffer.getvalue()


def skipped_on_page(page: BeautifulSoup) -> list[str]:
    return [li.get_text() for li in page.select("#skipped-files li")]


def test_four_vllm_results_with_five_side_files_import_and_list_each_skipped_file(
    client: TestClient, session: Session
) -> None:
    response = client.post("/api/sweeps", files=folder_files(RATE_FILES), data=FIELDS)
    assert response.status_code == 201, response.text
    body = response.json()
    assert [(s["name"], s["points"]) for s in body["sweeps"]] == [RATE_SWEEP]
    assert body["skipped"] == SKIPPED
    assert count(session, Sweep) == 1


def test_a_zip_of_a_fixture_folder_with_side_files_lists_members_read_and_unread(
    client: TestClient,
) -> None:
    data = zipped_folder("qwen-rates", [*RATE_FILES, VLLM / "SOURCES.md"], SIDE_FILES)
    response = client.post(
        "/api/sweeps", files=[("files", ("qwen-rates.zip", data, "application/zip"))], data=FIELDS
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert [(s["name"], s["points"]) for s in body["sweeps"]] == [RATE_SWEEP]
    # Members read and recognised as no result first, then the ones skipped by their name
    # without being read (Markdown, logs, images, macOS metadata).
    assert body["skipped"] == [
        {
            "file": "qwen-rates.zip/qwen-rates/bench.commands",
            "reason": "not a result file: skipped",
        },
        {
            "file": "qwen-rates.zip/qwen-rates/benchmark_results.json",
            "reason": "not a result file: skipped",
        },
        {"file": "qwen-rates.zip/qwen-rates/SOURCES.md", "reason": "not a result file: skipped"},
        {"file": "qwen-rates.zip/qwen-rates/server.log", "reason": "not a result file: skipped"},
        {"file": "qwen-rates.zip/qwen-rates/README.md", "reason": "not a result file: skipped"},
        {
            "file": "qwen-rates.zip/qwen-rates/ttft_vs_rate.png",
            "reason": "not a result file: skipped",
        },
        {
            "file": "qwen-rates.zip/__MACOSX/qwen-rates/._README.md",
            "reason": "not a result file (macOS metadata): skipped",
        },
    ]


@pytest.mark.parametrize(
    ("folder", "sweeps", "skipped"),
    [
        (
            KUBECON,
            [("Meta-Llama-3-8B-Instruct · inference-perf · constant load, linear sweep", 7)],
            [s["file"].split("/")[1] for s in SKIPPED],
        ),
        (
            LLMPERF,
            [
                ("Llama-2-70b-chat-hf · LLMPerf · anyscale", 1),
                ("llama-2-70b-chat · LLMPerf · together", 1),
            ],
            ["SOURCES.md", *(s["file"].split("/")[1] for s in SKIPPED)],
        ),
    ],
    ids=["inference-perf-stages-summaries-config", "llmperf"],
)
def test_real_result_folders_with_side_files_import_their_results(
    client: TestClient, folder: Path, sweeps: list[tuple[str, int]], skipped: list[str]
) -> None:
    # inference-perf's config.yaml, summary and Prometheus files are its own: none is skipped.
    paths = sorted(p for p in folder.iterdir() if p.suffix != ".md")
    files = folder_files([*paths, *folder.glob("*.md")], folder=folder.name)
    response = client.post("/api/sweeps", files=files, data=FIELDS)
    assert response.status_code == 201, response.text
    body = response.json()
    assert [(s["name"], s["points"]) for s in body["sweeps"]] == sweeps
    assert sorted(s["file"] for s in body["skipped"]) == sorted(
        f"{folder.name}/{n}" for n in skipped
    )


def test_an_upload_with_no_result_file_is_refused_naming_each_file_and_why(
    client: TestClient, session: Session
) -> None:
    response = client.post(
        "/api/sweeps", files=folder_files([VLLM / "SOURCES.md"], {"plot.png": PNG})
    )
    assert response.status_code == 422
    errors = [(e["file"], e["message"]) for e in response.json()["errors"]]
    assert errors == [
        ("(upload)", "none of these 2 files is a result file; nothing was stored"),
        ("qwen-rates/SOURCES.md", UNREAD),
        ("qwen-rates/plot.png", UNREAD),
    ]
    assert count(session, Sweep) == 0


def test_a_broken_result_file_among_side_files_still_refuses_the_whole_upload(
    client: TestClient, session: Session
) -> None:
    broken = RATE_FILES[1].read_bytes().replace(b'"completed": 150', b'"completed": "many"')
    files = folder_files([RATE_FILES[0]]) + [
        ("files", (RATE_FILES[1].name, broken, "application/json"))
    ]
    response = client.post("/api/sweeps", files=files, data=FIELDS)
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["file"] == RATE_FILES[1].name and "'completed'" in error["message"]
    assert count(session, Sweep) == 0


def test_the_staged_upload_api_lists_skipped_files_in_its_preview_and_its_answer(
    client: TestClient,
) -> None:
    staged = client.post("/api/uploads", files=folder_files(RATE_FILES))
    assert staged.status_code == 201, staged.text
    assert staged.json()["skipped"] == SKIPPED
    token = staged.json()["staging"]
    again = client.post(f"/api/uploads/{token}/preview", json={"details": FIELDS})
    assert again.status_code == 200, again.text
    assert again.json()["skipped"] == SKIPPED
    saved = client.post(f"/api/uploads/{token}", json={"details": FIELDS})
    assert saved.status_code == 201, saved.text
    assert saved.json()["skipped"] == SKIPPED
    assert [(s["name"], s["points"]) for s in saved.json()["sweeps"]] == [RATE_SWEEP]


def test_the_upload_page_offers_a_folder_and_lists_skipped_files_in_preview_and_summary(
    hx_client: TestClient, session: Session
) -> None:
    form = soup(hx_client.get("/upload")).select_one("#upload-form")
    assert form is not None
    assert form.select_one("input#upload-folder[type=file][name=files][webkitdirectory]")
    assert form.select_one("input[type=file][name=files][multiple]:not([webkitdirectory])")
    page = soup(hx_client.post("/upload/stage", files=folder_files(RATE_FILES)))
    expected = [f"{s['file']}: {s['reason']}" for s in SKIPPED]
    assert skipped_on_page(page) == expected
    assert page.select_one("#upload-preview .alert-error") is None
    details = page.select_one("#details-form")
    assert details is not None
    fields = {  # what a browser sends: unchecked radios and boxes are not sent
        i["name"]: i.get("value", "")
        for i in details.select("input[name]")
        if i.get("type") not in ("radio", "checkbox") or i.has_attr("checked")
    }
    # The test database's catalog is empty: H100 is kept as typed, as the page asks.
    fields.update({"s0.hardware": "H100", "s0.num_gpus": "1", "all.keep_hardware": "1"})
    summary = soup(hx_client.post("/upload/confirm", data=fields))
    assert (
        summary.select_one("#upload-summary-title")
        .get_text(" ", strip=True)
        .startswith("Saved 1 new sweep")
    )
    assert skipped_on_page(summary) == expected
    assert count(session, Sweep) == 1


def test_the_upload_page_refuses_files_none_of_which_is_a_result_naming_each(
    hx_client: TestClient,
) -> None:
    response = hx_client.post("/upload/stage", files=folder_files([], SIDE_FILES))
    assert response.status_code == 422
    page = soup(response)
    alert = page.select_one("#upload-preview .alert-error")
    assert alert is not None
    assert alert.strong.get_text() == "Nothing was stored."
    items = [li.get_text() for li in alert.select("li")]
    assert items[0] == "(upload): none of these 5 files is a result file; nothing was stored"
    assert [i.split(":")[0] for i in items[1:]] == [s["file"] for s in SKIPPED]
    assert items[2].startswith(
        "qwen-rates/benchmark_results.json: not a recognised result file; expected one of: "
        "canonical CSV, "
    )
    assert items[5] == f"qwen-rates/ttft_vs_rate.png: {UNREAD}"


def run_cli(database_url: str, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    try:
        return main(["import", *args])
    finally:
        get_settings.cache_clear()


def test_the_cli_imports_a_folder_and_lists_the_files_it_skipped(
    database_url: str,
    session: Session,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    side = tmp_path / "notes"
    side.mkdir()
    for name, data in SIDE_FILES.items():
        (side / name).write_bytes(data)
    (side / ".hidden").mkdir()
    (side / ".hidden" / "state.json").write_bytes(b"{}")
    status = run_cli(
        database_url, monkeypatch, str(VLLM), str(side), "--hardware", "H100", "--num-gpus", "1"
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out.splitlines()[2:] == [
        "skipped notes/bench.commands: not a result file",
        "skipped notes/benchmark_results.json: not a result file",
        "skipped vllm/SOURCES.md: not a result file",
        "skipped notes/.hidden/: not a result file (hidden folder)",
        "skipped notes/README.md: not a result file",
        "skipped notes/server.log: not a result file",
        "skipped notes/ttft_vs_rate.png: not a result file",
    ]
    assert [line.split(": ", 1)[1] for line in out.splitlines()[:2]] == [
        "Qwen2.5-Coder-7B-Instruct · vllm bench serve · rate sweep 2026-07-07 (4 points)",
        "Qwen2.5-Coder-7B-Instruct · vllm bench serve · baseline_burstgpt (1 point)",
    ]
    assert count(session, Sweep) == 2


def test_the_cli_refuses_a_folder_with_no_result_file_naming_each_file(
    database_url: str,
    session: Session,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    side = tmp_path / "notes"
    side.mkdir()
    for name, data in SIDE_FILES.items():
        (side / name).write_bytes(data)
    status = run_cli(database_url, monkeypatch, str(side), "--hardware", "H100")
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert lines[0] == "error: nothing was imported"
    assert lines[1] == "  (upload): none of these 5 files is a result file; nothing was stored"
    assert [line.split(":")[0].strip() for line in lines[2:]] == [
        "notes/bench.commands",
        "notes/benchmark_results.json",
        "notes/README.md",
        "notes/server.log",
        "notes/ttft_vs_rate.png",
    ]
    assert count(session, Sweep) == 0


def test_side_files_are_never_parsed_to_tell_they_are_side_files(client: TestClient) -> None:
    # Each would be refused if it were read as JSON or YAML: a log opening like a JSON list,
    # a billion-laughs YAML in a README, a command file of 100,000 opening brackets.
    laughs = "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9))
    side = {
        "server.log": b"[INFO] 2026-07-07 09:39:20 Starting vLLM API server\n" * 1000,
        "README.md": ('a0: &a0 "lol"\n' + laughs).encode(),
        "run.commands": b"[" * 100_000,
    }
    response = client.post("/api/sweeps", files=folder_files(RATE_FILES, side), data=FIELDS)
    assert response.status_code == 201, response.text
    assert [(s["name"], s["points"]) for s in response.json()["sweeps"]] == [RATE_SWEEP]
    assert response.json()["skipped"] == [
        {"file": f"qwen-rates/{name}", "reason": "not a result file: skipped"}
        for name in ("run.commands", "server.log", "README.md")
    ]


def test_a_zip_of_many_plots_names_a_hundred_skipped_and_a_refusal_lists_fifty() -> None:
    # 300 plots and the zip's macOS metadata entry.
    plots = {f"plot{i:03}.png": PNG for i in range(300)}
    data = zipped_folder("runs", RATE_FILES[:1], plots)
    typed = {"hardware": "H100", "num_gpus": 1}
    upload = parse_upload_files([UploadFile("runs.zip", data)], typed)
    assert [s.point_count for s in upload.sweeps] == [1]
    assert len(upload.skipped) == 101
    assert str(upload.skipped[0]) == "runs.zip/runs/plot000.png: not a result file: skipped"
    assert str(upload.skipped[-1]) == "(201 more files): not result files: skipped"
    with pytest.raises(IngestError) as refused:
        parse_upload_files([UploadFile("plots.zip", zipped_folder("runs", [], plots))], typed)
    messages = [str(e) for e in refused.value.errors]
    # A refusal lists 50 problems (the lead and 49 files), then counts the 252 files not named.
    assert len(messages) == 51
    assert messages[0] == "(upload): none of these 301 files is a result file; nothing was stored"
    assert messages[49].startswith("plots.zip/runs/plot048.png: not a result file")
    assert messages[-1] == "(upload): and 252 more of the same kind"


def test_an_archive_inside_an_archive_is_skipped_unopened_and_named_so() -> None:
    inner = zipped_folder("old", RATE_FILES[1:2], {})
    typed = {"hardware": "H100", "num_gpus": 1}
    upload = parse_upload_files(
        [UploadFile("runs.zip", zipped_folder("runs", RATE_FILES[:1], {"old.zip": inner}))], typed
    )
    assert [s.point_count for s in upload.sweeps] == [1]
    assert [str(s) for s in upload.skipped[:1]] == [
        "runs.zip/runs/old.zip: not a result file (an archive inside an archive is not opened): "
        "skipped"
    ]
    with pytest.raises(IngestError) as refused:
        parse_upload_files(
            [UploadFile("outer.zip", zipped_folder("runs", [], {"old.zip": inner}))], typed
        )
    assert str(refused.value.errors[1]) == (
        "outer.zip/runs/old.zip: an archive inside an archive is not opened; upload it on its own"
    )
