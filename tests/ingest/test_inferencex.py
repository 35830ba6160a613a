"""InferenceX / InferenceMAX: processed agg rows (seconds, per-GPU throughput), agg_bmk.json lists
built from them here, and the RAW benchmark_serving files, which the vLLM importer reads."""

from __future__ import annotations

import io
import json
import math
import tarfile
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.ingest import IngestError
from app.ingest.source import SourceFile
from app.ingest.tools.inferencex import IMPORTER
from tests.conftest import FIXTURES
from tests.helpers import bytes_in, parse

DIR = FIXTURES / "inferencemax"
AGG32 = "agg_kimik2.5_8k1k_int4_vllm_mi355x_tp8_mtp_conc32.json"
AGG64 = "agg_kimik2.5_8k1k_int4_vllm_mi355x_tp8_mtp_conc64.json"
RAW8 = "raw_benchmark_serving_gptoss120b_1k1k_disagg16gpu_conc8.json"
RAW64 = "raw_benchmark_serving_gptoss120b_1k1k_disagg16gpu_conc64.json"
KIMI = "Kimi-K2.5 · InferenceX · mi355x vllm int4 mtp · 8192/1024 · TP8"


raw_inferencex = partial(bytes_in, DIR)


def obj_inferencex(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(raw_inferencex(name))
    return data


def disagg_row(prefill: int, decode: int, source: str = RAW64) -> dict[str, Any]:
    """What process_result.py writes for a multi-node run of a RAW fixture."""
    run = obj_inferencex(source)
    total, output = run["total_token_throughput"], run["output_throughput"]
    row: dict[str, Any] = {
        "hw": "b200-multinode",
        "conc": run["max_concurrency"],
        "image": "nvcr.io#nvidia#ai-dynamo#tensorrtllm-runtime:0.8.1",
        "model": "openai/gpt-oss-120b",
        "infmax_model_prefix": "gptoss120b",
        "framework": "dynamo-trt",
        "precision": "fp4",
        "spec_decoding": "none",
        "disagg": True,
        "isl": 1024,
        "osl": 1024,
        "is_multinode": True,
        "prefill_tp": prefill,
        "prefill_ep": 1,
        "prefill_dp_attention": "false",
        "prefill_num_workers": 1,
        "decode_tp": decode,
        "decode_ep": 1,
        "decode_dp_attention": "false",
        "decode_num_workers": 1,
        "num_prefill_gpu": prefill,
        "num_decode_gpu": decode,
        "tput_per_gpu": total / (prefill + decode),
        "output_tput_per_gpu": output / decode,
        "input_tput_per_gpu": (total - output) / prefill,
    }
    for key, value in run.items():
        if key.endswith("_ms"):
            row[key.removesuffix("_ms")] = value / 1000
    return row


def test_the_two_kimi_agg_rows_form_one_sweep_with_meta_from_the_rows() -> None:
    [sweep] = parse((AGG64, raw_inferencex(AGG64)), (AGG32, raw_inferencex(AGG32)))
    assert sweep.name == KIMI
    assert sweep.source_format == "InferenceX agg row (process_result.py)"
    assert sweep.meta == {
        "hardware": "MI355X",
        "num_gpus": 8,
        "model": "moonshotai/Kimi-K2.5",
        "engine": "vllm",
        "engine_version": "0.21.0",
        "precision": "int4",
        "spec_decode": "mtp",
        "isl": 8192,
        "osl": 1024,
        "source_tool": "InferenceX",
        "config": "tp=8 ep=1 dp_attention=false",  # the layout, a field (issue 51 §5)
        "sweep": KIMI,
    }
    assert [p.values["concurrency"] for p in sweep.points] == [32, 64]


def test_seconds_become_ms_and_per_gpu_throughput_becomes_deployment_wide() -> None:
    [sweep] = parse((AGG32, raw_inferencex(AGG32)))
    [point] = sweep.points
    expected = {
        "concurrency": 32,
        "total_tok_s": 157.12165563281164 * 8,
        "output_tok_s": 17.57057269511527 * 8,
        "ttft_mean_ms": 2509.421745484724,
        "ttft_p50_ms": 1816.827566944994,
        "ttft_p90_ms": 2872.078464948573,
        "ttft_p99_ms": 14490.030684259256,
        "tpot_mean_ms": 224.1063620785443,
        "tpot_p50_ms": 230.31720386957874,
        "tpot_p90_ms": 239.92848801135866,
        "tpot_p99_ms": 248.8943170008848,
        "itl_mean_ms": 630.1551175580624,
        "itl_p50_ms": 659.2198834987357,
        "itl_p90_ms": 719.8493110015989,
        "itl_p99_ms": 792.621582292486,
        "e2el_mean_ms": 209495.685253392,
        "e2el_p50_ms": 215192.61913583614,
        "e2el_p90_ms": 234439.15712875315,
        "e2el_p99_ms": 246095.37068210076,
    }
    assert point.values == pytest.approx(expected, rel=1e-12)
    assert point.values["tpot_p50_ms"] != point.values["itl_p50_ms"]  # MTP: chunks of tokens
    assert point.extra["p99.9_ttft"] == 15.443533379666526
    assert point.extra["std_tpot"] == 0.027791359278082593
    assert point.extra["median_intvty"] == 4.3418380529066685
    assert point.extra["input_tput_per_gpu"] == 139.55108293769638
    assert point.extra["image"] == "vllm/vllm-openai-rocm:v0.21.0"
    assert point.extra["hw"] == "mi355x"
    assert not any(k.endswith("_p95_ms") for k in point.values)


def test_agg_bmk_lists_split_into_one_sweep_per_configuration() -> None:
    rows = [obj_inferencex(AGG32), disagg_row(8, 8, RAW8), obj_inferencex(AGG64), disagg_row(8, 8)]
    [kimi, gptoss] = parse(("results_bmk/agg_bmk.json", json.dumps(rows).encode()))
    assert kimi.name == KIMI
    assert kimi.source_format == "InferenceX agg_bmk.json (collect_results.py)"
    assert [p.row for p in kimi.points] == [1, 3]
    assert gptoss.name == (
        "gpt-oss-120b · InferenceX · b200-multinode dynamo-trt fp4 · 1024/1024 · 8P+8D"
        " · prefill TP8 × 1, decode TP8 × 1"
    )
    assert (gptoss.meta["hardware"], gptoss.meta["num_gpus"]) == ("B200", 16)
    assert (gptoss.meta["num_prefill_gpus"], gptoss.meta["num_decode_gpus"]) == (8, 8)
    assert gptoss.meta["spec_decode"] == "none"
    assert gptoss.meta["engine_version"] == "0.8.1"  # the image tag
    conc8, conc64 = gptoss.points
    assert conc8.values["output_tok_s"] == pytest.approx(928.9837604849168, rel=1e-12)
    assert conc8.values["total_tok_s"] == pytest.approx(1857.9675209698337, rel=1e-12)
    assert conc64.values["output_tok_s"] == pytest.approx(5002.605334620647, rel=1e-12)
    assert conc64.values["tpot_p50_ms"] == pytest.approx(12.51935791408594, rel=1e-12)


def test_disaggregated_output_throughput_is_per_decode_gpu_not_per_gpu() -> None:
    row = disagg_row(4, 12)
    assert row["output_tput_per_gpu"] == 5002.605334620647 / 12
    [sweep] = parse(("agg_bmk.json", json.dumps([row]).encode()))
    [point] = sweep.points
    assert sweep.meta["num_gpus"] == 16
    assert point.values["output_tok_s"] == pytest.approx(5002.605334620647, rel=1e-12)
    assert point.values["total_tok_s"] == pytest.approx(10005.210669241294, rel=1e-12)


def test_v1_rows_and_pipeline_parallel_rows_count_their_gpus() -> None:
    v1 = {
        "hw": "h100",
        "tp": 4,
        "ep": 1,
        "dp_attention": "false",
        "conc": 16,
        "model": "deepseek-ai/DeepSeek-R1-0528",
        "framework": "sglang",
        "precision": "fp8",
        "mtp": "on",
        "tput_per_gpu": 1000.0,
        "output_tput_per_gpu": 500.0,
        "median_tpot": 0.02,
        "median_intvty": 50.0,
    }
    [sweep] = parse(("agg_v1.json", json.dumps(v1).encode()))
    assert (sweep.meta["hardware"], sweep.meta["num_gpus"]) == ("H100", 4)
    assert sweep.meta["spec_decode"] == "mtp"
    assert sweep.points[0].values == {
        "concurrency": 16,
        "total_tok_s": 4000.0,
        "output_tok_s": 2000.0,
        "tpot_p50_ms": 20.0,
    }
    [sweep] = parse(("agg_pp.json", json.dumps(v1 | {"pp": 2, "pcp_size": 1}).encode()))
    assert sweep.meta["num_gpus"] == 8
    assert sweep.points[0].values["output_tok_s"] == 4000.0


def test_the_raw_files_are_the_legacy_vllm_schema_and_import_through_the_vllm_importer() -> None:
    assert not IMPORTER.sniff(SourceFile(RAW8, raw_inferencex(RAW8)))
    [sweep] = parse(
        (RAW64, raw_inferencex(RAW64)), (RAW8, raw_inferencex(RAW8)), hardware="MI355X", num_gpus=16
    )
    assert sweep.source_format == (
        "vLLM benchmark_serving.py result JSON (legacy schema, as InferenceX writes it)"
    )
    assert sweep.meta["model"] == "openai/gpt-oss-120b"
    assert sweep.meta["source_tool"] == "vllm benchmark_serving.py"
    conc8, conc64 = sweep.points
    assert conc8.values == {
        "concurrency": 8,
        "request_rate": math.inf,
        "num_requests": 80,
        "duration_s": 88.1823810969945,
        "input_len": 1024.0,
        "output_len": 1024.0,
        "output_tok_s": 928.9837604849168,
        "total_tok_s": 1857.9675209698337,
        "requests_per_s": 0.9072107035985516,
        "ttft_mean_ms": 122.96592185739428,
        "ttft_p50_ms": 112.40720690693706,
        "ttft_p90_ms": 255.94735525082797,
        "ttft_p99_ms": 311.73925049602985,
        "tpot_mean_ms": 8.482334189249984,
        "tpot_p50_ms": 8.484079436520124,
        "tpot_p90_ms": 8.605768184886767,
        "tpot_p99_ms": 8.633496982299468,
        "itl_mean_ms": 8.482334263969731,
        "itl_p50_ms": 8.499014074914157,
        "itl_p90_ms": 8.674743911251426,
        "itl_p99_ms": 8.812509721610695,
        "e2el_mean_ms": 8800.393797460129,
        "e2el_p50_ms": 8809.698014520109,
        "e2el_p90_ms": 8913.593775313348,
        "e2el_p99_ms": 8953.53475105483,
    }
    assert conc8.extra["request_goodput:"] is None
    assert conc8.extra["p99.9_itl_ms"] == 10.00087821437054
    assert conc8.extra["best_of"] == 1
    # SOURCES.md: ~116.1 tok/s/GPU total over 16 GPUs, ~117.9 tok/s/user at conc 8
    assert conc8.values["total_tok_s"] / 16 == pytest.approx(116.1, abs=0.05)
    assert 1000 / conc8.values["tpot_p50_ms"] == pytest.approx(117.9, abs=0.05)
    assert 1000 / conc64.values["tpot_p50_ms"] == pytest.approx(79.9, abs=0.05)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda b: b[: len(b) // 2], r"not valid JSON"),
        (lambda b: b.replace(b'"conc": 32', b'"conc": "thirty-two"'), r"key 'conc': expected"),
        (lambda b: b.replace(b'"tp": 8', b'"tp": [8]'), r"key 'tp': expected a number"),
        (
            lambda b: b.replace(b'"tput_per_gpu": 157.12165563281164,', b""),
            r"required key 'tput_per_gpu' is missing",
        ),
        (lambda b: b.replace(b'"mean_ttft": 2.5', b'"mean_ttft": "slow", "x": 2.5'), "mean_ttft"),
    ],
)
def test_corrupted_agg_rows_are_refused_naming_the_file_and_the_key(
    change: Any, expected: str
) -> None:
    with pytest.raises(IngestError, match=expected) as err:
        parse((AGG32, change(raw_inferencex(AGG32))))
    assert str(err.value).startswith(AGG32)


def test_a_bad_item_of_agg_bmk_is_named_by_its_position() -> None:
    rows = [obj_inferencex(AGG32), [1, 2]]
    with pytest.raises(IngestError, match=r"agg_bmk\.json: item 2: expected a JSON object"):
        parse(("agg_bmk.json", json.dumps(rows).encode()))
    rows = [obj_inferencex(AGG32), obj_inferencex(AGG64) | {"conc": None}]
    with pytest.raises(IngestError, match=r"agg_bmk\.json, row 2: key 'conc': expected a number"):
        parse(("agg_bmk.json", json.dumps(rows).encode()))
    rows = [obj_inferencex(AGG32) | {"is_multinode": True}]
    with pytest.raises(IngestError, match=r"row 1: required key 'num_prefill_gpu' is missing"):
        parse(("agg_bmk.json", json.dumps(rows).encode()))


def test_the_agg_rows_tarred_import_as_the_same_sweep() -> None:
    [plain] = parse((AGG32, raw_inferencex(AGG32)), (AGG64, raw_inferencex(AGG64)))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name in (AGG32, AGG64):
            info = tarfile.TarInfo(f"bmk/{name}")
            info.size = len(raw_inferencex(name))
            archive.addfile(info, io.BytesIO(raw_inferencex(name)))
    [tarred] = parse(("bmk.tgz", buffer.getvalue()))
    assert tarred.content_hash() == plain.content_hash()
    assert tarred.name == KIMI


def test_sniff_claims_agg_rows_only() -> None:
    for name in (AGG32, AGG64):
        assert IMPORTER.sniff(SourceFile(name, raw_inferencex(name)))
    assert IMPORTER.sniff(SourceFile("agg_bmk.json", json.dumps([obj_inferencex(AGG32)]).encode()))
    assert not IMPORTER.sniff(SourceFile(RAW64, raw_inferencex(RAW64)))
    assert not IMPORTER.sniff(SourceFile("x.bin", b"\xff\xfe\x00"))


def test_the_inferencemax_fixtures_import_through_the_http_api(client: TestClient) -> None:
    names = [AGG32, AGG64, RAW8, RAW64]
    response = client.post(
        "/api/sweeps",
        files=[("files", (n, raw_inferencex(n), "application/octet-stream")) for n in names],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    created = {s["name"]: s for s in response.json()["sweeps"]}
    assert created[KIMI]["points"] == 2
    kimi = client.get(f"/api/sweeps/{created[KIMI]['id']}").json()
    assert (kimi["hardware"], kimi["num_gpus"], kimi["precision"]) == ("MI355X", 8, "int4")
    assert kimi["points"][0]["output_tok_s"] == pytest.approx(17.57057269511527 * 8, rel=1e-12)
    assert kimi["points"][0]["extra"]["p99.9_e2el"] == 253.66836722957274
    [gptoss] = [s for name, s in created.items() if name != KIMI]
    assert gptoss["points"] == 2
    stored = client.get(f"/api/sweeps/{gptoss['id']}").json()
    assert (stored["hardware"], stored["num_gpus"]) == ("H100", 8)  # the raw file says neither
