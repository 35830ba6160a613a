"""vLLM `vllm bench serve` results: the real fixtures, and variants built from them here
(--append-result JSONL, legacy keys, metadata, --save-detailed arrays, `vllm bench sweep` output).
"""

from __future__ import annotations

import copy
import csv
import datetime as dt
import io
import json
import math
import tarfile
import zipfile
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.ingest import IngestError
from app.ingest.source import SourceFile
from app.ingest.tools.vllm import IMPORTER
from tests.conftest import FIXTURES
from tests.helpers import bytes_in, parse

DIR = FIXTURES / "vllm"
RATE = {
    1.0: "stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json",
    2.0: "stellalee_openai-2.0qps-Qwen2.5-Coder-7B-Instruct-20260707-094353.json",
    4.0: "stellalee_openai-4.0qps-Qwen2.5-Coder-7B-Instruct-20260707-094620.json",
    8.0: "stellalee_openai-8.0qps-Qwen2.5-Coder-7B-Instruct-20260707-094806.json",
}
INF = "stellalee_openai-infqps-Qwen2.5-Coder-7B-Instruct-20260706-094004.json"
FORM = {"hardware": "RTX4090", "num_gpus": 1}
STAT_PREFIXES = ("mean_", "median_", "std_", "p50_", "p95_", "p99_")


raw_vllm = partial(bytes_in, DIR)


def obj_vllm(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(raw_vllm(name))
    return data


def one_vllm_point(name: str, data: dict[str, Any]) -> Any:
    [sweep] = parse((name, json.dumps(data).encode()), **FORM)
    [point] = sweep.points
    return point


def numpy_linear(values: list[float], q: float) -> float:
    """numpy.percentile's default ('linear') method, which vLLM and SGLang use."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def test_the_four_rate_files_and_the_burst_baseline_import_as_two_sweeps() -> None:
    sweeps = parse(*((n, raw_vllm(n)) for n in [*RATE.values(), INF]), **FORM)
    assert [s.name for s in sweeps] == [
        "Qwen2.5-Coder-7B-Instruct · vllm bench serve · rate sweep 2026-07-07",
        "Qwen2.5-Coder-7B-Instruct · vllm bench serve · baseline_burstgpt",
    ]
    rates, baseline = sweeps
    assert [p.values["request_rate"] for p in rates.points] == [1.0, 2.0, 4.0, 8.0]
    assert [p.extra["tag"] for p in rates.points] == [
        "base_r1_burstgpt",
        "base_r2_burstgpt",
        "base_r4_burstgpt",
        "base_r8_burstgpt",
    ]
    [burst] = baseline.points
    assert math.isinf(burst.values["request_rate"])
    assert baseline.meta["measured_at"] == dt.date(2026, 7, 6)
    assert rates.meta["measured_at"] == dt.date(2026, 7, 7)
    assert rates.source_file == f"{RATE[1.0]} (+3 more)"


def test_a_sweep_name_from_the_form_or_the_metadata_replaces_the_readable_default() -> None:
    names = [*RATE.values(), INF]
    sweeps = parse(*((n, raw_vllm(n)) for n in names), sweep="StellaLee 4090", **FORM)
    assert [s.name for s in sweeps] == [
        "StellaLee 4090 · Qwen2.5-Coder-7B-Instruct · vllm bench serve · rate sweep 2026-07-07",
        "StellaLee 4090 · Qwen2.5-Coder-7B-Instruct · vllm bench serve · baseline_burstgpt",
    ]
    [sweep] = parse((INF, raw_vllm(INF)), sweep="burst", **FORM)
    assert sweep.name == "burst"
    [sweep] = parse(
        ("m.json", json.dumps(obj_vllm(INF) | {"sweep": "from metadata"}).encode()), **FORM
    )
    assert sweep.name == "from metadata"


def test_every_value_of_the_rate_one_point_is_taken_from_the_file() -> None:
    [sweep] = parse((RATE[1.0], raw_vllm(RATE[1.0])), **FORM)
    assert sweep.source_format == "vLLM bench serve result JSON"
    assert sweep.meta == {
        "model": "Qwen2.5-Coder-7B-Instruct",
        "measured_at": dt.date(2026, 7, 7),
        "source_tool": "vllm bench serve",
        "sweep": "Qwen2.5-Coder-7B-Instruct · vllm bench serve · base_r1_burstgpt",
        "hardware": "RTX4090",
        "num_gpus": 1,
    }
    [point] = sweep.points
    assert point.values == pytest.approx(
        {
            "request_rate": 1.0,
            "num_requests": 150,
            "num_failed": 0,
            "duration_s": 162.604954689,
            "input_len": 80608 / 150,
            "output_len": 19581 / 150,
            "output_tok_s": 120.42068482753697,
            "total_tok_s": 616.1497365908841,
            "requests_per_s": 0.9224811155778839,
            "ttft_mean_ms": 92.42210181333954,
            "ttft_p50_ms": 76.59605500003863,
            "ttft_p95_ms": 247.0352237999684,
            "ttft_p99_ms": 296.1798816200064,
            "tpot_mean_ms": 17.003019689820686,
            "tpot_p50_ms": 16.357071523336927,
            "tpot_p95_ms": 20.593704541436455,
            "tpot_p99_ms": 29.96654621285702,
            "e2el_mean_ms": 2302.4289918266722,
            "e2el_p50_ms": 482.6331645000437,
            "e2el_p95_ms": 13320.787364800055,
            "e2el_p99_ms": 21613.777367589988,
        },
        rel=0,
        abs=0,
    )
    assert not any(k.startswith("itl_") for k in point.values)  # --percentile-metrics had no itl
    assert point.extra["std_ttft_ms"] == 59.45578575829481
    assert point.extra["tag"] == "base_r1_burstgpt"
    assert point.extra["max_concurrent_requests"] == 9
    assert point.extra["max_output_tokens_per_s"] == 448.0
    assert point.extra["request_goodput"] is None
    assert point.extra["model_id"] == "/model/ModelScope/Qwen/Qwen2.5-Coder-7B-Instruct"
    assert point.extra["total_output_tokens"] == 19581
    assert point.samples is None


def test_the_string_inf_rate_and_a_bare_infinity_token_both_mean_unlimited() -> None:
    [sweep] = parse((INF, raw_vllm(INF)), **FORM)
    assert math.isinf(sweep.points[0].values["request_rate"])
    assert sweep.points[0].values["ttft_p99_ms"] == 12518.132950889982
    bare = raw_vllm(INF).replace(b'"request_rate": "inf"', b'"request_rate": Infinity')
    [again] = parse(("bare.json", bare), **FORM)
    assert math.isinf(again.points[0].values["request_rate"])
    assert again.points[0].values == sweep.points[0].values


def test_append_result_jsonl_holds_one_run_per_line() -> None:
    lines = raw_vllm(RATE[1.0]).strip() + b"\n" + raw_vllm(RATE[2.0]).strip() + b"\n"
    [sweep] = parse(("appended.json", lines), **FORM)
    assert sweep.source_format == "vLLM bench serve --append-result JSONL"
    assert [(p.row, p.values["request_rate"]) for p in sweep.points] == [(1, 1.0), (2, 2.0)]
    assert sweep.points[1].values["output_tok_s"] == 183.4818442217204
    broken = lines + b'{"date": "20260707-1'
    with pytest.raises(IngestError) as err:
        parse(("appended.json", broken), **FORM)
    assert str(err.value).startswith("appended.json, row 3: line 3 is not valid JSON")


def test_the_legacy_goodput_key_with_a_trailing_colon_is_read_with_its_metadata_slo() -> None:
    data = obj_vllm(RATE[4.0])
    del data["endpoint_type"], data["request_goodput"]
    data["request_goodput:"] = 3.25
    data["goodput"] = "ttft:300 tpot:50"
    point = one_vllm_point("legacy.json", data)
    assert point.values["goodput_requests_per_s"] == 3.25
    assert point.values["goodput_slo"] == "ttft:300 tpot:50"
    assert point.extra["request_goodput:"] == 3.25
    del data["goodput"]
    point = one_vllm_point("legacy.json", data)
    assert point.values["goodput_requests_per_s"] == 3.25
    assert "goodput_slo" not in point.values
    assert "does not write its --goodput SLOs" in point.extra["goodput_slo_note"]
    [sweep] = parse(("legacy.json", json.dumps(data).encode()), **FORM)
    assert sweep.source_format.startswith("vLLM benchmark_serving.py result JSON (legacy")


def test_string_metadata_is_cast_and_parallel_sizes_prefill_the_gpu_count() -> None:
    data = obj_vllm(RATE[8.0])
    data.update({"tp": "2", "pp": "2", "run_note": "0.5", "hardware": "L40S", "isl": "512"})
    [sweep] = parse(("meta.json", json.dumps(data).encode()), **{**FORM, "num_gpus": 7})
    assert sweep.meta["num_gpus"] == 4
    assert sweep.meta["hardware"] == "L40S"  # the file's word beats the form default
    assert sweep.meta["isl"] == 512
    assert sweep.points[0].extra["tp"] == 2
    assert sweep.points[0].extra["run_note"] == 0.5
    data.update({"num_gpus": "8"})
    [sweep] = parse(("meta.json", json.dumps(data).encode()), **FORM)
    assert sweep.meta["num_gpus"] == 8
    del data["num_gpus"], data["tp"], data["pp"]
    data["tensor_parallel_size"] = 4
    [sweep] = parse(("meta.json", json.dumps(data).encode()), **{**FORM, "num_gpus": 7})
    assert sweep.meta["num_gpus"] == 4


def detailed_vllm(with_latencies: bool = True) -> dict[str, Any]:
    """The rate-1 run cut to five requests (one failed), with stats that match them."""
    data = {k: v for k, v in obj_vllm(RATE[1.0]).items() if not k.startswith(STAT_PREFIXES)}
    ttfts = [0.05, 0.1, 0.2, 0.4, 0.0]
    latencies = [1.05, 2.1, 3.2, 4.4, 0.0]
    outputs = [11, 41, 21, 21, 0]
    data.update(
        completed=4,
        failed=1,
        ttfts=ttfts,
        itls=[
            [(lat - t) / (n - 1)] * (n - 1) if n else []
            for t, lat, n in zip(ttfts, latencies, outputs, strict=True)
        ],
        output_lens=outputs,
        input_lens=[500, 510, 520, 530, 540],
        errors=["", "", "", "", "aiohttp.ClientConnectorError: refused"],
        start_times=[0.0, 0.5, 1.0, 1.5, 2.0],
        generated_texts=["a", "b", "c", "d", ""],
        # numpy on the four successes: ttft 50/100/200/400 ms, tpot 100/50/150/200 ms
        mean_ttft_ms=187.5,
        median_ttft_ms=150.0,
        p99_ttft_ms=394.0,
        mean_tpot_ms=125.0,
        median_tpot_ms=125.0,
        p99_tpot_ms=198.5,
        mean_e2el_ms=2687.5,
        median_e2el_ms=2650.0,
        p99_e2el_ms=4364.0,
    )
    if with_latencies:
        data["latencies"] = latencies
    return data


def test_save_detailed_arrays_become_request_samples_with_the_failure_marked() -> None:
    point = one_vllm_point("detailed.json", detailed_vllm())
    assert len(point.samples) == 5
    assert point.samples[0] == pytest.approx((50.0, 1050.0, 11, 500, True))
    assert point.samples[4] == (None, None, None, 540, False)
    assert point.values["num_requests"] == 4
    assert point.values["num_failed"] == 1
    for key in ("ttfts", "itls", "latencies", "errors", "generated_texts", "start_times"):
        assert key not in point.extra


def test_percentiles_recomputed_from_the_samples_match_the_reported_ones() -> None:
    for data in (
        detailed_vllm(),
        detailed_vllm(with_latencies=False),
    ):  # legacy: e2el = ttft + Σ itls
        point = one_vllm_point("detailed.json", data)
        good = [s for s in point.samples if s[4]]
        ttft = [s[0] for s in good]
        e2el = [s[1] for s in good]
        tpot = [(s[1] - s[0]) / (s[2] - 1) for s in good]
        for metric, values in (("ttft", ttft), ("e2el", e2el), ("tpot", tpot)):
            assert numpy_linear(values, 50) == pytest.approx(point.values[f"{metric}_p50_ms"])
            assert numpy_linear(values, 99) == pytest.approx(point.values[f"{metric}_p99_ms"])
            assert sum(values) / len(values) == pytest.approx(point.values[f"{metric}_mean_ms"])


def test_per_request_arrays_that_disagree_are_refused_naming_the_key() -> None:
    data = detailed_vllm()
    data["output_lens"] = data["output_lens"][:4]
    with pytest.raises(IngestError, match=r"detailed\.json: key 'output_lens': 4 entries"):
        one_vllm_point("detailed.json", data)
    data = detailed_vllm()
    data["completed"] = 5
    with pytest.raises(IngestError, match=r"detailed\.json: key 'completed': 5, but"):
        one_vllm_point("detailed.json", data)
    data = detailed_vllm()
    data["ttfts"][1] = "fast"
    with pytest.raises(IngestError, match=r"detailed\.json: key 'ttfts\[1\]'"):
        one_vllm_point("detailed.json", data)


def sweep_runs(**merged: Any) -> dict[str, bytes]:
    """A `vllm bench sweep serve` experiment: concurrency 8 and 16 × runs 0 and 1, TP 2."""
    files: dict[str, bytes] = {}
    sources = {8: [RATE[1.0], RATE[2.0]], 16: [RATE[4.0], RATE[8.0]]}
    for conc, names in sources.items():
        folder = f"exp/SERVE-tensor_parallel_size=2-BENCH-max_concurrency={conc}"
        runs = []
        for run, name in enumerate(names):
            data = obj_vllm(name) | {"run_number": run, "tensor_parallel_size": 2, "tag": "tp2"}
            data |= {"max_concurrency": conc, "request_rate": "inf", **merged}
            runs.append(data)
            files[f"{folder}/run={run}.json"] = json.dumps(data, indent=4).encode()
        files[f"{folder}/summary.json"] = json.dumps(runs, indent=4).encode()
        warmup = copy.deepcopy(runs[0]) | {"run_number": -1, "duration": 1.5}
        files[f"{folder}/warmup.json"] = json.dumps(warmup, indent=4).encode()
    return files


def summary_csv(files: dict[str, bytes]) -> bytes:
    runs = [r for n, d in files.items() if n.endswith("summary.json") for r in json.loads(d)]
    keys = list(dict.fromkeys(k for r in runs for k in r))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *keys])
    for i, run in enumerate(runs):
        writer.writerow([i, *("" if run.get(k) is None else run.get(k) for k in keys)])
    return out.getvalue().encode()


def test_sweep_runs_keep_repeats_as_separate_points_and_read_the_tp_override() -> None:
    files = sweep_runs()
    [sweep] = parse(
        *((n, d) for n, d in files.items() if "/run=" in n), **{**FORM, "num_gpus": None}
    )
    assert sweep.meta["num_gpus"] == 2
    assert sweep.meta["source_tool"] == "vllm bench sweep"
    assert sweep.source_format == "vLLM bench sweep run=N.json"
    assert [(p.values["concurrency"], p.extra["run_number"]) for p in sweep.points] == [
        (8, 0),
        (8, 1),
        (16, 0),
        (16, 1),
    ]
    assert [p.values["output_tok_s"] for p in sweep.points] == [
        120.42068482753697,
        183.4818442217204,
        365.80041687999716,
        469.6493079899669,
    ]


def test_a_whole_sweep_folder_imports_each_run_once_and_skips_the_warmup() -> None:
    files = sweep_runs()
    [from_runs] = parse(*((n, d) for n, d in files.items() if "/run=" in n), **FORM)
    [everything] = parse(*files.items(), **FORM)
    [summaries] = parse(*((n, d) for n, d in files.items() if n.endswith("summary.json")), **FORM)
    assert summaries.source_format == "vLLM bench sweep summary.json"
    for sweep in (everything, summaries):
        assert [p.values for p in sweep.points] == [p.values for p in from_runs.points]
        assert [p.extra["run_number"] for p in sweep.points] == [0, 1, 0, 1]


def test_a_server_setting_linked_to_the_concurrency_does_not_split_the_sweep() -> None:
    files = sweep_runs()
    for name in list(files):
        if "/run=" in name:
            data = json.loads(files[name])
            files[name] = json.dumps(data | {"max_num_seqs": data["max_concurrency"]}).encode()
    sweeps = parse(*((n, d) for n, d in files.items() if "/run=" in n), **FORM)
    assert len(sweeps) == 1
    assert [p.extra["max_num_seqs"] for p in sweeps[0].points] == [8, 8, 16, 16]


def test_a_label_holding_a_rates_digits_names_one_sweep_not_two() -> None:
    # "h100x2" holds the 2 req/s run's rate; only text that differs between runs is masked.
    files = [(n, json.dumps(obj_vllm(n) | {"label": "h100x2"}).encode()) for n in RATE.values()]
    [sweep] = parse(*files, **FORM)
    assert [p.values["request_rate"] for p in sweep.points] == [1.0, 2.0, 4.0, 8.0]


def test_the_pandas_summary_csv_gives_the_same_points_as_the_run_files() -> None:
    files = sweep_runs()
    data = summary_csv(files)
    source = SourceFile("exp/summary.csv", data)
    assert IMPORTER.sniff(source)
    [from_csv] = IMPORTER.parse([source], {})
    [from_runs] = parse(*((n, d) for n, d in files.items() if "/run=" in n), **FORM)
    assert from_csv.source_format == "vLLM bench sweep summary.csv"
    assert [p.values for p in from_csv.points] == [p.values for p in from_runs.points]
    assert [p.row for p in from_csv.points] == [2, 3, 4, 5]
    assert from_csv.meta["num_gpus"] == 2


def test_the_pandas_summary_csv_also_imports_through_parse_upload() -> None:
    [sweep] = parse(("exp/summary.csv", summary_csv(sweep_runs())), **FORM)
    assert len(sweep.points) == 4


def test_one_sweep_zipped_or_tarred_imports_as_the_same_sweep() -> None:
    [plain] = parse(*((n, raw_vllm(n)) for n in RATE.values()), **FORM)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in RATE.values():
            archive.writestr(f"logs/{name}", raw_vllm(name))
    [zipped] = parse(("logs.zip", buffer.getvalue()), **FORM)
    tar_buffer = io.BytesIO()
    with tarfile.open(fileobj=tar_buffer, mode="w:gz") as archive:
        for name in RATE.values():
            info = tarfile.TarInfo(f"logs/{name}")
            info.size = len(raw_vllm(name))
            archive.addfile(info, io.BytesIO(raw_vllm(name)))
    [tarred] = parse(("logs.tar.gz", tar_buffer.getvalue()), **FORM)
    assert zipped.content_hash() == plain.content_hash() == tarred.content_hash()
    assert zipped.name == plain.name
    assert zipped.source_file == f"logs.zip/logs/{RATE[1.0]} (+3 more)"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda b: b[: len(b) // 2], r"not valid JSON"),
        (lambda b: b.replace(b'"completed": 150', b'"completed": "many"'), r"key 'completed'"),
        (lambda b: b.replace(b'"duration": 162.6', b'"duration": [162.6'), r"not valid JSON"),
        (lambda b: b.replace(b'"duration": 162.604954689', b'"duration": [1]'), r"'duration'"),
        (
            lambda b: b.replace(b'"output_throughput": 120.42068482753697, ', b""),
            r"required key 'output_throughput' is missing",
        ),
        (
            lambda b: b.replace(b'"mean_ttft_ms": 92.42210181333954', b'"mean_ttft_ms": "fast"'),
            r"key 'mean_ttft_ms': expected a number, got 'fast'",
        ),
    ],
)
def test_corrupted_files_are_refused_naming_the_file_and_the_key(
    change: Any, expected: str
) -> None:
    name = RATE[1.0]
    with pytest.raises(IngestError, match=expected) as err:
        parse((name, change(raw_vllm(name))), **FORM)
    assert str(err.value).startswith(name)


def test_sniff_recognises_vllm_results_and_nothing_else() -> None:
    for name in [*RATE.values(), INF]:
        assert IMPORTER.sniff(SourceFile(name, raw_vllm(name)))
    for other in (
        FIXTURES / "sglang" / "datacrunch_llama_3_3_70b_online_output.jsonl",
        FIXTURES / "inferencemax" / "agg_kimik2.5_8k1k_int4_vllm_mi355x_tp8_mtp_conc32.json",
    ):
        assert not IMPORTER.sniff(SourceFile(other.name, other.read_bytes()))
    assert not IMPORTER.sniff(SourceFile("x.bin", b"\x00\xff" * 10))
    assert not IMPORTER.sniff(SourceFile("x.json", b"[1, 2, 3]"))


def test_the_vllm_fixtures_import_through_the_http_api(client: TestClient) -> None:
    names = [*RATE.values(), INF]
    response = client.post(
        "/api/sweeps",
        files=[("files", (n, raw_vllm(n), "application/octet-stream")) for n in names],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    created = response.json()["sweeps"]
    assert [(s["name"], s["points"]) for s in created] == [
        ("Qwen2.5-Coder-7B-Instruct · vllm bench serve · rate sweep 2026-07-07", 4),
        ("Qwen2.5-Coder-7B-Instruct · vllm bench serve · baseline_burstgpt", 1),
    ]
    stored = client.get(f"/api/sweeps/{created[1]['id']}").json()
    assert stored["model"] == "Qwen2.5-Coder-7B-Instruct"
    assert stored["measured_at"] == "2026-07-06"
    assert stored["source_tool"] == "vllm bench serve"
    assert (stored["hardware"], stored["num_gpus"]) == ("H100", 8)
    [point] = stored["points"]
    assert point["request_rate"] == "inf"
    assert point["output_tok_s"] == 534.9311122803554
    assert point["extra"]["tag"] == "baseline_burstgpt"


def test_a_backend_naming_a_server_fills_the_engine_and_openai_names_none() -> None:
    [baseline] = parse((INF, raw_vllm(INF)), **FORM)
    assert obj_vllm(INF)["backend"] == "openai"
    assert "engine" not in baseline.meta  # a generic OpenAI-compatible client
    for backend, engine in (("vllm", "vllm"), ("tensorrt-llm", "trt-llm"), ("openai-chat", None)):
        data = {**obj_vllm(INF), "backend": backend}
        [sweep] = parse((INF, json.dumps(data).encode()), **FORM)
        assert sweep.meta.get("engine") == engine
    data = {**obj_vllm(INF), "backend": "vllm"}
    [given] = parse((INF, json.dumps(data).encode()), engine="vllm-rocm", **FORM)
    assert given.meta["engine"] == "vllm-rocm"  # the user's engine wins


EMPTY = (10, 70, 130)  # the requests turned into empty streams


def save_detailed(name: str) -> dict[str, Any]:
    """A real result with the per-request arrays an older `benchmark_serving.py
    --save-detailed` wrote (`ttfts`, `itls`, lengths, errors; no `latencies`): every request
    succeeded, the lengths add up to the file's token totals, TTFTs run from 50 to 199 ms and
    every later token takes 16 ms."""
    data = obj_vllm(name)
    n, total_in, total_out = (
        data["completed"],
        data["total_input_tokens"],
        data["total_output_tokens"],
    )
    outputs = [total_out // n + (i < total_out % n) for i in range(n)]
    data.update(
        input_lens=[total_in // n + (i < total_in % n) for i in range(n)],
        output_lens=outputs,
        ttfts=[(50 + i) / 1000 for i in range(n)],
        itls=[[0.016] * (out - 1) for out in outputs],
        generated_texts=["x"] * n,
        errors=[""] * n,
    )
    return data


def with_empty_streams(data: dict[str, Any], requests: tuple[int, ...] = EMPTY) -> dict[str, Any]:
    """These successful requests came back as empty streams, the way older vLLM wrote them:
    TTFT 0, no chunk, no output token, an empty error string; `completed` still counts them
    and nothing else changes."""
    data = copy.deepcopy(data)
    for i in requests:
        data["ttfts"][i] = 0.0
        data["itls"][i] = []
        data["output_lens"][i] = 0
        data["generated_texts"][i] = ""
        data["errors"][i] = ""
    return data


EMPTY_WARNING = (
    "3 requests counted as completed returned an empty stream (TTFT 0, no output tokens): "
    "counted as failed (3 at rate 1). Goodput and attainment count them as misses and the "
    "stored request counts leave them out of the completed; the file's own statistics "
    "(mean and percentile latencies, throughput, mean lengths) are kept as vLLM computed "
    "them, with these requests among the completed."
)


def test_requests_older_vllm_counted_as_completed_with_an_empty_stream_count_as_failed() -> None:
    [sweep] = parse(
        (RATE[1.0], json.dumps(with_empty_streams(save_detailed(RATE[1.0]))).encode()), **FORM
    )
    [point] = sweep.points
    assert sweep.warnings == [EMPTY_WARNING]
    assert (point.values["num_requests"], point.values["num_failed"]) == (147, 3)
    assert point.extra["empty_streams_counted_as_completed"] == 3
    assert point.sample_count == 150
    assert [i for i, s in enumerate(point.samples) if not s[4]] == list(EMPTY)
    assert point.samples[10] == (None, None, None, 538, False)
    # The file's own statistics stay as written (they include the empty streams).
    assert point.values["ttft_mean_ms"] == 92.42210181333954
    assert point.values["ttft_p99_ms"] == 296.1798816200064
    assert point.values["output_tok_s"] == 120.42068482753697
    assert point.values["output_len"] == 19581 / 150
    # Untouched, the same file imports without a warning and with every request a success.
    [plain] = parse((RATE[1.0], json.dumps(save_detailed(RATE[1.0])).encode()), **FORM)
    assert plain.warnings == []
    assert (plain.points[0].values["num_requests"], plain.points[0].values["num_failed"]) == (
        150,
        0,
    )


def test_a_completed_count_empty_streams_do_not_explain_is_refused_naming_row_and_key() -> None:
    errored = with_empty_streams(save_detailed(RATE[1.0]))
    errored["errors"][70] = "aiohttp.ClientPayloadError: Response payload is not completed"
    lines = [json.dumps(save_detailed(RATE[2.0])), json.dumps(errored)]
    with pytest.raises(IngestError) as caught:
        parse(("appended.jsonl", "\n".join(lines).encode()), **FORM)
    assert str(caught.value) == (
        "appended.jsonl, row 2: key 'completed': 150, but the per-request arrays hold 147 "
        "successful requests (and 2 empty streams)"
    )
    more = with_empty_streams(save_detailed(RATE[1.0])) | {"completed": 154}
    with pytest.raises(IngestError) as caught:
        parse(("more.json", json.dumps(more).encode()), **FORM)
    assert str(caught.value) == (
        "more.json: key 'completed': 154, but the per-request arrays hold 147 successful "
        "requests (and 3 empty streams)"
    )


def test_empty_streams_are_misses_in_the_per_request_read_off(client: TestClient) -> None:
    data = json.dumps(with_empty_streams(save_detailed(RATE[1.0]))).encode()
    response = client.post(
        "/api/sweeps",
        files=[("files", (RATE[1.0], data, "application/json"))],
        data={"hardware": "H100", "num_gpus": "1"},
    )
    assert response.status_code == 201, response.text
    [saved] = response.json()["sweeps"]
    stored = client.get(f"/api/sweeps/{saved['id']}").json()
    [point] = stored["points"]
    assert (point["num_requests"], point["num_failed"], point["request_samples"]) == (147, 3, 150)
    assert EMPTY_WARNING in stored["notes"]
    readoff = client.get(
        "/api/readoff",
        params={"sweep": saved["id"], "ttft_ms": 500, "mode": "requests", "attainment": 0.9},
    )
    assert readoff.status_code == 200, readoff.text
    [result] = readoff.json()["results"]
    # 147 good of 150 issued; the good requests' 19,581 − 131 − 131 − 130 output tokens.
    assert result["intervals"]["attainment"]["value"] == 147 / 150
    assert result["goodput_tok_s_per_gpu"] == pytest.approx(19_189 / 162.604954689, rel=1e-12)
