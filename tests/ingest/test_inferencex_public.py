"""The public InferenceX record offline (issue 51): read-API rows, the app's supplemental rows and
the weekly dump's tables, each dated run a sweep named by its date and run id."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.ingest import IngestError, ParsedSweep, UploadFile, parse_upload, parse_upload_files
from tests.helpers import upload_ids

PUBLIC_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "inferencex"
API = "api_benchmarks_llama70b_h100_tp2.json"
SUPPLEMENTAL = "supplemental-bmk.json"
DUMP_TABLES = ("benchmark_results.json", "configs.json", "workflow_runs.json", "availability.json")
LLAMA = "llama70b · InferenceX · h100 vllm fp8 · 1024/1024 · TP2"
RUNS = (
    ("2026-03-01", "22000000101"),
    ("2026-03-08", "22000000202"),
    ("2026-03-15", "22000000303"),
)


def public_bytes(name: str) -> bytes:
    return (PUBLIC_DIR / name).read_bytes()


def public_rows(name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(public_bytes(name))
    return rows


def parse_public(*names: str) -> list[ParsedSweep]:
    return parse_upload([UploadFile(Path(n).name, public_bytes(n)) for n in names], {})


def dump_files() -> list[UploadFile]:
    return [UploadFile(n, public_bytes(f"dump/{n}")) for n in DUMP_TABLES]


def test_api_rows_of_one_configuration_on_three_dates_are_three_sweeps_named_by_date_and_run() -> (
    None
):
    sweeps = parse_public(API)
    assert [s.name for s in sweeps] == [f"{LLAMA} · {d} · run {r}" for d, r in RUNS]
    for sweep, (date, run) in zip(sweeps, RUNS, strict=True):
        assert sweep.meta["measured_at"] == dt.date.fromisoformat(date)
        assert sweep.meta["run_id"] == run
        assert sweep.meta["run_url"] == (
            f"https://github.com/SemiAnalysisAI/InferenceX/actions/runs/{run}/attempts/1"
        )
        assert sweep.meta["image"] == "vllm/vllm-openai:v0.18.0"
        assert sweep.meta["engine_version"] == "0.18.0"
        assert sweep.meta["source_kind"] == "public"
        assert (sweep.meta["hardware"], sweep.meta["num_gpus"]) == ("H100", 2)
        assert "(2)" not in sweep.name


def test_each_api_point_equals_the_rows_own_figures_back_in_ms_and_per_deployment() -> None:
    rows = [r for r in public_rows(API) if r["date"] == "2026-03-08"]
    sweep = parse_public(API)[1]
    assert [p.values["concurrency"] for p in sweep.points] == [r["conc"] for r in rows]
    for point, row in zip(sweep.points, rows, strict=True):
        m = row["metrics"]
        assert point.values["output_tok_s"] == m["output_tput_per_gpu"] * 2
        assert point.values["total_tok_s"] == m["tput_per_gpu"] * 2
        assert point.values["ttft_p99_ms"] == m["p99_ttft"] * 1000
        assert point.values["tpot_p50_ms"] == m["median_tpot"] * 1000
        assert point.values["tpot_p90_ms"] == m["p90_tpot"] * 1000
        assert point.extra["median_intvty"] == m["median_intvty"]
        assert "date" not in point.extra and "run_url" not in point.extra


def test_the_apps_supplemental_rows_read_their_metrics_object_and_date() -> None:
    [sweep] = parse_public(SUPPLEMENTAL)
    rows = public_rows(SUPPLEMENTAL)
    assert (
        sweep.name == "GLM-4.7 · InferenceX · gaudi3 vllm-gaudi bf16 · 1024/1024 · TP8 · 2026-03-14"
    )
    assert sweep.meta["measured_at"] == dt.date(2026, 3, 14)
    assert (sweep.meta.get("run_id"), sweep.meta.get("image")) == (None, None)
    assert len(sweep.points) == len(rows) == 8
    for point, row in zip(sweep.points, rows, strict=True):
        assert point.values["output_tok_s"] == row["metrics"]["output_tput_per_gpu"] * 8
        assert point.values["ttft_p99_ms"] == row["metrics"]["p99_ttft"] * 1000


def test_the_dump_tables_give_the_same_sweeps_as_the_api_rows_and_skip_the_others() -> None:
    dumped = parse_upload_files(dump_files(), {})
    api = parse_public(API)
    assert [s.name for s in dumped.sweeps] == [s.name for s in api]
    for a, b in zip(dumped.sweeps, api, strict=True):
        assert a.meta == b.meta
        assert [p.values for p in a.points] == [p.values for p in b.points]
    assert [s.file for s in dumped.skipped] == ["availability.json"]


def test_the_dump_leaves_out_error_rows_and_superseded_run_attempts() -> None:
    results = public_rows("dump/benchmark_results.json")
    assert any(r["error"] for r in results) and any(r["workflow_run_id"] == "99" for r in results)
    sweeps = parse_upload_files(dump_files(), {}).sweeps
    # 12 good rows of the latest attempts; the conc-64 error row and attempt 0's row are out.
    assert sum(len(s.points) for s in sweeps) == 12
    assert [p.values["concurrency"] for p in sweeps[0].points] == [4, 8, 16, 32]
    assert sweeps[2].points[-1].values["output_tok_s"] == 1450.0 * 2


def test_a_dump_table_without_its_results_is_refused_naming_what_is_missing() -> None:
    files = [
        UploadFile(n, public_bytes(f"dump/{n}")) for n in ("configs.json", "workflow_runs.json")
    ]
    with pytest.raises(IngestError, match="without benchmark_results.json"):
        parse_upload(files, {})
    results = [UploadFile("benchmark_results.json", public_bytes("dump/benchmark_results.json"))]
    with pytest.raises(IngestError, match="needs configs.json"):
        parse_upload([*results, files[1]], {})
    twice = [*dump_files(), UploadFile("old/configs.json", public_bytes("dump/configs.json"))]
    with pytest.raises(IngestError, match="a second configs table .*one InferenceX dump at a time"):
        parse_upload(twice, {})


def test_bad_public_rows_are_refused_naming_file_item_and_key() -> None:
    rows = public_rows(API)
    rows[2]["date"] = "March 1st"
    with pytest.raises(IngestError, match=r"rows.json: item 3: key 'date'"):
        parse_upload([UploadFile("rows.json", json.dumps(rows).encode())], {})
    rows = public_rows(API)
    rows[1]["metrics"]["output_tput_per_gpu"] = "fast"
    with pytest.raises(IngestError, match=r"rows.json.*output_tput_per_gpu"):
        parse_upload([UploadFile("rows.json", json.dumps(rows).encode())], {})
    for key, value, said in (
        ("date", "2026-13-45", r"item 1: key 'date': expected YYYY-MM-DD, got '2026-13-45'"),
        ("image", "x" * 400, r"row 1, column 'image': is 400 characters long; at most 300"),
        ("metrics", None, r"item 1: key 'metrics': expected an object"),
    ):
        rows = public_rows(API)
        rows[0][key] = value
        with pytest.raises(IngestError, match=said):
            parse_upload([UploadFile("rows.json", json.dumps(rows).encode())], {})
    results = public_rows("dump/benchmark_results.json")
    results[0]["config_id"] = 12345
    files = [*dump_files()[1:3], UploadFile("benchmark_results.json", json.dumps(results).encode())]
    with pytest.raises(IngestError, match=r"item 1: key 'config_id': 12345 is not in the dump"):
        parse_upload(files, {})


def test_the_public_rows_store_their_run_through_the_api(client: TestClient) -> None:
    ids = upload_ids(client, (API, public_bytes(API)))
    stored = [client.get(f"/api/sweeps/{i}").json() for i in ids]
    assert [(s["measured_at"], s["run_id"]) for s in stored] == list(RUNS)
    assert {s["image"] for s in stored} == {"vllm/vllm-openai:v0.18.0"}
    assert {s["source_kind"] for s in stored} == {"public"}
    assert stored[2]["run_url"].endswith("/runs/22000000303/attempts/1")
    # The dump of the same runs is the same sweeps: already stored, nothing new.
    again = client.post(
        "/api/sweeps",
        files=[("files", (f.name, f.data)) for f in dump_files()],
    )
    assert again.status_code in (200, 201), again.text
    assert sorted(s["id"] for s in again.json()["sweeps"]) == sorted(ids)


HISTORY = "benchmarks_history_dsr1_mi355x_sglang_fp4_tp4_1k1k.json"
DSR1 = "dsr1 · InferenceX · mi355x sglang fp4 · 1024/1024 · TP4"


def test_real_api_rows_of_three_nightly_runs_are_three_dated_sweeps_with_the_files_figures() -> (
    None
):
    rows = public_rows(HISTORY)
    sweeps = parse_public(HISTORY)
    assert [s.name for s in sweeps] == [
        f"{DSR1} · 2025-12-11 · run 20117712794",
        f"{DSR1} · 2025-12-12 · run 20151920609",
        f"{DSR1} · 2025-12-13 · run 20183691426",
    ]
    assert [s.meta["run_url"].rsplit("/", 2)[-1] for s in sweeps] == ["2", "2", "3"]
    points = [p for s in sweeps for p in s.points]
    assert len(points) == len(rows) == 15
    for point, row in zip(points, rows, strict=True):
        m = row["metrics"]
        assert point.values["concurrency"] == row["conc"]
        assert point.values["output_tok_s"] == m["output_tput_per_gpu"] * 4
        assert point.values["total_tok_s"] == m["tput_per_gpu"] * 4
        assert point.values["ttft_p99_ms"] == m["p99_ttft"] * 1000
        assert point.values["ttft_p50_ms"] == m["median_ttft"] * 1000
        assert point.values["tpot_p50_ms"] == m["median_tpot"] * 1000
        assert point.values["e2el_p99_ms"] == m["p99_e2el"] * 1000
        assert point.values["itl_p50_ms"] == m["median_itl"] * 1000
    assert {s.meta["num_gpus"] for s in sweeps} == {4}
    assert {s.meta["source_kind"] for s in sweeps} == {"public"}


def test_agentic_rows_of_the_api_are_their_own_workload_never_one_sweep_with_fixed_lengths() -> (
    None
):
    """The API answers fixed-length and agentic-trace rows together; a public row of each (the
    agentic one as published for H100, DeepSeek-V4.1-Flash, 2026-09-18, metrics cut to five)."""
    agentic = {
        "id": "442505",
        "hardware": "h100",
        "framework": "vllm",
        "model": "dsv41flash",
        "precision": "fp4",
        "spec_method": "mtp",
        "disagg": False,
        "is_multinode": False,
        "prefill_tp": 8,
        "decode_tp": 8,
        "num_prefill_gpu": 8,
        "num_decode_gpu": 8,
        "benchmark_type": "agentic_traces",
        "offload_mode": "off",
        "isl": None,
        "osl": None,
        "conc": 20,
        "image": "vllm/vllm-openai:nightly-cd10ed6f9f6b37a8ace9cf380007e66fe12ec0c3",
        "date": "2026-09-18",
        "workflow_run_id": "2509",
        "run_started_at": "2026-09-18 22:35:24+00",
        "run_url": "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/35314892357/attempts/1",
        "metrics": {
            "tput_per_gpu": 12673.2,
            "output_tput_per_gpu": 89.8,
            "median_intvty": 109.8,
            "median_ttft": 0.358,
            "median_tpot": 0.0091,
        },
    }
    fixed = {**agentic, "benchmark_type": "single_turn", "isl": 1024, "osl": 1024}
    body = json.dumps([agentic, fixed]).encode()
    a, f = parse_upload([UploadFile("benchmarks.json", body)], {})
    base = "dsv41flash · InferenceX · h100 vllm fp4 mtp"
    assert a.name == f"{base} · agentic_traces · TP8 · 2026-09-18 · run 35314892357"
    assert f.name == f"{base} · 1024/1024 · TP8 · 2026-09-18 · run 35314892357"
    assert (a.meta["workload"], f.meta.get("workload")) == ("agentic_traces", None)
    assert a.meta["num_gpus"] == 8 and a.points[0].values["output_tok_s"] == 89.8 * 8
    assert a.meta["run_id"] == "35314892357"  # from run_url, never the app's workflow_run_id
