"""TensorRT-LLM `trtllm-bench --report_json`: no public report file was saved, so the reports
here are built from the documented schema (`ReportUtility.get_statistics_dict`, reporting.py).
"""

from __future__ import annotations

import copy
import io
import json
import tarfile
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.ingest import NO_TPOT_WARNING, IngestError
from app.ingest.source import SourceFile
from app.ingest.tools.trtllm import IMPORTER
from tests.helpers import parse

FORM = {"hardware": "B200", "num_gpus": 8}
NAME = "report.json"


def stats(*values: Any) -> dict[str, Any]:
    """PercentileStats as the report writes it: p50, p90, p95, p99, minimum, maximum, average."""
    p50, p90, p95, p99, lo, hi, avg = values
    return {
        "p50": p50,
        "p90": p90,
        "p95": p95,
        "p99": p99,
        "minimum": lo,
        "maximum": hi,
        "average": avg,
    }


def trtllm_report(**changes: Any) -> dict[str, Any]:
    """A streaming `trtllm-throughput` report: 1000 requests of 1024/512 tokens, TP4 on H100."""
    data: dict[str, Any] = {
        "engine": {
            "model": "meta-llama/Llama-3.1-70B-Instruct",
            "model_path": "None",
            "engine_dir": "None",
            "version": "1.0.0",
            "backend": "Pytorch",
            "dtype": "bfloat16",
            "kv_cache_dtype": "FP8",
            "quantization": "FP8",
        },
        "machine": {"name": "NVIDIA H100 80GB HBM3", "memory.total": 79.1, "clocks.mem": 2.619},
        "world_info": {
            "tp_size": 4,
            "pp_size": 1,
            "ep_size": 1,
            "world_size": 4,
            "max_batch_size": 256,
            "max_num_tokens": 8192,
            "scheduling_policy": "GUARANTEED_NO_EVICT",
            "kv_cache_percentage": 0.9,
            "issue_rate": 1.2e17,
        },
        "request_info": {
            "num_requests": 1000,
            "avg_num_concurrent_requests": 116.66666666666667,
            "avg_input_length": 1024.0,
            "avg_output_length": 512.0,
        },
        "performance": {
            "total_latency_ms": 120000.0,
            "avg_request_latency_ms": 14000.0,
            "request_throughput_req_s": 8.333333333333334,
            "system_output_throughput_tok_s": 4266.666666666667,
            "system_total_throughput_tok_s": 12800.0,
            "output_throughput_per_user_tok_s": 36.57,
            "output_throughput_per_gpu_tok_s": 1066.6666666666667,
            "request_latency_percentiles_ms": stats(
                13870.2, 15012.4, 15377.9, 16021.3, 9021.7, 16450.1, 14000.0
            ),
        },
        "streaming_metrics": {
            "token_output_speed_tok_s": 39.06,
            "avg_ttft_ms": 901.7,
            "avg_tpot_ms": 25.6,
            "tpot_percentiles": stats(25.3, 27.9, 28.6, 30.1, 19.8, 31.4, 25.6),
            "ttft_percentiles": stats(812.4, 1533.0, 1801.2, 2410.9, 95.3, 2744.6, 901.7),
            "gen_tps_percentiles": stats(39.5, 44.1, 45.0, 47.2, 31.8, 50.5, 39.06),
        },
        "dataset": {
            "isl_stats": stats(1024, 1024, 1024, 1024, 1024, 1024, 1024.0),
            "osl_stats": stats(512, 512, 512, 512, 512, 512, 512.0),
            "seq_len_stats": stats(1536, 1536, 1536, 1536, 1536, 1536, 1536.0),
            "num_requests": 1000,
            "dataset_path": "/data/synthetic_1024_512.jsonl",
            "max_isl": 1024,
            "max_osl": 512,
            "max_sequence_length": 1536,
            "avg_isl": 1024,
            "avg_osl": 512,
            "avg_sequence_length": 1536,
        },
    }
    for path, value in changes.items():
        *parents, leaf = path.split("__")
        target = data
        for key in parents:
            target = target[key]
        if value is None:
            target.pop(leaf)
        else:
            target[leaf] = value
    return data


def test_a_streaming_report_is_one_point_with_its_exact_values() -> None:
    [sweep] = parse((NAME, trtllm_report()), **FORM)
    [point] = sweep.points
    v = point.values
    assert v["num_requests"] == 1000
    assert v["achieved_concurrency"] == pytest.approx(116.66666666666667)
    assert (v["input_len"], v["output_len"]) == (1024.0, 512.0)
    assert v["duration_s"] == 120.0  # total_latency_ms 120000 / 1000
    assert v["requests_per_s"] == pytest.approx(8.333333333333334)
    assert v["output_tok_s"] == pytest.approx(4266.666666666667)
    assert v["total_tok_s"] == 12800.0
    assert (v["e2el_mean_ms"], v["e2el_p50_ms"], v["e2el_p90_ms"]) == (14000.0, 13870.2, 15012.4)
    assert (v["e2el_p95_ms"], v["e2el_p99_ms"]) == (15377.9, 16021.3)
    assert (v["ttft_mean_ms"], v["ttft_p50_ms"], v["ttft_p99_ms"]) == (901.7, 812.4, 2410.9)
    assert (v["tpot_mean_ms"], v["tpot_p50_ms"], v["tpot_p90_ms"]) == (25.6, 25.3, 27.9)
    assert (v["tpot_p95_ms"], v["tpot_p99_ms"]) == (28.6, 30.1)
    assert not any(k.startswith("itl_") for k in v)


def test_the_report_prefills_model_engine_precision_gpus_hardware_and_lengths() -> None:
    [sweep] = parse((NAME, trtllm_report()), **FORM)
    assert sweep.source_format == "trtllm-bench report JSON (TensorRT-LLM 1.0.0)"
    meta = sweep.meta
    assert meta["model"] == "meta-llama/Llama-3.1-70B-Instruct"
    assert (meta["engine"], meta["engine_version"]) == ("trt-llm", "1.0.0")
    assert meta["precision"] == "fp8"
    assert meta["num_gpus"] == 4  # world_size (the form said 8)
    assert meta["hardware"] == "NVIDIA H100 80GB HBM3"  # machine.name, matched on upload
    assert (meta["isl"], meta["osl"]) == (1024, 512)
    assert meta["source_tool"] == "trtllm-bench"
    assert meta["sweep"] == "Llama-3.1-70B-Instruct · trtllm-bench · fp8 tp4 pp1"


def test_issue_rate_is_not_a_request_rate_and_no_concurrency_cap_is_invented() -> None:
    [sweep] = parse((NAME, trtllm_report()), **FORM)
    point = sweep.points[0]
    assert "request_rate" not in point.values and "concurrency" not in point.values
    assert point.extra["report"]["world_info"]["issue_rate"] == 1.2e17
    assert point.extra["e2el_minimum_ms"] == 9021.7
    assert point.extra["tpot_maximum_ms"] == 31.4
    assert point.extra["report"]["performance"]["output_throughput_per_gpu_tok_s"] == pytest.approx(
        1066.6666666666667
    )
    json.dumps(point.extra, allow_nan=False)


def test_tp_times_pp_counts_the_gpus_when_world_size_is_missing() -> None:
    data = trtllm_report(world_info__world_size=None, world_info__tp_size=2, world_info__pp_size=2)
    [sweep] = parse((NAME, data), **FORM)
    assert sweep.meta["num_gpus"] == 4
    assert sweep.meta["sweep"].endswith("fp8 tp2 pp2")


@pytest.mark.parametrize(
    ("quantization", "dtype", "precision"),
    [(None, "bfloat16", "bf16"), ("NVFP4", "bfloat16", "fp4"), ("W4A16_AWQ", "float16", "int4")],
)
def test_precision_is_the_quantization_or_else_the_dtype(
    quantization: str | None, dtype: str, precision: str
) -> None:
    data = trtllm_report(engine__dtype=dtype)
    data["engine"]["quantization"] = quantization
    [sweep] = parse((NAME, data), **FORM)
    assert sweep.meta["precision"] == precision


def test_reports_of_one_configuration_form_one_sweep_ordered_by_achieved_concurrency() -> None:
    files = [
        (f"run/c{c}.json", trtllm_report(request_info__avg_num_concurrent_requests=float(c)))
        for c in (64, 8, 32)
    ]
    other = trtllm_report(world_info__tp_size=8, world_info__world_size=8)
    sweeps = parse(*files, ("run/tp8.json", other), **FORM)
    assert [len(s.points) for s in sweeps] == [3, 1]
    assert [p.values["achieved_concurrency"] for p in sweeps[0].points] == [8.0, 32.0, 64.0]
    assert sweeps[0].source_file == "run"


def test_a_report_without_streaming_metrics_imports_with_a_no_tpot_warning() -> None:
    [sweep] = parse((NAME, trtllm_report(streaming_metrics=None)), **FORM)
    assert sweep.warnings == [NO_TPOT_WARNING]


def test_sniff_claims_trtllm_reports_and_not_other_json() -> None:
    assert IMPORTER.sniff(SourceFile(NAME, json.dumps(trtllm_report()).encode()))
    assert not IMPORTER.sniff(SourceFile("x.json", b'{"performance": {"score": 1}}'))
    assert not IMPORTER.sniff(
        SourceFile("x.json", b'{"endpoint_type": "openai", "mean_ttft_ms": 1}')
    )


@pytest.mark.parametrize(
    ("data", "key"),
    [
        (
            trtllm_report(performance__system_output_throughput_tok_s="fast"),
            "performance.system_output_throughput_tok_s",
        ),
        (trtllm_report(request_info__num_requests=[1000]), "request_info.num_requests"),
        (
            trtllm_report(performance__request_latency_percentiles_ms=None),
            "'request_latency_percentiles_ms'",
        ),
        (trtllm_report(engine=None), "'engine'"),
        (
            trtllm_report(streaming_metrics__tpot_percentiles=stats(1, 2, 3, "x", 0, 5, 2)),
            "streaming_metrics.tpot_percentiles.p99",
        ),
    ],
)
def test_bad_content_is_refused_naming_the_file_and_the_key(data: dict[str, Any], key: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse((NAME, data), **FORM)
    assert NAME in str(caught.value)
    assert key in str(caught.value)


def test_truncated_json_is_refused_naming_the_file() -> None:
    raw = json.dumps(trtllm_report()).encode()
    with pytest.raises(IngestError, match=r"report\.json: not valid JSON"):
        parse((NAME, raw[: len(raw) // 2]), **FORM)


def test_a_tarball_of_a_sweep_imports_as_the_same_sweep() -> None:
    members = {
        f"c{c}.json": trtllm_report(request_info__avg_num_concurrent_requests=float(c))
        for c in (8, 32)
    }
    [direct] = parse(*((f"run/{n}", d) for n, d in members.items()), **FORM)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            raw = json.dumps(data).encode()
            info = tarfile.TarInfo(f"run/{name}")
            info.size = len(raw)
            archive.addfile(info, io.BytesIO(raw))
    [tarred] = parse(("trtllm.tar.gz", buffer.getvalue()), **FORM)
    assert tarred.content_hash() == direct.content_hash()


def test_built_reports_import_through_the_api(client: TestClient) -> None:
    base = copy.deepcopy(trtllm_report())
    files = [
        (
            "files",
            (
                f"c{c}.json",
                json.dumps(
                    {
                        **base,
                        "request_info": {
                            **base["request_info"],
                            "avg_num_concurrent_requests": float(c),
                        },
                    }
                ).encode(),
                "application/octet-stream",
            ),
        )
        for c in (16, 4)
    ]
    response = client.post("/api/sweeps", files=files, data={"hardware": "H100", "num_gpus": "8"})
    assert response.status_code == 201, response.text
    [created] = response.json()["sweeps"]
    assert created["points"] == 2
    stored = client.get(f"/api/sweeps/{created['id']}").json()
    assert (stored["num_gpus"], stored["engine"], stored["precision"]) == (4, "trt-llm", "fp8")
    assert [p["achieved_concurrency"] for p in stored["points"]] == [4.0, 16.0]
