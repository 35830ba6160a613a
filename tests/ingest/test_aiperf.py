"""AIPerf JSON, CSV and per-request JSONL: exact values, TPOT vs pooled ITL, samples, refusals."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import tarfile
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.ingest import UploadFile, parse_upload
from tests.conftest import FIXTURES
from tests.helpers import json_changed, jsonl, only, parse, parse_errors

NAME = "wellflat_k8s-dev_profile_export_aiperf.json"
DATA = (FIXTURES / "aiperf" / NAME).read_bytes()
GENAI = FIXTURES / "genai-perf" / "wellflat_k8s-dev_profile_export_genai_perf.json"
DOC: dict[str, Any] = json.loads(DATA)
DEFAULTS = {"hardware": "A100", "num_gpus": 1}
RUN_DIR = "artifacts/openai_gpt-oss-20b-openai-chat-concurrency1"
STATS = ["avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"]
HEADERS = {  # metric tag -> the metric's `header` in aiperf/metrics/types
    "inter_chunk_latency": "Inter Chunk Latency",
    "inter_token_latency": "Inter Token Latency",
    "input_sequence_length": "Input Sequence Length",
    "output_sequence_length": "Output Sequence Length",
    "output_token_throughput_per_user": "Output Token Throughput Per User",
    "request_latency": "Request Latency",
    "time_to_first_token": "Time to First Token",
    "time_to_second_token": "Time to Second Token",
}
SYSTEM = {
    "benchmark_duration": "Benchmark Duration",
    "output_token_throughput": "Output Token Throughput",
    "request_count": "Request Count",
    "request_throughput": "Request Throughput",
    "total_isl": "Total Input Sequence Length",
    "total_osl": "Total Output Sequence Length",
}


errors_of_aiperf = partial(parse_errors, DEFAULTS)


aiperf_with_changes = partial(json_changed, DOC)


def label(tag: str, names: dict[str, str]) -> str:
    unit = DOC[tag]["unit"]
    return names[tag] if unit in ("count", "requests") else f"{names[tag]} ({unit})"


def aiperf_csv(doc: dict[str, Any]) -> bytes:
    """profile_export_aiperf.csv as aiperf/exporters/csv_exporter.py writes it (sorted by tag)."""
    rows: list[list[str]] = [["Metric", *STATS]]
    for tag in sorted(HEADERS):
        rows.append([label(tag, HEADERS), *(f"{doc[tag][s]:.2f}" for s in STATS)])
    rows += [[], ["Metric", "Value"]]
    for tag in sorted(SYSTEM):
        rows.append([label(tag, SYSTEM), f"{doc[tag]['avg']:.2f}"])
    gpu = doc["telemetry_data"]["endpoints"]["dcgm-exporter.prometheus.svc.cluster.local:9400"]
    rows += [
        [],
        [],
        ["=== GPU Telemetry: dcgm-exporter:9400 ==="],
        [],
        ["=== GPU Power Usage (W) ==="],
    ]
    rows.append(
        ["GPU Index", "GPU Name", "GPU UUID", "Avg", "Min", "Max", "P99", "P90", "P75", "Std"]
    )
    for g in gpu["gpus"].values():
        power = g["metrics"]["gpu_power_usage"]
        stats = ("avg", "min", "max", "p99", "p90", "p75", "std")
        rows.append(
            [str(g["gpu_index"]), g["gpu_name"], g["gpu_uuid"], *(f"{power[s]:.2f}" for s in stats)]
        )
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode()


def record(i: int, *, failed: bool = False, phase: str = "profiling") -> dict[str, Any]:
    """One profile_export.jsonl record in MetricRecordInfo's layout."""
    start = 1768458454173442300 + i * 5_196_000_000
    meta = {
        "session_num": i,
        "x_request_id": f"req-{i}",
        "x_correlation_id": f"corr-{i}",
        "conversation_id": f"conv-{i}",
        "turn_index": 0,
        "request_start_ns": start,
        "request_ack_ns": start + 1_000_000,
        "request_end_ns": start + 5_171_998_897,
        "worker_id": "worker_1",
        "record_processor_id": "record_processor_1",
        "benchmark_phase": phase,
        "was_cancelled": failed,
        "cancellation_time_ns": None,
    }
    if failed:
        return {
            "metadata": meta,
            "metrics": {"error_isl": {"value": 190 + i, "unit": "tokens"}},
            "error": {"code": 499, "type": "RequestCancellationError", "message": "cancelled"},
        }
    return {
        "metadata": meta,
        "metrics": {
            "input_sequence_length": {"value": 190 + i, "unit": "tokens"},
            "time_to_first_token": {"value": 80.0 + i / 4, "unit": "ms"},
            "request_latency": {"value": 5000.0 + i, "unit": "ms"},
            "output_sequence_length": {"value": 280 + i % 7, "unit": "tokens"},
            "inter_chunk_latency": {"value": [17.5, 18.25, 18.0], "unit": "ms"},
            "inter_token_latency": {"value": 17.9, "unit": "ms"},
        },
        "error": None,
    }


RECORDS = [record(i) for i in range(100)] + [record(100, failed=True)]
INPUTS = {"data": [{"session_id": "conv-0", "payloads": [{"messages": [], "stream": True}]}]}


def test_the_json_export_becomes_one_point_with_its_statistics() -> None:
    [point] = only(parse((NAME, DATA), **DEFAULTS)).points
    v = point.values
    assert v["concurrency"] == 1
    assert v["ttft_mean_ms"] == pytest.approx(82.84651240000001)
    assert v["ttft_p50_ms"] == pytest.approx(82.04407599999999)
    assert v["ttft_p99_ms"] == pytest.approx(99.64934874000001)
    assert v["e2el_mean_ms"] == pytest.approx(5171.998897789999)
    assert v["e2el_p95_ms"] == pytest.approx(6247.95253905)
    assert v["output_tok_s"] == pytest.approx(54.55756456668085)
    assert v["requests_per_s"] == pytest.approx(0.19245648570156926)
    assert v["duration_s"] == pytest.approx(519.597973721)
    assert v["total_tok_s"] == pytest.approx((19637 + 28348) / 519.597973721)
    assert (v["num_requests"], v["num_failed"]) == (100, 0)
    assert v["input_len"] == pytest.approx(196.37)
    assert v["output_len"] == pytest.approx(283.48)  # content + reasoning tokens
    for absent in ("request_rate", "goodput_requests_per_s", "goodput_slo"):
        assert absent not in v


def test_inter_token_latency_is_tpot_and_pooled_inter_chunk_latency_is_itl() -> None:
    [point] = only(parse((NAME, DATA), **DEFAULTS)).points
    v = point.values
    assert v["tpot_mean_ms"] == pytest.approx(18.03231861805396)
    assert v["tpot_p90_ms"] == pytest.approx(18.56385501404265)
    assert v["tpot_p99_ms"] == pytest.approx(19.047832429846817)
    assert v["itl_mean_ms"] == pytest.approx(18.01533642036886)
    assert v["itl_p50_ms"] == pytest.approx(17.804994999999998)
    assert v["itl_p99_ms"] == pytest.approx(21.7833198)


def test_meta_names_model_lengths_date_and_the_telemetry_gpu_but_not_the_gpu_count() -> None:
    sweep = only(parse_upload([UploadFile(NAME, DATA)], {}, require_meta=False))
    assert sweep.meta["model"] == "openai/gpt-oss-20b"
    assert (sweep.meta["isl"], sweep.meta["osl"]) == (200, 300)
    assert sweep.meta["measured_at"] == dt.date(2026, 1, 15)
    assert sweep.meta["source_tool"] == "aiperf profile"
    assert sweep.meta["sweep"] == "gpt-oss-20b · AIPerf · wellflat_k8s-dev"
    # The raw DCGM name as the tool wrote it; the upload service matches it to a catalog key.
    assert sweep.meta["hardware"] == "NVIDIA A100-SXM4-80GB"
    assert "num_gpus" not in sweep.meta  # DCGM lists the node's 8 GPUs; one was in use
    assert sweep.missing_meta() == ["num_gpus"]
    assert sweep.source_format == "AIPerf profile_export_aiperf.json"
    [note] = [n for n in sweep.points[0].extra["import_notes"] if "telemetry" in n]
    assert note.startswith("hardware 'NVIDIA A100-SXM4-80GB' from the telemetry's gpu_name")
    assert "(8 here, 1 with memory in use)" in note


def test_the_hardware_the_user_gives_wins_over_the_telemetry_gpu_name() -> None:
    sweep = only(parse((NAME, DATA), **{**DEFAULTS, "hardware": "H100"}))
    assert sweep.meta["hardware"] == "H100"
    [note] = [n for n in sweep.points[0].extra["import_notes"] if "telemetry" in n]
    assert note.startswith("hardware and num_gpus not taken from telemetry: the upload form gave")


def test_telemetry_naming_two_gpu_models_fills_no_hardware() -> None:
    doc = json.loads(DATA)
    gpus = doc["telemetry_data"]["endpoints"]["dcgm-exporter.prometheus.svc.cluster.local:9400"]
    gpus["gpus"]["gpu_7"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
    data = json.dumps(doc).encode()
    sweep = only(parse_upload([UploadFile(NAME, data)], {}, require_meta=False))
    assert "hardware" not in sweep.meta
    [note] = [n for n in sweep.points[0].extra["import_notes"] if "telemetry" in n]
    assert "it names 2 GPU models" in note


def test_telemetry_is_kept_in_extra_and_the_api_key_is_redacted() -> None:
    [point] = only(parse((NAME, DATA), **DEFAULTS)).points
    extra = point.extra
    assert extra["telemetry_gpu_count"] == 8
    assert extra["telemetry_gpus_with_memory_used"] == 1
    assert extra["telemetry_gpu_names"] == ["NVIDIA A100-SXM4-80GB"]
    assert (
        "gpu_0"
        in extra["telemetry_data"]["endpoints"]["dcgm-exporter.prometheus.svc.cluster.local:9400"][
            "gpus"
        ]
    )
    assert extra["reasoning_token_count"]["avg"] == pytest.approx(255.67)
    assert extra["time_to_first_output_token"]["p50"] == pytest.approx(3686.6688835)
    assert extra["input_config"]["endpoint"]["api_key"] == "(redacted)"
    assert "test_key" not in json.dumps(extra)
    assert '--api-key "(redacted)"' in extra["input_config"]["cli_command"]


def test_aiperf_and_genai_perf_are_told_apart_by_content_not_name() -> None:
    aiperf = only(parse(("profile_export_genai_perf.json", DATA), **DEFAULTS))
    genai = only(parse(("profile_export_aiperf.json", GENAI.read_bytes()), **DEFAULTS))
    assert aiperf.source_format == "AIPerf profile_export_aiperf.json"
    assert genai.source_format == "GenAI-Perf profile_export_genai_perf.json"


def test_a_goodput_run_gives_goodput_and_its_slo_from_the_command_line() -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["goodput"] = {"unit": "requests/sec", "avg": 0.15}
        d["input_config"]["cli_command"] += (
            ' --goodput "time_to_first_token:100 inter_token_latency:19"'
        )

    [point] = only(parse((NAME, aiperf_with_changes(mutate)), **DEFAULTS)).points
    assert point.values["goodput_requests_per_s"] == pytest.approx(0.15)
    assert point.values["goodput_slo"] == "ttft:100 tpot:19"


def test_the_csv_export_gives_the_same_point_rounded() -> None:
    name = f"{RUN_DIR}/profile_export_aiperf.csv"
    sweep = only(parse((name, aiperf_csv(DOC)), model="openai/gpt-oss-20b", **DEFAULTS))
    [point] = sweep.points
    v = point.values
    assert v["concurrency"] == 1  # from the artifact directory name
    assert v["ttft_mean_ms"] == 82.85
    assert v["ttft_p99_ms"] == 99.65
    assert v["tpot_mean_ms"] == 18.03
    assert v["itl_p99_ms"] == 21.78
    assert v["e2el_p50_ms"] == 5230.03
    assert v["output_tok_s"] == 54.56
    assert v["requests_per_s"] == 0.19
    assert v["duration_s"] == 519.60
    assert v["total_tok_s"] == pytest.approx((19637 + 28348) / 519.60)
    assert v["num_requests"] == 100
    assert (v["input_len"], v["output_len"]) == (196.37, 283.48)
    assert point.extra["metrics"]["inter_chunk_latency"]["std"] == 4.14
    assert point.extra["telemetry_rows"][0] == ["=== GPU Telemetry: dcgm-exporter:9400 ==="]
    assert sweep.meta["sweep"] == "gpt-oss-20b · AIPerf · openai_gpt-oss-20b-openai-chat"
    assert sweep.source_format == "AIPerf profile_export_aiperf.csv"


def test_the_csv_telemetry_gpu_name_fills_the_hardware_unless_the_form_gives_one() -> None:
    name = f"{RUN_DIR}/profile_export_aiperf.csv"
    data = aiperf_csv(DOC)
    [sweep] = parse_upload([UploadFile(name, data)], {}, require_meta=False)
    assert sweep.meta["hardware"] == "NVIDIA A100-SXM4-80GB"
    assert "num_gpus" not in sweep.meta
    assert only(parse((name, data), **DEFAULTS)).meta["hardware"] == "A100"  # DEFAULTS give A100


def test_per_request_records_become_samples_of_their_run() -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["error_request_count"] = {"unit": "requests", "avg": 1.0}

    records = [record(-1, phase="warmup"), *RECORDS]
    records[1]["metrics"]["request_latency"] = {"value": 5.0e9, "unit": "ns"}
    sweep = only(
        parse(
            (f"{RUN_DIR}/profile_export_aiperf.json", aiperf_with_changes(mutate)),
            (f"{RUN_DIR}/profile_export.jsonl", jsonl(records)),
            **DEFAULTS,
        )
    )
    [point] = sweep.points
    # The warm-up record is kept first, in its phase: counted, never read off (issue 49).
    assert point.samples is not None and len(point.samples) == 102
    assert point.samples[0][5:] == ("corr--1", 0, "warmup")
    profiled = point.samples[1:]
    # ns converted to ms; each request's session (its correlation id) and turn (issue 49)
    assert profiled[0][:5] == (80.0, 5000.0, 280, 190, True)
    assert profiled[99][:5] == (104.75, 5099.0, 280 + 99 % 7, 289, True)
    assert profiled[100][:5] == (None, None, None, 290, False)
    assert profiled[0][5:] == ("corr-0", 0, "profiling")
    assert point.extra["request_accounting"]["records_warmup_dropped"] == 1
    assert point.values["num_failed"] == 1
    assert point.extra["per_request_failed"] == 1
    assert sweep.source_format == "AIPerf profile_export_aiperf.json + profile_export.jsonl"


def test_the_artifact_directory_in_a_tar_archive_imports_as_the_same_sweep() -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in (
            (f"{RUN_DIR}/profile_export_aiperf.json", DATA),
            (f"{RUN_DIR}/profile_export_aiperf.csv", aiperf_csv(DOC)),
            (f"{RUN_DIR}/profile_export.jsonl", jsonl(RECORDS[:100])),
            (f"{RUN_DIR}/inputs.json", json.dumps(INPUTS).encode()),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    tarred = only(parse(("run.tar.gz", buffer.getvalue()), **DEFAULTS))
    loose = only(
        parse(
            (f"{RUN_DIR}/profile_export_aiperf.json", DATA),
            (f"{RUN_DIR}/profile_export.jsonl", jsonl(RECORDS[:100])),
            **DEFAULTS,
        )
    )
    assert tarred.content_hash() == loose.content_hash()
    assert len(tarred.points) == 1 and tarred.points[0].samples is not None


def test_records_without_their_run_are_refused() -> None:
    message = errors_of_aiperf(("profile_export.jsonl", jsonl(RECORDS)))
    assert "profile_export.jsonl" in message and "profile_export_aiperf.json" in message


def test_records_of_another_run_are_refused() -> None:
    message = errors_of_aiperf((NAME, DATA), ("profile_export.jsonl", jsonl(RECORDS[:40])))
    assert "profile_export.jsonl" in message and "request_count 100" in message


def test_a_truncated_json_export_is_refused_naming_the_file() -> None:
    message = errors_of_aiperf((NAME, DATA[:5000]))
    assert NAME in message and "not valid JSON" in message


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda d: d["inter_token_latency"].update(avg="quick"), "inter_token_latency.avg"),
        (lambda d: d.update(benchmark_duration=[519.6]), "benchmark_duration"),
        (lambda d: d["benchmark_duration"].update(unit="fortnights"), "benchmark_duration.unit"),
        (lambda d: d.pop("output_token_throughput"), "output_token_throughput"),
        (
            lambda d: d["input_config"]["loadgen"].update(concurrency=[1]),
            "input_config.loadgen.concurrency",
        ),
    ],
)
def test_a_bad_json_value_is_refused_naming_file_and_key(mutate: Any, key: str) -> None:
    message = errors_of_aiperf((NAME, aiperf_with_changes(mutate)))
    assert NAME in message and key in message


def test_a_bad_csv_cell_is_refused_naming_file_row_and_metric() -> None:
    name = f"{RUN_DIR}/profile_export_aiperf.csv"
    text = (
        aiperf_csv(DOC)
        .decode()
        .replace("Benchmark Duration (sec),519.60", "Benchmark Duration (sec),long")
    )
    message = errors_of_aiperf((name, text.encode()))
    assert name in message and "Benchmark Duration (sec)" in message and "'long'" in message


@pytest.mark.parametrize(
    ("line", "key"),
    [
        (
            json.dumps(
                {
                    "metadata": {"session_num": 3},
                    "metrics": {"request_latency": {"value": [1], "unit": "ms"}},
                    "error": None,
                }
            ),
            "metrics.request_latency.value",
        ),
        ('{"metadata": {"session_num": 3}, "error": null}', "metrics"),
        ('{"metadata": {"session_num": 3}, "metrics": {', "not valid JSON"),
    ],
)
def test_a_bad_record_is_refused_naming_file_line_and_key(line: str, key: str) -> None:
    data = jsonl(RECORDS[:2]) + line.encode() + b"\n"
    message = errors_of_aiperf(
        (f"{RUN_DIR}/profile_export_aiperf.json", DATA), (f"{RUN_DIR}/profile_export.jsonl", data)
    )
    assert f"{RUN_DIR}/profile_export.jsonl, row 3" in message and key in message


def test_the_aiperf_fixture_imports_through_the_api(client: TestClient) -> None:
    response = client.post(
        "/api/sweeps",
        files=[("files", (NAME, DATA, "application/octet-stream"))],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    [created] = response.json()["sweeps"]
    stored = client.get(f"/api/sweeps/{created['id']}").json()
    assert stored["measured_at"] == "2026-01-15"
    [point] = stored["points"]
    assert point["tpot_mean_ms"] == pytest.approx(18.03231861805396)
    assert point["itl_mean_ms"] == pytest.approx(18.01533642036886)
    assert point["duration_s"] == pytest.approx(519.597973721)


def test_the_gpu_telemetry_gives_the_busy_gpus_measured_power_and_energy() -> None:
    [point] = only(parse((NAME, DATA), **DEFAULTS)).points
    # Only gpu_0 has memory in use: its mean power, and its energy counter's rise in MJ.
    assert point.extra["gpu_power_w"] == pytest.approx(94.61787741935483, rel=1e-12)
    assert point.extra["gpu_energy_j"] == pytest.approx(
        (1444.0182106460002 - 1443.963410859) * 1e6, rel=1e-9
    )
    assert any("board power only" in n for n in point.extra["import_notes"])
