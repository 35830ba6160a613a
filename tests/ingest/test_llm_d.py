"""llm-d-benchmark Benchmark Report v0.2: the schema's example (placeholder values, imported
exactly as it says), plus JSON, multi-stage, disaggregated and guidellm-sourced variants.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import io
import json
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from app.ingest import IngestError
from app.ingest.source import SourceFile
from app.ingest.tools.llm_d import IMPORTER
from tests.conftest import FIXTURES
from tests.helpers import parse

FIXTURE = FIXTURES / "llm-d" / "br_v0_2_example.yaml"
NAME = FIXTURE.name
FORM = {"hardware": "B200", "num_gpus": 4}
AGG = "results.request_performance.aggregate"


@functools.cache
def _fixture_doc() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(FIXTURE.read_text())
    return data


def llm_d_doc() -> dict[str, Any]:
    """The example report, parsed once per process (pure-Python YAML: ~0.1 s a parse)."""
    return copy.deepcopy(_fixture_doc())


def as_yaml(data: dict[str, Any]) -> bytes:
    return yaml.safe_dump(data).encode()


def one_llm_d_point(data: dict[str, Any]) -> Any:
    [sweep] = parse(("report.yaml", as_yaml(data)), **FORM)
    [point] = sweep.points
    return point


def test_the_example_report_prefills_model_gpus_hardware_and_engine() -> None:
    [sweep] = parse((NAME, FIXTURE.read_bytes()), **FORM)
    assert sweep.source_format == "llm-d Benchmark Report v0.2 (inference-perf 0.3.0)"
    meta = sweep.meta
    assert meta["model"] == "Qwen/Qwen3-0.6B"
    assert meta["num_gpus"] == 16  # accelerator.count 8 × replicas 2 (the form said 4)
    # As the report writes it (the form said B200); the catalog matcher names the key on upload.
    assert meta["hardware"] == "NVIDIA-H100-80GB-HBM3"
    assert (meta["engine"], meta["engine_version"]) == ("llm-d", "0.3.1")
    assert (meta["isl"], meta["osl"]) == (2148, 1000)
    assert meta["workload"] == "sampled"
    assert meta["measured_at"] == dt.date(2025, 11, 5)
    assert meta["notes"] == "Baseline latency test for Qwen3-0.6B on inference-scheduling stack"
    assert meta["source_tool"] == "llm-d-benchmark (inference-perf 0.3.0)"
    assert meta["sweep"] == (
        "Qwen3-0.6B · llm-d · Baseline latency test for Qwen3-0.6B on inference-scheduling stack"
    )
    assert "num_prefill_gpus" not in meta and "num_decode_gpus" not in meta


def test_the_example_point_holds_its_placeholder_values_with_units_honoured() -> None:
    [sweep] = parse((NAME, FIXTURE.read_bytes()), **FORM)
    [point] = sweep.points
    v = point.values
    assert v["request_rate"] == 10.0
    assert "concurrency" not in v and point.extra["concurrency"] == "inf"
    assert (v["num_requests"], v["num_failed"]) == (500, 0)
    assert v["input_len"] == v["output_len"] == 2262.448
    # units: s → ms
    assert v["ttft_mean_ms"] == pytest.approx(36.8578234128654)
    assert v["ttft_p50_ms"] == pytest.approx(36.22930939309299)
    assert v["ttft_p90_ms"] == pytest.approx(42.62634576298297)
    assert v["ttft_p95_ms"] == pytest.approx(45.246614259667695)
    assert v["ttft_p99_ms"] == pytest.approx(50.29489721637218)
    # units: s/token → ms
    assert v["tpot_mean_ms"] == pytest.approx(36.8578234128654)
    assert v["itl_mean_ms"] == pytest.approx(36.8578234128654)
    assert v["e2el_mean_ms"] == pytest.approx(36.8578234128654)
    assert v["output_tok_s"] == v["total_tok_s"] == v["requests_per_s"] == 2262.448
    assert v["duration_s"] == pytest.approx(49.97206788184121)  # PT49.97206788184121S
    assert not any(k.startswith(("tpot_p", "itl_p", "e2el_p")) for k in v)


def test_everything_else_of_the_report_is_kept_in_extra() -> None:
    [sweep] = parse((NAME, FIXTURE.read_bytes()), **FORM)
    extra = sweep.points[0].extra
    assert extra["stage"] == 3
    assert extra["ttft_p99.9_ms"] == pytest.approx(57.014757215045425)
    assert extra["ttft_p0.1_ms"] == pytest.approx(27.322400792501866)
    assert extra["ntpot_mean_ms"] == pytest.approx(36.8578234128654)
    assert extra["input_token_rate_mean"] == 2262.448
    report = extra["report"]
    assert report["results"]["observability"]["drop_rate"]["p99"] == 0.12
    assert report["results"]["session_performance"]["sessions"]["total"] == 112
    assert report["scenario"]["load"]["standardized"]["concurrency"] == "inf"
    assert report["run"]["time"]["start"] == "2025-11-05T18:00:42+00:00"
    json.dumps(extra, allow_nan=False)


def test_a_json_rendering_imports_the_same_point() -> None:
    from_yaml = parse((NAME, FIXTURE.read_bytes()), **FORM)[0]
    rendered = json.dumps(llm_d_doc(), default=str).encode()  # .inf → bare Infinity
    from_json = parse(("report.json", rendered), **FORM)[0]
    assert from_json.points[0].values == from_yaml.points[0].values
    assert from_json.meta["num_gpus"] == 16


def test_ms_units_are_taken_as_they_are() -> None:
    data = llm_d_doc()
    ttft = data["results"]["request_performance"]["aggregate"]["latency"]["time_to_first_token"]
    data["results"]["request_performance"]["aggregate"]["latency"]["time_to_first_token"] = {
        "units": "ms",
        "mean": ttft["mean"] * 1000,
        "p99": 50.0,
    }
    v = one_llm_d_point(data).values
    assert v["ttft_mean_ms"] == pytest.approx(36.8578234128654)
    assert v["ttft_p99_ms"] == 50.0


@pytest.mark.parametrize(
    ("section", "metric", "units", "key"),
    [
        ("latency", "time_to_first_token", "minutes", f"{AGG}.latency.time_to_first_token.units"),
        (
            "throughput",
            "output_token_rate",
            "tokens/min",
            f"{AGG}.throughput.output_token_rate.units",
        ),
        ("requests", "input_length", "s", f"{AGG}.requests.input_length.units"),
    ],
)
def test_units_a_metric_cannot_have_are_refused(
    section: str, metric: str, units: str, key: str
) -> None:
    data = llm_d_doc()
    data["results"]["request_performance"]["aggregate"][section][metric]["units"] = units
    with pytest.raises(IngestError, match=f"report.yaml: key '{key}'"):
        parse(("report.yaml", as_yaml(data)), **FORM)


def test_a_guidellm_sourced_report_takes_tpot_from_its_inter_token_latency() -> None:
    data = llm_d_doc()
    data["scenario"]["load"]["standardized"]["tool"] = "guidellm"
    latency = data["results"]["request_performance"]["aggregate"]["latency"]
    latency["time_per_output_token"] = {"units": "ms/token", "mean": 2.4421364068984985}
    latency["inter_token_latency"] = {"units": "ms/token", "mean": 1.1508464813232422, "p99": 1.3}
    point = one_llm_d_point(data)
    assert point.values["tpot_mean_ms"] == pytest.approx(1.1508464813232422)
    assert point.values["tpot_p99_ms"] == 1.3
    assert not any(k.startswith("itl_") for k in point.values)
    assert point.extra["guidellm_time_per_output_token_mean_ms"] == pytest.approx(
        2.4421364068984985
    )


def test_prefill_and_decode_components_fill_the_disaggregated_gpu_counts() -> None:
    data = llm_d_doc()
    prefill = copy.deepcopy(data["scenario"]["stack"][0])
    prefill["metadata"]["label"] = "vllm-prefill-0"
    prefill["standardized"]["role"] = "prefill"
    prefill["standardized"]["replicas"] = 1
    prefill["standardized"]["accelerator"]["count"] = 4
    data["scenario"]["stack"].append(prefill)
    [sweep] = parse(("report.yaml", as_yaml(data)), **FORM)
    assert sweep.meta["num_gpus"] == 20
    assert (sweep.meta["num_prefill_gpus"], sweep.meta["num_decode_gpus"]) == (4, 16)


def test_stage_reports_of_one_experiment_form_one_sweep_ordered_by_stage() -> None:
    files = []
    for stage, rate in ((3, 10.0), (1, 5.0), (2, 8.0)):
        data = llm_d_doc()
        data["scenario"]["load"]["standardized"].update(stage=stage, rate_qps=rate)
        files.append((f"br_stage_{stage}.yaml", as_yaml(data)))
    [sweep] = parse(*files, **FORM)
    assert [p.values["request_rate"] for p in sweep.points] == [5.0, 8.0, 10.0]
    assert [p.extra["stage"] for p in sweep.points] == [1, 2, 3]


def test_sniff_claims_yaml_and_json_reports_only() -> None:
    assert IMPORTER.sniff(SourceFile(NAME, FIXTURE.read_bytes()))
    assert IMPORTER.sniff(SourceFile("r.json", json.dumps(llm_d_doc(), default=str).encode()))
    assert not IMPORTER.sniff(SourceFile("x.yaml", b"version: '0.2'\nrun: {}\n"))
    assert not IMPORTER.sniff(SourceFile("x.json", b'{"version": "0.2"}'))


def _llm_d_mutated(change: Callable[[dict[str, Any]], object]) -> bytes:
    data = llm_d_doc()
    change(data)
    return as_yaml(data)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (
            lambda d: d["results"]["request_performance"]["aggregate"]["latency"][
                "time_to_first_token"
            ].update(mean="fast"),
            f"{AGG}.latency.time_to_first_token.mean",
        ),
        (
            lambda d: d["results"]["request_performance"]["aggregate"]["throughput"][
                "output_token_rate"
            ].update(mean=[1, 2]),
            f"{AGG}.throughput.output_token_rate.mean",
        ),
        (
            lambda d: d["results"].pop("request_performance"),
            "'request_performance'",
        ),
        (
            lambda d: d["scenario"]["stack"][0]["standardized"]["accelerator"].pop("count"),
            "scenario.stack[0].standardized.accelerator",
        ),
        (lambda d: d.update(version="0.1"), "key 'version'"),
        (
            lambda d: d["scenario"]["load"]["standardized"].update(rate_qps="ten"),
            "scenario.load.standardized.rate_qps",
        ),
    ],
)
def test_bad_content_is_refused_naming_the_file_and_the_key(
    change: Callable[[dict[str, Any]], object], key: str
) -> None:
    with pytest.raises(IngestError) as caught:
        parse(("report.yaml", _llm_d_mutated(change)), **FORM)
    assert "report.yaml" in str(caught.value)
    assert key in str(caught.value)


def test_broken_yaml_and_truncated_json_are_refused_naming_the_file() -> None:
    with pytest.raises(IngestError, match=r"report\.yaml: not valid YAML"):
        parse(("report.yaml", FIXTURE.read_bytes() + b"\nresults: [unclosed\n"), **FORM)
    rendered = json.dumps(llm_d_doc(), default=str).encode()
    with pytest.raises(IngestError, match=r"report\.json: not valid JSON"):
        parse(("report.json", rendered[: len(rendered) // 2]), **FORM)


def test_a_zipped_report_imports_as_the_same_sweep() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"results/{NAME}", FIXTURE.read_bytes())
    [zipped] = parse(("br.zip", buffer.getvalue()), **FORM)
    [direct] = parse((NAME, FIXTURE.read_bytes()), **FORM)
    assert zipped.content_hash() == direct.content_hash()


def test_the_example_report_imports_through_the_api(client: TestClient) -> None:
    files = [("files", (NAME, FIXTURE.read_bytes(), "application/octet-stream"))]
    response = client.post("/api/sweeps", files=files, data={"hardware": "H100", "num_gpus": "8"})
    assert response.status_code == 201, response.text
    [created] = response.json()["sweeps"]
    stored = client.get(f"/api/sweeps/{created['id']}").json()
    # This database has no catalog, so the report's accelerator stays as written; with the seeded
    # catalog it becomes H100 (tests/web/test_catalog_matching.py).
    assert (stored["num_gpus"], stored["hardware"], stored["model"]) == (
        16,
        "NVIDIA-H100-80GB-HBM3",
        "Qwen/Qwen3-0.6B",
    )
    assert stored["points"][0]["tpot_mean_ms"] == pytest.approx(36.8578234128654)


def test_the_example_report_keeps_vllm_prefix_cache_hit_rate_as_a_fraction() -> None:
    [sweep] = parse((NAME, FIXTURE.read_bytes()), **FORM)
    # observability.vllm_prefix_cache_hit_rate: the decode engine's mean, 65.3 percent.
    assert sweep.points[0].extra["prefix_cache_hit_rate"] == pytest.approx(0.653)
