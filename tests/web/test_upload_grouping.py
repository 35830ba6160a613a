"""Issue 47 items 1 and 2, issue 51 §5: results grouped as the tools write them. Files of one
configuration at different loads join one sweep on the upload page and in `paretoscope import`
alike (same sweeps, names and content hashes, in any file order), with a choice to keep them
apart; a swept setting or a parallelism layout names the sweep and is its `config`; every file
of a folder is listed as read or skipped; a stored folder uploaded again is unchanged with no
typing. Real files: SGLang's online lines, vLLM bench serve results, InferenceX agg rows."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.ingest import READ_TWICE
from app.store.models import Sweep
from tests.conftest import FIXTURES
from tests.factories import count
from tests.helpers import details_form, soup
from tests.ingest.test_inferencex import RAW8, RAW64, disagg_row
from tests.web.test_runs_and_failures import two_run_folder

ONLINE = FIXTURES / "sglang" / "datacrunch_llama_3_3_70b_online_output.jsonl"
KIMI = sorted((FIXTURES / "inferencemax").glob("agg_kimik2.5_*.json"))
SGLANG_NAME = "sglang.bench_serving · random 1024/1024 online"  # the old format names no model


def sglang_per_load() -> list[tuple[str, bytes]]:
    """SGLang's real online run, one JSONL per load as bench_serving writes it when called once
    per rate: the five random 1024/1024 lines (rates 1 … 16) as five files."""
    out = []
    for line in ONLINE.read_text().splitlines():
        row = json.loads(line)
        if row["dataset_name"] == "random":
            out.append((f"llama70b/online_r{row['request_rate']:g}.jsonl", line.encode() + b"\n"))
    return out


def bench_sweep_folder() -> list[tuple[str, bytes]]:
    """The `vllm bench sweep` folder of tests/web/test_runs_and_failures.py (max_num_seqs 4
    and 8, two runs each) with the summary.json each configuration's folder holds."""
    files = two_run_folder()
    for seqs in (4, 8):
        folder = f"exp/SERVE-max_num_seqs={seqs}-BENCH-max_concurrency=16"
        runs = [json.loads(d) for n, d in files if n.startswith(folder)]
        files.append((f"{folder}/summary.json", json.dumps(runs).encode()))
    return files


def grouping_multipart(files: list[tuple[str, bytes]]) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (n, d, "application/octet-stream")) for n, d in files]


def stage_grouped(hx_client: TestClient, files: list[tuple[str, bytes]]) -> BeautifulSoup:
    return soup(hx_client.post("/upload/stage", files=grouping_multipart(files)), 200)


def save_on_page(hx_client: TestClient, page: BeautifulSoup, **typed: str) -> BeautifulSoup:
    fields = details_form(page) | {"all.keep_hardware": "1"} | typed
    return soup(hx_client.post("/upload/confirm", data=fields), 200)


def sweeps_as_stored(session: Session) -> list[tuple[str, str, str | None, int]]:
    """(name, content hash, config, points) of every stored sweep, by name."""
    session.expire_all()
    rows = session.scalars(select(Sweep).order_by(Sweep.name)).all()
    return [(s.name, s.content_hash, s.config, len(s.points)) for s in rows]


def write_folder(root: Path, files: list[tuple[str, bytes]]) -> Path:
    for name, data in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root / files[0][0].split("/", 1)[0]


def test_sglang_files_of_one_load_each_join_one_sweep_in_the_preview(
    hx_client: TestClient,
) -> None:
    page = stage_grouped(hx_client, sglang_per_load())
    [card] = page.select("article.preview")
    title = card.select_one("h2")
    assert title is not None and title.get_text(" ", strip=True) == f"{SGLANG_NAME} 5 points"
    joined = card.select_one(".joined-files")
    assert joined is not None and joined["data-files"] == "5"
    assert joined.get_text(" ", strip=True).startswith("One sweep of 5 files: llama70b/online_r1")
    rates = [td.get_text(strip=True) for td in card.select("tbody tr td:nth-of-type(2)")]
    assert rates == ["1", "2", "4", "8", "16"]
    join = page.select_one("#grouping-join")
    assert join is not None and join.has_attr("checked")


def test_keeping_files_apart_makes_a_sweep_per_file_and_drops_details_typed_for_the_joined(
    hx_client: TestClient, session: Session
) -> None:
    page = stage_grouped(hx_client, sglang_per_load())
    fields = details_form(page) | {"s0.hardware": "H100", "s0.num_gpus": "4", "keep_apart": "1"}
    apart = soup(hx_client.post("/upload/preview", data=fields), 200)
    names = [h.get_text(" ", strip=True) for h in apart.select("article.preview h2")]
    assert len(names) == 5 and all(n.endswith(" 1 point") for n in names)
    assert apart.select_one("#grouping-apart[checked]") is not None
    # The GPUs typed for the joined sweep are not given to the first file's sweep.
    gpus = apart.select_one("#s0-num_gpus")
    assert gpus is not None and gpus.get("value", "") == ""
    every = details_form(apart) | {"all.hardware": "H100", "all.num_gpus": "4"}
    saved = save_on_page(hx_client, apart, **every)
    assert saved.select_one("#upload-summary-title") is not None
    assert count(session, Sweep) == 5


def test_web_and_cli_store_the_same_sweeps_names_and_hashes_in_any_file_order(
    hx_client: TestClient,
    session: Session,
    cli: Callable[..., int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = sglang_per_load() + bench_sweep_folder()
    page = stage_grouped(hx_client, list(reversed(files)))
    typed = {"all.hardware": "H100", "all.num_gpus": "4"}
    summary = save_on_page(hx_client, page, **typed)
    assert summary.select_one("#upload-summary-title") is not None
    web = sweeps_as_stored(session)
    assert [(name, config, points) for name, _, config, points in web] == [
        (
            "Qwen2.5-Coder-7B-Instruct · vllm bench sweep · chat · max_num_seqs=4",
            "max_num_seqs=4",
            2,
        ),
        (
            "Qwen2.5-Coder-7B-Instruct · vllm bench sweep · chat · max_num_seqs=8",
            "max_num_seqs=8",
            2,
        ),
        (SGLANG_NAME, None, 5),
    ]
    # The CLI, reading the folders in its own order, finds every one of them stored.
    sglang = write_folder(tmp_path / "a", sglang_per_load())
    sweep = write_folder(tmp_path / "b", bench_sweep_folder())
    capsys.readouterr()
    assert cli("import", sweep, sglang, "--hardware", "H100", "--num-gpus", "4") == 0
    out = capsys.readouterr().out.splitlines()
    assert sorted(line.split(":", 1)[0] for line in out if " sweep " in line) == sorted(
        f"exists  sweep {i}" for i in range(1, 4)
    )
    assert sweeps_as_stored(session) == web
    # summary.json is listed as read, its runs being the run=N.json files'.
    for seqs in (4, 8):
        folder = f"exp/SERVE-max_num_seqs={seqs}-BENCH-max_concurrency=16"
        assert f"read    {folder}/summary.json: {READ_TWICE.removeprefix('read: ')}" in out


def test_the_cli_joins_one_configuration_under_the_sweep_name_given(
    cli: Callable[..., int], session: Session, tmp_path: Path
) -> None:
    folder = write_folder(tmp_path, sglang_per_load())
    assert cli("import", folder, "--hardware", "H100", "--num-gpus", "4", "--sweep", "L70") == 0
    assert [(n, p) for n, _, _, p in sweeps_as_stored(session)] == [("L70", 5)]
    assert cli("import", folder, "--hardware", "H100", "--num-gpus", "4", "--keep-apart") == 0
    assert count(session, Sweep) == 6


def test_a_stored_folder_uploaded_again_is_prefilled_and_saved_unchanged_with_no_typing(
    hx_client: TestClient, session: Session
) -> None:
    files = bench_sweep_folder()
    first = stage_grouped(hx_client, files)
    assert len(first.select(".missing")) == 2  # hardware and GPUs asked for, once
    save_on_page(hx_client, first, **{"all.hardware": "H100", "all.num_gpus": "1"})
    before = sweeps_as_stored(session)
    again = stage_grouped(hx_client, list(reversed(files)))
    assert again.select(".missing") == []
    for i in (0, 1):
        hardware, gpus = again.select_one(f"#s{i}-hardware"), again.select_one(f"#s{i}-num_gpus")
        assert hardware is not None and hardware["value"] == "H100"
        assert gpus is not None and gpus["value"] == "1"
    notes = [p.get_text(" ", strip=True) for p in again.select("p.already-stored")]
    assert len(notes) == 2 and all("saving leaves it unchanged" in n for n in notes)
    summary = soup(hx_client.post("/upload/confirm", data=details_form(again)), 200)
    text = summary.get_text(" ", strip=True)
    assert text.startswith("2 sweeps already stored (unchanged)"), text
    assert text.count("already stored as #") == 2, text
    assert sweeps_as_stored(session) == before


def test_sweeps_typed_with_one_name_are_stored_as_one_or_refused_when_they_differ(
    hx_client: TestClient, session: Session
) -> None:
    page = stage_grouped(hx_client, sglang_per_load())
    apart = soup(hx_client.post("/upload/preview", data=details_form(page) | {"keep_apart": "1"}))
    named: dict[str, Any] = {f"s{i}.sweep": "one" for i in range(5)}
    named |= {"all.hardware": "H100", "all.num_gpus": "4"}
    preview = soup(hx_client.post("/upload/preview", data=details_form(apart) | named), 200)
    note = preview.select_one(".same-name")
    assert note is not None
    assert note.get_text(strip=True) == (
        "Sweeps 1, 2, 3, 4, 5 are all named “one”: saving stores them as one sweep."
    )
    # One of them on other GPUs cannot join: two sweeps of one name are refused.
    other = soup(
        hx_client.post("/upload/confirm", data=details_form(preview) | {"s4.num_gpus": "8"})
    )
    alert = other.select_one("#upload-preview .alert-error")
    assert alert is not None and count(session, Sweep) == 0
    assert "sweeps 1, 2, 3, 4, 5 are all named 'one', but they differ in num_gpus" in (
        alert.get_text(" ", strip=True)
    )
    saved = save_on_page(hx_client, preview)
    assert saved.select_one("#upload-summary-title") is not None
    assert [(n, p) for n, _, _, p in sweeps_as_stored(session)] == [("one", 5)]


def kimi_layout(tp: int, ep: int, dp_attention: bool) -> list[tuple[str, bytes]]:
    """The real Kimi agg rows (concurrency 32 and 64) as run on another parallelism layout."""
    out = []
    for path in KIMI:
        row = json.loads(path.read_text()) | {"tp": tp, "ep": ep}
        row["dp_attention"] = "true" if dp_attention else "false"
        out.append((path.name.replace("tp8", f"tp{tp}ep{ep}"), json.dumps(row).encode()))
    return out


def test_inferencex_parallelism_layouts_name_the_sweeps_and_are_their_config(
    client: TestClient,
) -> None:
    files = kimi_layout(8, 1, False) + kimi_layout(8, 8, True) + kimi_layout(4, 1, False)
    response = client.post("/api/sweeps", files=grouping_multipart(files))
    assert response.status_code == 201, response.text
    base = "Kimi-K2.5 · InferenceX · mi355x vllm int4 mtp · 8192/1024 · "
    by_name = {s["name"]: s for s in response.json()["sweeps"]}
    assert sorted(by_name) == [base + "DEP8", base + "TP4", base + "TP8"]
    configs = {
        name.removeprefix(base): client.get(f"/api/sweeps/{s['id']}").json()["config"]
        for name, s in by_name.items()
    }
    assert configs == {
        "DEP8": "tp=8 ep=8 dp_attention=true",
        "TP4": "tp=4 ep=1 dp_attention=false",
        "TP8": "tp=8 ep=1 dp_attention=false",
    }


def test_multi_node_layouts_of_one_gpu_split_are_named_by_their_workers_not_counted(
    client: TestClient,
) -> None:
    """Issue 51 §5: runs of 8 prefill + 16 decode GPUs as decode DEP16 × 1 and DEP8 × 2 (and
    prefill TP8 × 1) are two sweeps named by their layout, with it as their config."""
    layouts = {"dep16x1": (16, 1), "dep8x2": (8, 2)}
    files = []
    for label, (size, workers) in layouts.items():
        for conc in (8, 64):
            row = disagg_row(8, 16, RAW64 if conc == 64 else RAW8)
            row |= {"decode_tp": size, "decode_ep": size, "decode_dp_attention": "true"}
            row |= {"decode_num_workers": workers}
            files.append((f"agg_{label}_conc{conc}.json", json.dumps(row).encode()))
    response = client.post("/api/sweeps", files=grouping_multipart(files))
    assert response.status_code == 201, response.text
    names = sorted(s["name"].rsplit(" · ", 1)[-1] for s in response.json()["sweeps"])
    assert names == ["prefill TP8 × 1, decode DEP16 × 1", "prefill TP8 × 1, decode DEP8 × 2"]
    assert all("(2)" not in s["name"] for s in response.json()["sweeps"])
    configs = sorted(
        client.get(f"/api/sweeps/{s['id']}").json()["config"] for s in response.json()["sweeps"]
    )
    prefill = "prefill_tp=8 prefill_ep=1 prefill_dp_attention=false prefill_num_workers=1"
    assert configs == [
        f"{prefill} decode_tp=16 decode_ep=16 decode_dp_attention=true decode_num_workers=1",
        f"{prefill} decode_tp=8 decode_ep=8 decode_dp_attention=true decode_num_workers=2",
    ]
    page = soup(client.get(f"/sweeps/{response.json()['sweeps'][0]['id']}"), 200)
    shown = page.select_one("#meta-config dd")
    assert shown is not None and "decode_dp_attention=true" in shown.get_text()


ONE_LOAD_PER_FILE = {
    "vllm": sorted((FIXTURES / "vllm").glob("stellalee_*.json")),
    "inferencex": KIMI,
}


@pytest.mark.parametrize("tool", sorted(ONE_LOAD_PER_FILE))
def test_one_load_per_file_of_vllm_and_inferencex_stores_alike_from_the_web_and_the_cli(
    tool: str,
    hx_client: TestClient,
    session: Session,
    cli: Callable[..., int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = [(f"{tool}/{p.name}", p.read_bytes()) for p in ONE_LOAD_PER_FILE[tool]]
    page = stage_grouped(hx_client, list(reversed(files)))
    # What the files do not say is typed (InferenceX rows name their hardware and GPUs).
    typed = {"all.hardware": "H100", "all.num_gpus": "8"} if tool == "vllm" else {}
    save_on_page(hx_client, page, **typed)
    web = sweeps_as_stored(session)
    # vLLM's four rates (one file each) are one sweep beside its rate-inf baseline; InferenceX's
    # concurrency 32 and 64 rows one sweep.
    assert sorted(points for *_, points in web) == ([1, 4] if tool == "vllm" else [2])
    folder = write_folder(tmp_path, files)
    capsys.readouterr()
    assert cli("import", folder, "--hardware", "H100", "--num-gpus", "8") == 0
    out = capsys.readouterr().out
    assert out.count("exists  sweep") == len(web) and "created" not in out
    assert sweeps_as_stored(session) == web


def test_a_bench_sweep_folder_kept_apart_is_a_sweep_per_run_file_named_by_it(
    cli: Callable[..., int], session: Session, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_folder(tmp_path, bench_sweep_folder())
    capsys.readouterr()
    assert cli("import", folder, "--hardware", "H100", "--num-gpus", "1", "--keep-apart") == 0
    out = capsys.readouterr().out
    base = "Qwen2.5-Coder-7B-Instruct · vllm bench sweep · chat · max_num_seqs="
    assert [(n, p) for n, _, _, p in sweeps_as_stored(session)] == [
        (f"{base}{seqs} · run={run}", 1) for seqs in (4, 8) for run in (0, 1)
    ]
    # Each summary.json repeats its runs: read, and imported once, from the run files.
    assert out.count("read    exp/") == 2 and "summary.json" not in out.split("read")[0]
