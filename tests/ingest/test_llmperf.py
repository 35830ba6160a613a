"""LLMPerf summaries and individual responses: exact values, per-request TPOT, pairing, refusals."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
from functools import partial
from typing import Any

import polars as pl
import pytest
from fastapi.testclient import TestClient

from app.ingest import NO_TPOT_WARNING
from tests.conftest import FIXTURES
from tests.helpers import bytes_in, only, parse, parse_errors

DIR = FIXTURES / "llmperf"
DEFAULTS = {"hardware": "A100", "num_gpus": 4}
ANYSCALE = ("summary_anyscale_70b.json", "individual_anyscale_70b.json")
TOGETHER = ("summary_together_70b.json", "individual_together_70b.json")


read = partial(bytes_in, DIR)


def pair(names: tuple[str, str] = ANYSCALE) -> list[tuple[str, bytes]]:
    return [(n, read(n)) for n in names]


def linear(values: list[float], q: float) -> float:
    """pandas' Series.quantile default (linear), computed independently with polars."""
    result = pl.Series(values).quantile(q, interpolation="linear")
    assert result is not None
    return float(result)


errors_of_llmperf = partial(parse_errors, DEFAULTS)


def test_the_anyscale_pair_becomes_one_point_with_seconds_converted_to_ms() -> None:
    sweep = only(parse(*pair(), **DEFAULTS))
    [point] = sweep.points
    v = point.values
    assert v["concurrency"] == 5
    assert v["ttft_mean_ms"] == pytest.approx(248.90269464666667)
    assert v["ttft_p50_ms"] == pytest.approx(212.82956000001718)
    assert v["ttft_p90_ms"] == pytest.approx(321.2247440000169)
    assert v["ttft_p95_ms"] == pytest.approx(362.0083771999928)
    assert v["ttft_p99_ms"] == pytest.approx(474.5305190600024)
    assert v["e2el_mean_ms"] == pytest.approx(2354.6667737533324)
    assert v["e2el_p50_ms"] == pytest.approx(2259.533027999993)
    assert v["e2el_p99_ms"] == pytest.approx(3705.7007264000186)
    assert v["output_tok_s"] == pytest.approx(207.52121071152493)
    assert v["requests_per_s"] == pytest.approx(84.73327721639254 / 60)
    assert v["duration_s"] == pytest.approx(150 * 60 / 84.73327721639254)
    assert (v["num_requests"], v["num_failed"]) == (150, 0)
    assert v["input_len"] == pytest.approx(550.0)
    assert v["output_len"] == pytest.approx(146.94666666666666)
    assert "request_rate" not in v and "total_tok_s" not in v


def test_tpot_is_computed_per_request_and_llmperf_itl_fills_neither_tpot_nor_itl() -> None:
    [point] = only(parse(*pair(), **DEFAULTS)).points
    records = json.loads(read(ANYSCALE[1]))
    tpots = [
        (r["end_to_end_latency_s"] - r["ttft_s"]) / (r["number_output_tokens"] - 1) * 1000
        for r in records
        if r["error_code"] is None and r["number_output_tokens"] > 1
    ]
    assert len(tpots) == 150
    assert point.values["tpot_mean_ms"] == pytest.approx(sum(tpots) / 150)
    for stat, q in (("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99)):
        assert point.values[f"tpot_{stat}_ms"] == pytest.approx(linear(tpots, q))
    # LLMPerf's own "inter token latency" (15.836 ms mean) includes the first token's wait.
    assert point.values["tpot_mean_ms"] == pytest.approx(14.829685800953145)
    assert not any(k.startswith("itl_") for k in point.values)
    assert point.extra["results_inter_token_latency_s_mean"] == pytest.approx(0.01583612777604942)


def test_every_request_becomes_a_sample_and_its_percentiles_match_the_summary() -> None:
    for summary_name, individual_name in (ANYSCALE, TOGETHER):
        [point] = only(parse(*pair((summary_name, individual_name)), **DEFAULTS)).points
        summary = json.loads(read(summary_name))
        assert point.samples is not None and len(point.samples) == 150
        assert all(s[4] is True for s in point.samples)
        ttft = [s[0] for s in point.samples]
        e2el = [s[1] for s in point.samples]
        for q, key in ((0.25, "p25"), (0.5, "p50"), (0.9, "p90"), (0.95, "p95"), (0.99, "p99")):
            expected = summary[f"results_ttft_s_quantiles_{key}"] * 1000
            assert linear(ttft, q) == pytest.approx(expected, rel=1e-12)
            expected = summary[f"results_end_to_end_latency_s_quantiles_{key}"] * 1000
            assert linear(e2el, q) == pytest.approx(expected, rel=1e-12)
        outputs = [s[2] for s in point.samples]
        assert sum(outputs) / 150 == pytest.approx(summary["results_number_output_tokens_mean"])
        assert {s[3] for s in point.samples} == {550}


def test_the_first_anyscale_request_is_stored_in_ms_and_tokens() -> None:
    [point] = only(parse(*pair(), **DEFAULTS)).points
    assert point.samples is not None
    assert point.samples[0] == pytest.approx((314.8573649999662, 2532.841702999974, 151, 550, True))


def test_meta_is_prefilled_from_the_summary_and_the_form_fills_the_rest() -> None:
    sweep = only(parse(*pair(), **DEFAULTS))
    assert sweep.meta["model"] == "meta-llama/Llama-2-70b-chat-hf"
    assert (sweep.meta["isl"], sweep.meta["osl"]) == (550, 150)
    assert sweep.meta["measured_at"] == dt.date(2023, 12, 21)
    assert sweep.meta["source_tool"] == "llmperf token_benchmark_ray"
    assert sweep.meta["sweep"] == "Llama-2-70b-chat-hf · LLMPerf · anyscale"
    assert (sweep.meta["hardware"], sweep.meta["num_gpus"]) == ("A100", 4)
    assert sweep.source_format == (
        "LLMPerf token_benchmark_ray summary + individual responses (results version 2023-08-31)"
    )
    assert sweep.source_file == "summary_anyscale_70b.json, individual_anyscale_70b.json"


def test_the_summary_fields_without_a_column_are_kept_in_extra() -> None:
    [point] = only(parse(*pair(), **DEFAULTS)).points
    for key in (
        "framework",
        "model_size",
        "api",
        "version",
        "results_ttft_s_quantiles_p25",
        "results_ttft_s_quantiles_p75",
        "results_number_output_tokens_min",
        "results_error_code_frequency",
        "results_request_output_throughput_token_per_s_mean",
    ):
        assert key in point.extra, key
    assert point.extra["api"] == "https://console.endpoints.anyscale.com/m/v1"
    assert point.extra["results_number_output_tokens_min"] == "22"


def test_the_together_run_is_its_own_sweep_with_a_lower_true_tpot() -> None:
    sweeps = parse(*pair(), *pair(TOGETHER), **DEFAULTS)
    names = sorted(s.meta["sweep"] for s in sweeps)
    assert names == [
        "Llama-2-70b-chat-hf · LLMPerf · anyscale",
        "llama-2-70b-chat · LLMPerf · together",
    ]
    together = next(s for s in sweeps if "together" in s.meta["sweep"])
    [point] = together.points
    assert together.meta["measured_at"] == dt.date(2023, 12, 19)
    assert point.values["ttft_mean_ms"] == pytest.approx(622.329721273333)
    assert point.values["output_tok_s"] == pytest.approx(216.45553311958628)
    assert point.values["tpot_mean_ms"] == pytest.approx(11.931473633347501)
    assert point.extra["results_inter_token_latency_s_mean"] * 1000 == pytest.approx(
        15.78128072700586
    )


def test_llmperf_native_file_names_pair_summary_and_individual_responses() -> None:
    stem = "meta-llama-Llama-2-70b-chat-hf_550_150"
    together_stem = "together_ai-togethercomputer-llama-2-70b-chat_550_150"
    sweeps = parse(
        (f"{stem}_summary.json", read(ANYSCALE[0])),
        (f"{together_stem}_individual_responses.json", read(TOGETHER[1])),
        (f"{stem}_individual_responses.json", read(ANYSCALE[1])),
        (f"{together_stem}_summary.json", read(TOGETHER[0])),
        **DEFAULTS,
    )
    by_name = {s.meta["sweep"]: s for s in sweeps}
    anyscale = by_name["Llama-2-70b-chat-hf · LLMPerf · anyscale"]
    assert anyscale.source_file == f"{stem}_summary.json, {stem}_individual_responses.json"
    assert anyscale.points[0].values["tpot_mean_ms"] == pytest.approx(14.829685800953145)


def test_the_leaderboard_layout_pairs_summary_and_individual_folders_in_a_zip() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("raw_data/summary/anyscale_70b.json", read(ANYSCALE[0]))
        archive.writestr("raw_data/individual/anyscale_70b.json", read(ANYSCALE[1]))
        archive.writestr("raw_data/summary/together_70b.json", read(TOGETHER[0]))
        archive.writestr("raw_data/individual/together_70b.json", read(TOGETHER[1]))
    zipped = parse(("leaderboard.zip", buffer.getvalue()), **DEFAULTS)
    loose = parse(*pair(), *pair(TOGETHER), **DEFAULTS)
    assert sorted(s.content_hash() for s in zipped) == sorted(s.content_hash() for s in loose)


def test_unrelated_names_are_paired_by_their_requests() -> None:
    sweeps = parse(
        ("a.json", read(ANYSCALE[0])),
        ("b.json", read(TOGETHER[1])),
        ("c.json", read(TOGETHER[0])),
        ("d.json", read(ANYSCALE[1])),
        **DEFAULTS,
    )
    by_name = {s.meta["sweep"]: s.source_file for s in sweeps}
    assert by_name == {
        "Llama-2-70b-chat-hf · LLMPerf · anyscale": "a.json, d.json",
        "llama-2-70b-chat · LLMPerf · together": "c.json, b.json",
    }


def test_two_concurrency_levels_of_one_model_form_one_sweep_ordered_by_load() -> None:
    summary = json.loads(read(ANYSCALE[0]))
    summary["num_concurrent_requests"] = 1
    sweeps = parse(
        ("c5/anyscale_summary.json", read(ANYSCALE[0])),
        ("c5/anyscale_individual_responses.json", read(ANYSCALE[1])),
        ("c1/anyscale_summary.json", json.dumps(summary).encode()),
        ("c1/anyscale_individual_responses.json", read(ANYSCALE[1])),
        **DEFAULTS,
    )
    sweep = only(sweeps)
    assert [p.values["concurrency"] for p in sweep.points] == [1, 5]


def test_two_runs_at_one_concurrency_are_two_sweeps_named_by_their_folder() -> None:
    sweeps = parse(
        *[(f"monday/{n}", read(n)) for n in ANYSCALE],
        *[(f"tuesday/{n}", read(n)) for n in ANYSCALE],
        **DEFAULTS,
    )
    assert sorted(s.meta["sweep"] for s in sweeps) == [
        "Llama-2-70b-chat-hf · LLMPerf · anyscale · monday",
        "Llama-2-70b-chat-hf · LLMPerf · anyscale · tuesday",
    ]


def test_a_failed_request_is_a_sample_without_latencies() -> None:
    records = json.loads(read(ANYSCALE[1]))
    records[3].update(error_code=429, error_msg="rate limited", ttft_s=0, end_to_end_latency_s=0)
    summary = json.loads(read(ANYSCALE[0]))
    ok = [r["ttft_s"] for r in records if r["error_code"] is None]
    summary["results_ttft_s_mean"] = sum(ok) / len(ok)
    summary.update(results_num_completed_requests=149, results_number_errors=1)
    [point] = only(
        parse(
            ("x_summary.json", json.dumps(summary).encode()),
            ("x_individual_responses.json", json.dumps(records).encode()),
            **DEFAULTS,
        )
    ).points
    assert point.samples is not None
    assert point.samples[3] == (None, None, None, 550, False)
    assert (point.values["num_requests"], point.values["num_failed"]) == (149, 1)


def test_a_summary_alone_imports_ttft_e2el_and_throughput_without_tpot_and_says_why() -> None:
    sweep = only(parse((ANYSCALE[0], read(ANYSCALE[0])), **DEFAULTS))
    [point] = sweep.points
    v = point.values
    assert v["ttft_p50_ms"] == pytest.approx(212.82956000001718)
    assert v["e2el_p99_ms"] == pytest.approx(3705.7007264000186)
    assert v["output_tok_s"] == pytest.approx(207.52121071152493)
    assert not any(k.startswith(("tpot_", "itl_")) for k in v)
    assert point.samples is None
    # The raw per-request-mean ITL (which includes the first token's wait) stays in extra.
    assert point.extra["results_inter_token_latency_s_mean"] == 0.01583612777604942
    assert sweep.source_format == "LLMPerf token_benchmark_ray summary (results version 2023-08-31)"
    assert sweep.source_file == ANYSCALE[0]
    [warning] = sweep.warnings
    assert warning.startswith(NO_TPOT_WARNING)
    assert f"upload the matching *_individual_responses.json beside {ANYSCALE[0]}" in warning
    assert "includes the wait for the first token" in warning


def test_a_summary_alone_next_to_a_complete_pair_warns_only_on_its_own_sweep() -> None:
    alone, paired = sorted(
        parse((TOGETHER[0], read(TOGETHER[0])), *pair(), **DEFAULTS),
        key=lambda s: s.name.startswith("L"),
    )
    assert alone.name == "llama-2-70b-chat · LLMPerf · together"
    assert len(alone.warnings) == 1 and TOGETHER[0] in alone.warnings[0]
    assert paired.warnings == []
    assert paired.points[0].values["tpot_mean_ms"] > 0


def test_individual_responses_alone_are_refused() -> None:
    message = errors_of_llmperf((ANYSCALE[1], read(ANYSCALE[1])))
    assert ANYSCALE[1] in message and "summary" in message


def test_a_summary_and_someone_elses_requests_are_refused() -> None:
    message = errors_of_llmperf((ANYSCALE[0], read(ANYSCALE[0])), (TOGETHER[1], read(TOGETHER[1])))
    assert TOGETHER[1] in message and "does not match" in message


def corrupt(mutate: Any, name: str = ANYSCALE[0]) -> list[tuple[str, bytes]]:
    doc = json.loads(read(name))
    mutate(doc)
    other = ANYSCALE[1] if name == ANYSCALE[0] else ANYSCALE[0]
    return [(name, json.dumps(doc).encode()), (other, read(other))]


def test_a_truncated_summary_is_refused_naming_the_file() -> None:
    message = errors_of_llmperf(
        (ANYSCALE[0], read(ANYSCALE[0])[:900]), (ANYSCALE[1], read(ANYSCALE[1]))
    )
    assert ANYSCALE[0] in message and "not valid JSON" in message


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda d: d.update(results_ttft_s_quantiles_p99="slow"), "results_ttft_s_quantiles_p99"),
        (lambda d: d.update(num_concurrent_requests=[5]), "num_concurrent_requests"),
        (
            lambda d: d.pop("results_mean_output_throughput_token_per_s"),
            "results_mean_output_throughput_token_per_s",
        ),
        (lambda d: d.pop("num_concurrent_requests"), "num_concurrent_requests"),
    ],
)
def test_a_bad_summary_value_is_refused_naming_file_and_key(mutate: Any, key: str) -> None:
    message = errors_of_llmperf(*corrupt(mutate))
    assert ANYSCALE[0] in message and key in message


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda d: d[3].update(ttft_s="fast"), "[3].ttft_s"),
        (lambda d: d[7].update(number_output_tokens=[151]), "[7].number_output_tokens"),
        (lambda d: d[9].pop("end_to_end_latency_s"), "end_to_end_latency_s"),
    ],
)
def test_a_bad_request_record_is_refused_naming_file_and_key(mutate: Any, key: str) -> None:
    message = errors_of_llmperf(*corrupt(mutate, ANYSCALE[1]))
    assert ANYSCALE[1] in message and key in message


def test_the_llmperf_fixtures_import_through_the_api(client: TestClient) -> None:
    names = [*ANYSCALE, *TOGETHER]
    response = client.post(
        "/api/sweeps",
        files=[("files", (n, read(n), "application/octet-stream")) for n in names],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    created = response.json()["sweeps"]
    assert sorted(s["name"] for s in created) == [
        "Llama-2-70b-chat-hf · LLMPerf · anyscale",
        "llama-2-70b-chat · LLMPerf · together",
    ]
    for item in created:
        stored = client.get(f"/api/sweeps/{item['id']}").json()
        [point] = stored["points"]
        assert point["request_samples"] == 150
        assert point["concurrency"] == 5
        assert point["itl_mean_ms"] is None
        assert stored["source_tool"] == "llmperf token_benchmark_ray"


def test_the_anyscale_summary_uploaded_alone_is_stored_in_ms_with_its_warning_in_the_notes(
    client: TestClient,
) -> None:
    response = client.post(
        "/api/sweeps",
        files=[("files", (ANYSCALE[0], read(ANYSCALE[0]), "application/json"))],
        data={"hardware": "A100", "num_gpus": "4"},
    )
    assert response.status_code == 201, response.text
    [created] = response.json()["sweeps"]
    assert created["points"] == 1
    stored = client.get(f"/api/sweeps/{created['id']}").json()
    [point] = stored["points"]
    # Seconds in the file × 1000, exactly as written.
    assert point["ttft_mean_ms"] == 0.24890269464666667 * 1000
    assert point["ttft_p50_ms"] == 0.21282956000001718 * 1000
    assert point["ttft_p90_ms"] == 0.3212247440000169 * 1000
    assert point["ttft_p95_ms"] == 0.3620083771999928 * 1000
    assert point["ttft_p99_ms"] == 0.4745305190600024 * 1000
    assert point["e2el_mean_ms"] == 2.3546667737533324 * 1000
    assert point["e2el_p50_ms"] == 2.259533027999993 * 1000
    assert point["e2el_p90_ms"] == 2.941864069399986 * 1000
    assert point["e2el_p95_ms"] == 3.1255705759999826 * 1000
    assert point["e2el_p99_ms"] == 3.7057007264000186 * 1000
    assert point["output_tok_s"] == 207.52121071152493
    assert point["requests_per_s"] == 84.73327721639254 / 60
    assert point["duration_s"] == 150 * 60 / 84.73327721639254
    assert (point["num_requests"], point["num_failed"], point["concurrency"]) == (150, 0, 5)
    for stat in ("mean", "p50", "p90", "p95", "p99"):
        assert point[f"tpot_{stat}_ms"] is None
        assert point[f"itl_{stat}_ms"] is None
    assert point["request_samples"] == 0
    assert NO_TPOT_WARNING in stored["notes"]
    assert "*_individual_responses.json" in stored["notes"]
