"""GenAI-Perf JSON and CSV exports: exact values, TPOT from inter_token_latency, refusals."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.ingest import UploadFile, parse_upload
from tests.conftest import FIXTURES
from tests.helpers import json_changed, only, parse, parse_errors

NAME = "wellflat_k8s-dev_profile_export_genai_perf.json"
DATA = (FIXTURES / "genai-perf" / NAME).read_bytes()
DOC: dict[str, Any] = json.loads(DATA)
DEFAULTS = {"hardware": "A100", "num_gpus": 1}
RUN_DIR = "artifacts/openai_gpt-oss-20b-openai-chat-concurrency1"
STATS = ["avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25", "p10", "p5", "p1"]
REQUEST_METRICS = (
    ("time_to_first_token", "ms"),
    ("time_to_second_token", "ms"),
    ("inter_token_latency", "ms"),
    ("request_latency", "ms"),
    ("output_token_throughput_per_user", "tokens/sec/user"),
    ("output_sequence_length", "tokens"),
    ("input_sequence_length", "tokens"),
)


errors_of_genai_perf = partial(parse_errors, DEFAULTS)


genai_perf_with_changes = partial(json_changed, DOC)


def genai_csv(doc: dict[str, Any], *, old: bool = False, telemetry: bool = True) -> bytes:
    """profile_export_genai_perf.csv as csv_exporter.py writes it, from the JSON's numbers."""
    stats = STATS[:9] if old else STATS
    rows: list[list[str]] = [["Metric", *stats]]
    for key, unit in REQUEST_METRICS:
        title = key.replace("_", " ").title()
        label = title if old and unit == "tokens" else f"{title} ({unit})"
        rows.append([label, *(f"{doc[key][s]:,.2f}" for s in stats)])
    rows += [[], ["Metric", "Value"]]
    units = ("per sec", "per sec", "count") if old else ("tokens/sec", "requests/sec", "count")
    keys = ("output_token_throughput", "request_throughput", "request_count")
    for key, unit in zip(keys, units, strict=True):
        rows.append([f"{key.replace('_', ' ').title()} ({unit})", f"{doc[key]['avg']:,.2f}"])
    if telemetry:
        power = doc["telemetry_stats"]["gpu_power_usage"]
        rows += [[], ["Metric", "GPU", *STATS[:9]]]
        for gpu in [k for k in power if k != "unit"]:
            rows.append(["GPU Power Usage (W)", gpu, *(f"{power[gpu][s]:,.2f}" for s in STATS[:9])])
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode()


def test_the_json_export_becomes_one_point_with_its_statistics() -> None:
    sweep = only(parse((NAME, DATA), **DEFAULTS))
    [point] = sweep.points
    v = point.values
    assert v["concurrency"] == 1
    assert v["ttft_mean_ms"] == pytest.approx(1524.6265132)
    assert v["ttft_p50_ms"] == pytest.approx(1416.927935)
    assert v["ttft_p90_ms"] == pytest.approx(2203.8029894)
    assert v["ttft_p95_ms"] == pytest.approx(2295.0372568)
    assert v["ttft_p99_ms"] == pytest.approx(2342.05304546)
    assert v["e2el_mean_ms"] == pytest.approx(2083.0211264285713)
    assert v["e2el_p99_ms"] == pytest.approx(2645.88375618)
    assert v["output_tok_s"] == pytest.approx(12.095750218698175)
    assert v["requests_per_s"] == pytest.approx(0.4701030011153585)
    assert v["num_requests"] == 35
    assert v["input_len"] == pytest.approx(152.65714285714284)
    assert v["output_len"] == pytest.approx(73.51428571428572)
    for absent in ("request_rate", "duration_s", "num_failed", "total_tok_s", "goodput_slo"):
        assert absent not in v


def test_inter_token_latency_fills_tpot_and_nothing_fills_itl() -> None:
    [point] = only(parse((NAME, DATA), **DEFAULTS)).points
    assert point.values["tpot_mean_ms"] == pytest.approx(7.7534012)
    assert point.values["tpot_p50_ms"] == pytest.approx(7.672729)
    assert point.values["tpot_p90_ms"] == pytest.approx(7.7700668)
    assert point.values["tpot_p95_ms"] == pytest.approx(7.802168)
    assert point.values["tpot_p99_ms"] == pytest.approx(9.24326532)
    assert not any(k.startswith("itl_") for k in point.values)


def test_meta_names_model_lengths_and_tool_but_not_the_gpu_count() -> None:
    sweep = only(parse_upload([UploadFile(NAME, DATA)], {}, require_meta=False))
    assert sweep.meta["model"] == "openai/gpt-oss-20b"
    assert (sweep.meta["isl"], sweep.meta["osl"]) == (150, 300)
    assert sweep.meta["source_tool"] == "genai-perf profile"
    assert sweep.meta["sweep"] == "gpt-oss-20b · GenAI-Perf · wellflat_k8s-dev"
    for absent in ("num_gpus", "hardware", "engine", "measured_at"):
        assert absent not in sweep.meta
    assert sweep.source_format == "GenAI-Perf profile_export_genai_perf.json"


def test_telemetry_config_and_every_percentile_are_kept_in_extra() -> None:
    [point] = only(parse((NAME, DATA), **DEFAULTS)).points
    extra = point.extra
    assert extra["telemetry_gpu_count"] == 8
    assert extra["telemetry_gpus_with_memory_used"] == 1
    assert extra["telemetry_stats"]["gpu_memory_used"]["3"]["avg"] == pytest.approx(78.084308992)
    assert extra["time_to_first_token"]["p25"] == pytest.approx(1153.8659375)
    assert extra["time_to_second_token"]["avg"] == pytest.approx(7.7104802)
    assert extra["input_config"]["endpoint"]["backend"] == "tensorrtllm"
    assert any("inter_token_latency" in note for note in extra["import_notes"])


def test_the_csv_export_with_thousands_separators_gives_the_same_point_rounded() -> None:
    name = f"{RUN_DIR}/profile_export_genai_perf.csv"
    sweep = only(parse((name, genai_csv(DOC)), model="openai/gpt-oss-20b", **DEFAULTS))
    [point] = sweep.points
    v = point.values
    assert v["concurrency"] == 1  # from the artifact directory name
    assert v["ttft_mean_ms"] == 1524.63  # written "1,524.63"
    assert v["ttft_p99_ms"] == 2342.05
    assert v["e2el_mean_ms"] == 2083.02
    assert v["e2el_p90_ms"] == 2533.03
    assert v["tpot_mean_ms"] == 7.75
    assert v["tpot_p99_ms"] == 9.24
    assert v["output_tok_s"] == 12.10
    assert v["requests_per_s"] == 0.47
    assert v["num_requests"] == 35
    assert (v["input_len"], v["output_len"]) == (152.66, 73.51)
    assert point.extra["metrics"]["time_to_first_token"]["p1"] == 480.11
    # The other percentiles a read-off may ask for (p75) are kept where it finds them.
    assert (point.extra["ttft_p75_ms"], point.extra["e2el_p75_ms"]) == (2096.08, 2397.37)
    assert len(point.extra["telemetry_rows"]) == 9  # header + 8 GPUs
    assert sweep.meta["model"] == "openai/gpt-oss-20b"  # from the form
    assert sweep.meta["sweep"] == "gpt-oss-20b · GenAI-Perf · openai_gpt-oss-20b-openai-chat"
    assert sweep.source_format == "GenAI-Perf profile_export_genai_perf.csv"


def test_the_older_csv_layout_without_units_on_token_rows_is_read_too() -> None:
    name = f"{RUN_DIR}/profile_export_genai_perf.csv"
    [point] = only(parse((name, genai_csv(DOC, old=True, telemetry=False)), **DEFAULTS)).points
    assert point.values["output_len"] == 73.51
    assert point.values["ttft_p50_ms"] == 1416.93
    assert point.values["requests_per_s"] == 0.47
    assert "ttft_p90_ms" in point.values and "p10" not in point.extra["metrics"]["request_latency"]


def test_json_and_csv_of_one_run_give_one_point_from_the_json() -> None:
    sweep = only(
        parse(
            (f"{RUN_DIR}/profile_export_genai_perf.json", DATA),
            (f"{RUN_DIR}/profile_export_genai_perf.csv", genai_csv(DOC)),
            **DEFAULTS,
        )
    )
    [point] = sweep.points
    assert point.values["ttft_mean_ms"] == pytest.approx(1524.6265132)


def test_artifact_directories_of_a_concurrency_sweep_form_one_sweep_ordered_by_load() -> None:
    files = []
    for level in (16, 1, 4):
        data = genai_perf_with_changes(
            lambda d, c=level: d["input_config"]["perf_analyzer"]["stimulus"].update(concurrency=c)
        )
        files.append(
            (
                f"artifacts/gpt-oss-20b-openai-chat-concurrency{level}/profile_export_genai_perf.json",
                data,
            )
        )
    sweep = only(parse(*files, **DEFAULTS))
    assert [p.values["concurrency"] for p in sweep.points] == [1, 4, 16]
    assert sweep.meta["sweep"] == "gpt-oss-20b · GenAI-Perf · gpt-oss-20b-openai-chat"


def test_a_request_rate_run_and_a_reported_goodput_with_its_slo() -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["input_config"]["perf_analyzer"]["stimulus"] = {"request_rate": 2.5}
        d["input_config"]["input"]["goodput"] = "time_to_first_token:2000 inter_token_latency:8"
        d["request_goodput"] = {"unit": "requests/sec", "avg": 0.31}

    [point] = only(parse((NAME, genai_perf_with_changes(mutate)), **DEFAULTS)).points
    assert point.values["request_rate"] == 2.5 and "concurrency" not in point.values
    assert point.values["goodput_requests_per_s"] == pytest.approx(0.31)
    assert point.values["goodput_slo"] == "ttft:2000 tpot:8"


def test_the_companions_of_an_artifact_directory_are_skipped_in_an_archive() -> None:
    inputs = {"data": [{"payload": [{"messages": [{"role": "user", "content": "hi"}]}]}]}
    raw = {
        "experiments": [
            {
                "experiment": {"mode": "concurrency", "value": 1},
                "requests": [],
                "window_boundaries": [],
            }
        ],
        "version": "",
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{RUN_DIR}/inputs.json", json.dumps(inputs))
        archive.writestr(f"{RUN_DIR}/profile_export.json", json.dumps(raw))
        archive.writestr(f"{RUN_DIR}/profile_export_genai_perf.json", DATA)
        archive.writestr(f"{RUN_DIR}/profile_export_genai_perf.csv", genai_csv(DOC))
    sweep = only(parse(("run.zip", buffer.getvalue()), **DEFAULTS))
    assert len(sweep.points) == 1
    message = errors_of_genai_perf(("inputs.json", json.dumps(inputs).encode()))
    assert "inputs.json" in message and "profile_export_genai_perf.json" in message


def test_the_fixture_zipped_imports_as_the_same_sweep() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(NAME, DATA)
    zipped = only(parse(("genai.zip", buffer.getvalue()), **DEFAULTS))
    loose = only(parse((NAME, DATA), **DEFAULTS))
    assert zipped.content_hash() == loose.content_hash()
    assert zipped.meta["sweep"] == loose.meta["sweep"]


def test_a_truncated_json_export_is_refused_naming_the_file() -> None:
    message = errors_of_genai_perf((NAME, DATA[:5000]))
    assert NAME in message and "not valid JSON" in message


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda d: d["time_to_first_token"].update(p99="fast"), "time_to_first_token.p99"),
        (lambda d: d.update(request_latency=[2083.0]), "request_latency"),
        (lambda d: d.pop("output_token_throughput"), "output_token_throughput"),
        (lambda d: d["request_count"].update(avg=35.5), "request_count.avg"),
        (
            lambda d: d["input_config"]["perf_analyzer"]["stimulus"].update(concurrency="one"),
            "input_config.perf_analyzer.stimulus.concurrency",
        ),
    ],
)
def test_a_bad_json_value_is_refused_naming_file_and_key(mutate: Any, key: str) -> None:
    message = errors_of_genai_perf((NAME, genai_perf_with_changes(mutate)))
    assert NAME in message and key in message


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda t: t.replace('"1,524.63"', "fast", 1), ["Time To First Token (ms)", "fast"]),
        (
            lambda t: "\n".join(r for r in t.splitlines() if "Output Token Throughput (" not in r),
            ["output_token_throughput"],
        ),
        (lambda t: t.replace(',"2,083.02"', "", 1), ["Request Latency (ms)", "cells"]),
    ],
)
def test_a_bad_csv_is_refused_naming_file_and_row(edit: Any, expected: list[str]) -> None:
    name = f"{RUN_DIR}/profile_export_genai_perf.csv"
    message = errors_of_genai_perf((name, edit(genai_csv(DOC).decode()).encode()))
    assert name in message
    for part in expected:
        assert part in message


def test_the_genai_perf_fixture_imports_through_the_api(client: TestClient) -> None:
    response = client.post(
        "/api/sweeps",
        files=[("files", (NAME, DATA, "application/octet-stream"))],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    [created] = response.json()["sweeps"]
    stored = client.get(f"/api/sweeps/{created['id']}").json()
    assert stored["model"] == "openai/gpt-oss-20b"
    assert stored["num_gpus"] == 8
    [point] = stored["points"]
    assert point["tpot_mean_ms"] == pytest.approx(7.7534012)
    assert point["itl_mean_ms"] is None
    assert point["extra"]["telemetry_gpu_count"] == 8
