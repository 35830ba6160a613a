"""SGLang bench_serving JSONL: the late-2024 fixtures (no TPOT: refused clearly, but mapped
exactly), and the current format built from them here (server_info, full stats, --output-details).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.ingest import NO_TPOT_WARNING, IngestError, ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.tools.sglang import IMPORTER
from tests.conftest import FIXTURES
from tests.helpers import bytes_in, jsonl, parse
from tests.ingest.test_vllm import numpy_linear

DIR = FIXTURES / "sglang"
ONLINE = "datacrunch_llama_3_3_70b_online_output.jsonl"
OFFLINE = "datacrunch_llama_3_3_70b_offline_output.jsonl"
DEEPSEEK = "datacrunch_deepseek_dp_mla_output.jsonl"
FORM = {"hardware": "H200", "num_gpus": 8}


raw_sglang = partial(bytes_in, DIR)


def lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw_sglang(name).decode().splitlines() if line.strip()]


def mapped(name: str, data: bytes | None = None) -> list[ParsedSweep]:
    """The importer's own result, before the shared checks of parse_upload."""
    return IMPORTER.parse([SourceFile(name, raw_sglang(name) if data is None else data)], {})


SERVER_INFO = {
    "model_path": "meta-llama/Llama-3.3-70B-Instruct",
    "tp_size": 4,
    "dp_size": 2,
    "pp_size": 1,
    "enable_dp_attention": False,
    "dtype": "bfloat16",
    "quantization": None,
    "speculative_algorithm": None,
    "version": "0.5.4",
}


def current(row: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A fixture line as the current bench_serving writes it (stats invented but consistent:
    no invented tail falls below the line's own median)."""
    ttft, itl = row["median_ttft_ms"], row["median_itl_ms"]
    return row | {
        "tag": "h200-tp4dp2",
        "server_info": SERVER_INFO,
        "request_throughput": row["completed"] / row["duration"],
        "total_throughput": 1049.0,
        "mean_ttft_ms": 90.5,
        "p90_ttft_ms": max(120.25, ttft),
        "p95_ttft_ms": max(130.0, ttft),
        "p99_ttft_ms": max(150.75, ttft),
        "std_ttft_ms": 12.5,
        "mean_tpot_ms": 13.5,
        "median_tpot_ms": 13.25,
        "p90_tpot_ms": 14.0,
        "p95_tpot_ms": 14.5,
        "p99_tpot_ms": 15.0,
        "mean_itl_ms": 13.75,
        "p95_itl_ms": max(16.0, itl),
        "p99_itl_ms": max(30.0, itl),
        "max_itl_ms": max(80.0, itl),
        "concurrency": 7.75,
        "accept_length": None,
        **changes,
    }


def test_the_late_2024_fixtures_import_with_a_warning_that_they_lack_any_tpot() -> None:
    for name, count in ((ONLINE, 2), (OFFLINE, 6), (DEEPSEEK, 1)):
        sweeps = parse((name, raw_sglang(name)), **FORM)
        assert len(sweeps) == count
        assert all(s.warnings[0] == NO_TPOT_WARNING for s in sweeps)
        assert all(p.values.get("tpot_p50_ms") is None for s in sweeps for p in s.points)


def test_the_backend_field_fills_the_engine_only_when_the_user_gave_none() -> None:
    assert [s.meta["engine"] for s in parse((ONLINE, raw_sglang(ONLINE)), **FORM)] == [
        "sglang",
        "sglang",
    ]
    given = parse((ONLINE, raw_sglang(ONLINE)), engine="sglang-dev", **FORM)
    assert [s.meta["engine"] for s in given] == ["sglang-dev", "sglang-dev"]
    rows = lines(ONLINE)[:2]
    for row, backend in zip(rows, ("vllm", "openai"), strict=True):
        row["backend"] = backend
    vllm_client, openai_client = mapped("x.jsonl", jsonl(rows))
    assert vllm_client.meta["engine"] == "vllm"
    assert "engine" not in openai_client.meta  # a generic OpenAI client names no server


def test_measured_lengths_far_from_the_configured_isl_osl_warn_with_both_numbers() -> None:
    random, sharegpt = parse((ONLINE, raw_sglang(ONLINE)), **FORM)
    rows = [r for r in lines(ONLINE) if r["dataset_name"] == "random"]
    completed = sum(r["completed"] for r in rows)
    isl = sum(r["total_input_tokens"] for r in rows) / completed
    osl = sum(r["total_output_tokens"] for r in rows) / completed
    assert (round(isl, 1), round(osl, 1)) == (510.3, 511.5)
    [note] = random.warnings[1:]
    assert note == (
        "ISL configured 1,024, measured mean 510 (−50.2 %); OSL configured 1,024, measured "
        "mean 512 (−50 %): the measured mean differs from the configured length by more "
        "than 10 %, so the sweep measured a different workload than its ISL/OSL says"
    )
    assert sharegpt.warnings == [NO_TPOT_WARNING]  # no configured lengths to compare


def test_the_online_fixture_maps_every_value_exactly_and_keeps_itl_out_of_tpot() -> None:
    random, sharegpt = mapped(ONLINE)
    assert random.name == f"sglang.bench_serving · random 1024/1024 {ONLINE[:-6]}"
    assert random.meta == {
        "source_tool": "sglang.bench_serving",
        "workload": "random",
        "isl": 1024,
        "osl": 1024,
        "engine": "sglang",  # from "backend": "sglang"
        "sweep": random.name,
    }
    assert random.source_format == "SGLang bench_serving JSONL"
    assert [p.values["request_rate"] for p in random.points] == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert [p.values["request_rate"] for p in sharegpt.points] == [4.0, 8.0]
    assert "isl" not in sharegpt.meta  # random_input_len is only a default for ShareGPT runs
    first = random.points[0]
    assert first.row == 1
    assert first.values == {
        "request_rate": 1.0,
        "num_requests": 300,
        "duration_s": 298.3675805060193,
        "input_len": 152612 / 300,
        "output_len": 160347 / 300,
        "output_tok_s": 537.4142851849319,
        "e2el_mean_ms": 7840.616212638561,
        "e2el_p50_ms": 7819.046192569658,
        "ttft_p50_ms": 85.74514742940664,
        "itl_p50_ms": 13.638956006616354,
    }
    assert first.extra == {
        "backend": "sglang",
        "dataset_name": "random",
        "total_input_tokens": 152612,
        "total_output_tokens": 160347,
        "total_output_tokens_retokenized": 160192,
        "sharegpt_output_len": None,
        "random_input_len": 1024,
        "random_output_len": 1024,
        "random_range_ratio": 0.0,
    }


def test_offline_lines_group_by_workload_and_a_repeated_run_stays_two_points() -> None:
    sweeps = mapped(OFFLINE)
    assert [(s.meta.get("isl"), s.meta.get("osl"), len(s.points)) for s in sweeps] == [
        (1024, 1024, 1),
        (1024, 512, 1),
        (4096, 2048, 1),
        (4096, 1024, 2),
        (256, 512, 1),
        (None, None, 1),
    ]
    repeat = sweeps[3]
    assert [p.row for p in repeat.points] == [4, 5]
    assert [p.values["output_tok_s"] for p in repeat.points] == [
        1654.9938601765348,
        1652.8614806713933,
    ]
    assert all(math.isinf(p.values["request_rate"]) for s in sweeps for p in s.points)


def test_a_bare_infinity_rate_is_read_as_unlimited() -> None:
    [sweep] = mapped(DEEPSEEK)
    [point] = sweep.points
    assert math.isinf(point.values["request_rate"])
    assert (sweep.meta["isl"], sweep.meta["osl"]) == (1, 512)
    assert point.values["ttft_p50_ms"] == 10014.104524045251
    assert point.values["e2el_mean_ms"] == 381236.82297268615


def test_the_current_format_imports_with_server_info_prefilling_the_sweep() -> None:
    rows = [current(r) for r in lines(ONLINE)[:2]]
    [sweep] = parse(
        ("current.jsonl", jsonl(rows)), **{**FORM, "num_gpus": None, "hardware": "H200"}
    )
    assert sweep.source_format == "SGLang bench_serving JSONL (sglang 0.5.4)"
    assert (
        sweep.name
        == "Llama-3.3-70B-Instruct · sglang.bench_serving · h200-tp4dp2 1024/1024 current"
    )
    for key, value in {
        "engine": "sglang",
        "engine_version": "0.5.4",
        "model": "meta-llama/Llama-3.3-70B-Instruct",
        "precision": "bf16",
        "num_gpus": 8,
        "workload": "random",
    }.items():
        assert sweep.meta[key] == value
    point = sweep.points[0]
    assert point.values["achieved_concurrency"] == 7.75
    assert "concurrency" not in point.values  # no --max-concurrency cap
    assert point.values["tpot_p50_ms"] == 13.25
    assert point.values["tpot_p99_ms"] == 15.0
    assert point.values["itl_p95_ms"] == 16.0
    assert point.values["itl_p50_ms"] == 13.638956006616354
    assert point.values["total_tok_s"] == 1049.0
    assert point.values["requests_per_s"] == 300 / 298.3675805060193
    assert point.extra["std_ttft_ms"] == 12.5
    assert point.extra["max_itl_ms"] == 80.0
    assert point.extra["server_info"]["tp_size"] == 4
    assert point.extra["tag"] == "h200-tp4dp2"


def test_dp_attention_reuses_the_tp_gpus_and_a_disaggregated_server_leaves_the_count_open() -> None:
    row = current(lines(ONLINE)[0])
    row["server_info"] = SERVER_INFO | {"enable_dp_attention": True, "dp_size": 4}
    [sweep] = mapped("dp.jsonl", jsonl([row]))
    assert sweep.meta["num_gpus"] == 4
    row["server_info"] = SERVER_INFO | {"disaggregation_mode": "decode"}
    [sweep] = mapped("pd.jsonl", jsonl([row]))
    assert "num_gpus" not in sweep.meta


def detailed_sglang() -> dict[str, Any]:
    """Rate 1 with four requests, the last failed; times in seconds as SGLang writes them."""
    ttfts = [0.08, 0.09, 0.1, 0.0]
    itls = [[0.01] * 9, [0.02] * 19, [0.015] * 29, []]
    row = current(lines(ONLINE)[0], completed=3)
    row |= {
        "ttfts": ttfts,
        "itls": itls,
        "input_lens": [1000, 1010, 1020, 1030],
        "output_lens": [10, 20, 30, 0],
        "errors": ["", "", "", "Bad Gateway: upstream reset"],
        "generated_texts": ["x", "y", "z", ""],
        # numpy over the three successes: ttft 80/90/100 ms, tpot 10/20/15 ms,
        # e2el 170/470/535 ms
        "mean_ttft_ms": 90.0,
        "median_ttft_ms": 90.0,
        "p99_ttft_ms": 99.8,
        "mean_tpot_ms": 15.0,
        "median_tpot_ms": 15.0,
        "p99_tpot_ms": 19.9,
        "mean_e2e_latency_ms": 1175 / 3,
        "median_e2e_latency_ms": 470.0,
        "p99_e2e_latency_ms": 533.7,
    }
    for key in ("p90_ttft_ms", "p95_ttft_ms", "p90_tpot_ms", "p95_tpot_ms"):
        del row[key]
    return row


def test_output_details_become_request_samples_that_reproduce_the_reported_percentiles() -> None:
    [sweep] = parse(("details.jsonl", jsonl([detailed_sglang()])), **FORM)
    [point] = sweep.points
    assert len(point.samples) == 4
    assert point.samples[3] == (None, None, None, 1030, False)
    assert point.samples[0] == pytest.approx((80.0, 170.0, 10, 1000, True))
    assert point.values["num_failed"] == 1
    assert point.values["num_requests"] == 3
    assert not {"ttfts", "itls", "errors", "generated_texts"} & set(point.extra)
    good = [s for s in point.samples if s[4]]
    series = {
        "ttft": [s[0] for s in good],
        "e2el": [s[1] for s in good],
        "tpot": [(s[1] - s[0]) / (s[2] - 1) for s in good],
    }
    for metric, values in series.items():
        assert numpy_linear(values, 50) == pytest.approx(point.values[f"{metric}_p50_ms"])
        assert numpy_linear(values, 99) == pytest.approx(point.values[f"{metric}_p99_ms"])
        assert sum(values) / 3 == pytest.approx(point.values[f"{metric}_mean_ms"])


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda b: b[: len(b) - 40], r", row 7: line 7 is not valid JSON"),
        (lambda b: b.replace(b'"completed": 300', b'"completed": "all"', 1), r"key 'completed'"),
        (
            lambda b: b.replace(b'"duration": 298.3675805060193', b'"duration": [298]'),
            r"row 1: key 'duration': expected a number, got a list",
        ),
        (
            lambda b: b.replace(b'"output_throughput": 537.4142851849319, ', b""),
            r"row 1: required key 'output_throughput' is missing",
        ),
    ],
)
def test_corrupted_lines_are_refused_naming_the_file_the_line_and_the_key(
    change: Any, expected: str
) -> None:
    with pytest.raises(IngestError, match=expected) as err:
        parse((ONLINE, change(raw_sglang(ONLINE))), **FORM)
    assert str(err.value).startswith(ONLINE)


def test_the_current_format_zipped_imports_as_the_same_sweep() -> None:
    data = jsonl([current(r) for r in lines(ONLINE)[:5]])
    [plain] = parse(("current.jsonl", data), **FORM)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bench/current.jsonl", data)
    [zipped] = parse(("bench.zip", buffer.getvalue()), **FORM)
    assert zipped.content_hash() == plain.content_hash()
    assert len(zipped.points) == 5


def test_sniff_recognises_sglang_lines_and_nothing_else() -> None:
    for name in (ONLINE, OFFLINE, DEEPSEEK):
        assert IMPORTER.sniff(SourceFile(name, raw_sglang(name)))
    vllm = (
        FIXTURES / "vllm" / "stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"
    )
    assert not IMPORTER.sniff(SourceFile(vllm.name, vllm.read_bytes()))
    assert not IMPORTER.sniff(SourceFile("x.bin", b"\x00\x01\x02"))


def test_the_sglang_fixtures_and_the_current_format_import_through_the_http_api(
    client: TestClient,
) -> None:
    response = client.post(
        "/api/sweeps",
        files=[
            ("files", (n, raw_sglang(n), "application/octet-stream"))
            for n in (ONLINE, OFFLINE, DEEPSEEK)
        ],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    first = client.get(f"/api/sweeps/{response.json()['sweeps'][0]['id']}").json()
    assert NO_TPOT_WARNING in first["notes"]
    rows = [current(r) for r in lines(ONLINE)]
    response = client.post(
        "/api/sweeps",
        files=[("files", ("current.jsonl", jsonl(rows), "application/octet-stream"))],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    assert [s["points"] for s in response.json()["sweeps"]] == [5, 2]


def test_an_empty_stream_sglang_counted_as_completed_is_a_failed_request_with_a_warning() -> None:
    row = detailed_sglang()
    # The second request's stream came back empty: TTFT 0, no chunk, no token, no error.
    row["ttfts"][1], row["itls"][1], row["output_lens"][1] = 0.0, [], 0
    [sweep] = parse(("details.jsonl", jsonl([row])), **FORM)
    [point] = sweep.points
    assert [s[4] for s in point.samples] == [True, False, True, False]
    assert (point.values["num_requests"], point.values["num_failed"]) == (2, 2)
    assert point.extra["empty_streams_counted_as_completed"] == 1
    assert sweep.warnings[0].startswith(
        "1 request counted as completed returned an empty stream (TTFT 0, no output tokens): "
        "counted as failed (1 at rate 1)."
    )
    assert "kept as SGLang computed them" in sweep.warnings[0]


def test_a_pd_router_fills_the_split_and_spec_decoding_its_draft_and_acceptance_length() -> None:
    """SGLang PD: the router's server_info lists each prefill and decode worker's own."""
    worker = {"tp_size": 4, "dp_size": 2, "enable_dp_attention": True}
    server = SERVER_INFO | {
        "prefill": [worker, worker],
        "decode": [worker | {"tp_size": 8}],
        "speculative_algorithm": "EAGLE3",
        "speculative_draft_model_path": "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B",
        "speculative_num_draft_tokens": 4,
    }
    row = current(lines(ONLINE)[0], accept_length=2.75) | {"server_info": server}
    [sweep] = mapped("pd.jsonl", jsonl([row]))
    # 2 prefill workers × tp 4 (DP attention reuses the TP GPUs) + 1 decode worker × tp 8.
    assert (sweep.meta["num_prefill_gpus"], sweep.meta["num_decode_gpus"]) == (8, 8)
    assert sweep.meta["num_gpus"] == 16
    assert (sweep.meta["spec_decode"], sweep.meta["num_spec_tokens"]) == ("eagle3", 4)
    assert sweep.meta["draft_model"] == "lmsys/sglang-EAGLE3-LLaMA3.1-Instruct-8B"
    assert sweep.points[0].extra["spec_acceptance_length"] == 2.75
