"""MLPerf Inference: LoadGen summaries, a round's results table and the endpoints client's
result_summary.json, read from real files (tests/fixtures/mlperf/SOURCES.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.cli import main as cli_main
from app.domain.point import PointMetrics
from app.domain.prom_histogram import attainment, histogram_of, quantile
from app.domain.slo import Slo, point_verdict
from app.ingest import IngestError
from app.ingest.registry import importers
from app.ingest.source import SourceFile
from app.ingest.tools import mlperf_endpoints, mlperf_loadgen, mlperf_round
from app.settings import get_settings
from app.store.models import Sweep
from tests.helpers import parse, upload, upload_id

MLPERF = Path(__file__).parent.parent / "fixtures" / "mlperf"
SUBMISSION = "submission_v4.1_AMD"
RUN = "results/8xMI300X_2xEPYC-9374F/llama2-70b-99/{}/performance/run_1/mlperf_log_summary.txt"
SERVER = f"{SUBMISSION}/{RUN.format('Server')}"
OFFLINE = f"{SUBMISSION}/{RUN.format('Offline')}"
SYSTEM = f"{SUBMISSION}/systems/8xMI300X_2xEPYC-9374F.json"
INVALID = "loadgen/invalid_constructed_Server/mlperf_log_summary.txt"
ROUND = "summary_results_v4.1_first9rows.json"
ENDPOINTS = "endpoints_result_summary_VR-NVL72_deepseek-r1_Server_v6.1.json"
FORM = {"hardware": "MI300X", "num_gpus": 8}


def mlperf_file(name: str) -> tuple[str, bytes]:
    return name, (MLPERF / name).read_bytes()


def test_each_mlperf_file_is_claimed_by_its_own_importer_and_no_other() -> None:
    owners = {
        SERVER: mlperf_loadgen.IMPORTER,
        OFFLINE: mlperf_loadgen.IMPORTER,
        INVALID: mlperf_loadgen.IMPORTER,
        ROUND: mlperf_round.IMPORTER,
        SYSTEM: mlperf_loadgen.IMPORTER,
        "summary_v6.1_rows_4_6_7_8.json": mlperf_round.IMPORTER,
        ENDPOINTS: mlperf_endpoints.IMPORTER,
    }
    for name, owner in owners.items():
        file = SourceFile(*mlperf_file(name))
        claimed = [i.name for i in importers() if i.sniff(file)]
        assert claimed == [owner.name], name


def test_the_mlperf_importers_claim_no_other_tools_fixture() -> None:
    from tests.conftest import FIXTURES

    mine = (mlperf_loadgen.IMPORTER, mlperf_round.IMPORTER, mlperf_endpoints.IMPORTER)
    for path in sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix != ".md"):
        file = SourceFile(path.name, path.read_bytes())
        assert not any(i.sniff(file) for i in mine), path


def test_a_loadgen_server_summary_is_one_point_with_the_files_own_figures_in_ms() -> None:
    [sweep] = parse(mlperf_file(SERVER), **FORM)
    [point] = sweep.points
    v = point.values
    assert v["output_tok_s"] == 21028.23 and v["requests_per_s"] == 71.74
    assert v["request_rate"] == 73.5  # target_qps: the offered Poisson rate
    assert (v["ttft_p50_ms"], v["ttft_p90_ms"], v["ttft_p99_ms"]) == (
        990.199455,
        1319.203675,
        1604.171041,
    )
    assert (v["tpot_p50_ms"], v["tpot_p90_ms"], v["tpot_p99_ms"]) == (
        143.943044,
        175.935833,
        197.873909,
    )
    assert v["tpot_mean_ms"] == 143.097185 and v["ttft_mean_ms"] == 1006.32967
    assert v["e2el_p99_ms"] == 139059.448725
    assert point.extra["tpot_p99.9_ms"] == 203.573466 and point.extra["ttft_p97_ms"] == 1475.394941
    assert v["goodput_slo"] == "p99 ttft:2000 tpot:200"  # the scenario's constraints
    assert point.extra["harness_result"] == "VALID"
    assert point.extra["harness_constraints"]["Performance constraints satisfied"] == "Yes"
    assert sweep.meta["harness"] == "MLPerf Inference LoadGen"
    assert sweep.meta["provenance"] == "independent" and sweep.meta["source_kind"] == "public"
    assert sweep.meta["num_gpus"] == 8  # the summary names no accelerator count: the form's


def test_an_offline_summary_has_no_first_token_statistics_and_an_unlimited_rate() -> None:
    [sweep] = parse(mlperf_file(OFFLINE), **FORM)
    [point] = sweep.points
    assert point.values["output_tok_s"] == 23514.8 and point.values["requests_per_s"] == 80.15
    assert math.isinf(point.values["request_rate"]) and point.extra["target_qps"] == 80
    assert "ttft_p99_ms" not in point.values and "goodput_slo" not in point.values


def test_an_invalid_summary_is_stored_as_invalid_and_said_so() -> None:
    [sweep] = parse(mlperf_file(INVALID), **FORM)
    assert sweep.points[0].extra["harness_result"] == "INVALID"
    assert "INVALID" in sweep.name
    assert any("ruled this run INVALID (Min duration satisfied: NO)" in w for w in sweep.warnings)


def invalid_metrics(invalid: bool) -> PointMetrics:
    [sweep] = parse(mlperf_file(INVALID), **FORM)
    row: dict[str, Any] = {**sweep.points[0].values, "point_id": 1, "num_gpus": 8}
    return PointMetrics.from_row({**row, "invalid": invalid})


def test_an_invalid_run_never_meets_an_slo_its_percentiles_would_meet() -> None:
    slo = Slo(ttft_ms=2000, tpot_ms=200, percentile="p99")
    assert point_verdict(invalid_metrics(False), slo).status == "pass"
    assert point_verdict(invalid_metrics(True), slo).status == "fail"


def test_an_invalid_sweep_stored_and_read_off_does_not_meet_the_slo(client: TestClient) -> None:
    invalid = upload_id(client, mlperf_file(INVALID), **FORM)
    valid = upload_id(client, mlperf_file(SERVER), **FORM)
    query = {"sweep": [invalid, valid], "ttft_ms": 2000, "tpot_ms": 200, "percentile": "p99"}
    answer = client.get("/api/readoff", params=query)
    assert answer.status_code == 200, answer.text
    results = {r["sweep_id"]: r for r in answer.json()["results"]}
    statuses = {i: (r["status"], r["meets_slo"]) for i, r in results.items()}
    assert statuses == {invalid: ("fail", False), valid: ("pass", True)}
    assert (
        "p99 TTFT cannot be met: the harness ruled the run INVALID, which never meets an SLO"
        in (results[invalid]["reason"])
    )


def test_a_rounds_table_gives_a_point_per_system_benchmark_and_scenario() -> None:
    sweeps = parse(mlperf_file(ROUND))
    assert len(sweeps) == 8  # the ninth row is 3d-unet in samples/s: skipped
    rows = json.loads((MLPERF / ROUND).read_bytes())
    for sweep, row in zip(sweeps, rows[:8], strict=True):
        assert sweep.points[0].values["output_tok_s"] == row["Performance_Result"]
        assert sweep.meta["num_gpus"] == row["a#"]
        assert sweep.meta["hardware"] == row["Accelerator"]
        assert sweep.meta["harness_version"] == "v4.1"
    eight = sweeps[5]
    assert eight.name == "llama2-70b-99 · MLPerf v4.1 Server · AMD · 8xMI300X_2xEPYC-9374F"
    assert eight.points[0].values["output_tok_s"] / eight.meta["num_gpus"] == 21028.2 / 8
    assert any("1 rows in other units" in w for w in sweeps[0].warnings)


def test_the_endpoints_summary_is_one_point_with_its_percentiles_in_ms() -> None:
    [sweep] = parse(mlperf_file(ENDPOINTS), hardware="RUBIN", num_gpus=72)
    [point] = sweep.points
    v = point.values
    assert v["output_tok_s"] == 1175890.2208168241 and v["requests_per_s"] == 310.0842360889801
    assert v["ttft_p99_ms"] == 303.546985 and v["tpot_p50_ms"] == 41.10502354525507
    assert v["e2el_p90_ms"] == 372639.387588
    assert point.extra["ttft_p99.9_ms"] == 1874.304916
    assert (v["num_requests"], v["num_failed"], v["request_rate"]) == (600000, 0, 325.0)
    assert v["duration_s"] == 2318.929756903
    assert sweep.meta["harness_version"] == "0.1.0"


def test_the_endpoints_histograms_read_like_prometheus_buckets_with_attainment_bounds() -> None:
    [sweep] = parse(mlperf_file(ENDPOINTS), hardware="RUBIN", num_gpus=72)
    hist = sweep.points[0].extra["ttft_histogram_ms"]
    h = histogram_of(dict(zip(hist["bounds_ms"], hist["counts"], strict=True)), "ttft")
    assert h.total == 600000
    # A limit on a bucket bound: exact; the first nine buckets hold 591,913 requests.
    exact = attainment(h, hist["bounds_ms"][8])
    assert exact.lower == exact.upper == 591913 / 600000
    # 300 ms lies inside the tenth bucket: bounded by the counts below and above it.
    between = attainment(h, 300.0)
    assert (between.lower, between.upper) == (591913 / 600000, 596099 / 600000)
    # The file's own p99 (303.5 ms) lies in the bucket the histogram's p99 falls in.
    p99 = quantile(h, 0.99)
    assert p99.bucket_ms is not None
    assert p99.bucket_ms[0] < sweep.points[0].values["ttft_p99_ms"] <= p99.bucket_ms[1]


def test_a_loadgen_summary_without_a_verdict_is_refused_naming_the_line() -> None:
    text = (MLPERF / SERVER).read_text().replace("Result is : VALID", "Result is : MAYBE")
    with pytest.raises(IngestError, match="Result is"):
        parse(("mlperf_log_summary.txt", text.encode()), **FORM)


def test_a_rounds_table_with_no_token_rows_is_refused() -> None:
    rows = json.loads((MLPERF / ROUND).read_bytes())[8:]
    with pytest.raises(IngestError, match="no row in tokens per second"):
        parse((ROUND, json.dumps(rows).encode()))


def test_the_sweep_page_and_api_show_the_harness_and_its_provenance(client: TestClient) -> None:
    from tests.helpers import soup

    sweep_id = upload_id(client, mlperf_file(SERVER), **FORM)
    answer = client.get(f"/api/sweeps/{sweep_id}")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    stored = body.get("sweep", body)
    assert (stored["harness"], stored["provenance"]) == ("MLPerf Inference LoadGen", "independent")
    page = soup(client.get(f"/sweeps/{sweep_id}"), expect=200)
    harness = page.select_one("#meta-harness dd")
    assert harness is not None
    assert harness.get_text() == "MLPerf Inference LoadGen · independent harness"


def test_a_vendor_sweep_without_a_harness_is_the_vendors_own(client: TestClient) -> None:
    sweep_id = upload_id(client, mlperf_file(SERVER), source_kind="vendor", **FORM)
    stored = client.get(f"/api/sweeps/{sweep_id}").json()
    stored = stored.get("sweep", stored)
    # The importer says MLPerf ran it (independent) and that is kept; the form's kind is not
    # the harness.
    assert stored["provenance"] == "independent"


def test_a_v6_rounds_summary_json_reads_the_same_way() -> None:
    name = "summary_v6.1_rows_4_6_7_8.json"
    sweeps = parse(mlperf_file(name))
    rows = json.loads((MLPERF / name).read_bytes())
    tokens = [r for r in rows.values() if r["Units"] == "Tokens/s"]
    assert len(sweeps) == len(tokens) == 3  # dlrm-v3 in samples/s is skipped
    for sweep, row in zip(sweeps, tokens, strict=True):
        assert sweep.points[0].values["output_tok_s"] == row["Result"]
        assert sweep.meta["num_gpus"] == row["total_accelerators"] == 8
        assert sweep.meta["hardware"] == "AMD Instinct MI355X 288GB HBM3e"
        assert sweep.meta["harness_version"] == "v6.1"
    assert sweeps[2].name.startswith("llama2-70b-99.9 · MLPerf v6.1 Interactive · AMD")


def test_a_rounds_accelerator_names_match_the_catalog(client: TestClient, catalog: None) -> None:
    for name, key in (
        (ROUND, "MI300X"),
        ("summary_v6.1_rows_4_6_7_8.json", "MI355X"),
    ):
        first = upload(client, mlperf_file(name))[0]
        stored = client.get(f"/api/sweeps/{first['id']}").json()
        assert stored["hardware"] == key


def test_a_submission_folder_gives_each_summary_its_systems_accelerators_and_benchmark() -> None:
    sweeps = parse(mlperf_file(SERVER), mlperf_file(OFFLINE), mlperf_file(SYSTEM))
    # One sweep per scenario (files are read in name order: Offline's path sorts first).
    by_config = {s.meta["config"]: s for s in sweeps}
    assert sorted(by_config) == ["scenario=Offline", "scenario=Server"]
    server, offline = by_config["scenario=Server"], by_config["scenario=Offline"]
    system = json.loads((MLPERF / SYSTEM).read_bytes())
    for sweep in (server, offline):
        assert sweep.meta["hardware"] == system["accelerator_model_name"]
        assert sweep.meta["num_gpus"] == system["accelerators_per_node"] * system["number_of_nodes"]
        assert sweep.meta["model"] == "llama2-70b-99"
    assert server.name == "MLPerf Server · llama2-70b-99 · 8xMI300X_2xEPYC-9374F · VALID"
    # completed tokens/s ÷ accelerators, the per-GPU figure MLPerf never prints
    assert server.points[0].values["output_tok_s"] / server.meta["num_gpus"] == 21028.23 / 8


def test_a_system_description_alone_is_refused_with_what_to_upload() -> None:
    with pytest.raises(IngestError, match="without a LoadGen summary"):
        parse(mlperf_file(SYSTEM))


def test_paretoscope_import_of_the_submission_folder_on_a_new_database_knows_the_gpu(
    database_url: str, monkeypatch: pytest.MonkeyPatch, session: Session
) -> None:
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    try:
        assert cli_main(["import", str(MLPERF / SUBMISSION)]) == 0
    finally:
        get_settings.cache_clear()
    stored = session.scalars(select(Sweep).order_by(Sweep.id)).all()
    # The catalog is seeded with the first import, so the system's accelerator name matches.
    assert [(s.hardware, s.num_gpus, s.provenance) for s in stored] == [
        ("MI300X", 8, "independent"),
        ("MI300X", 8, "independent"),
    ]
