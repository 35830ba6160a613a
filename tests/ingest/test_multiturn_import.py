"""Multi-turn output of vLLM's and SGLang's multi-turn benchmarks and guidellm's conversation
fields, and each request's phase (issue 49): sessions and turns hand-counted, a session read-off
on each, bad input refused naming file, row and key.

The vLLM and SGLang files are built from each tool's own writer (tests/fixtures/*/SOURCES.md);
the guidellm report is the real v2 fixture (../shared) whose listed requests are given the
`info.conversation_id` / `info.turn_index` guidellm's RequestInfo carries.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import polars as pl
import pytest

from app.domain.phases import accounting, profiled
from app.domain.sessions import session_attainment, ttft_by_turn
from app.ingest import IngestError, ParsedSweep, UploadFile, parse_upload
from tests.helpers import guidellm_conversations

OWN = Path(__file__).parent.parent / "fixtures"
VLLM = OWN / "vllm_multiturn" / "stats.json"
SGLANG = OWN / "sglang_multiturn" / "performance_metrics.jsonl"
DETAILS = {"hardware": "H100", "num_gpus": 1}


def parsed_one(files: list[tuple[str, bytes]]) -> ParsedSweep:
    (sweep,) = parse_upload([UploadFile(n, d) for n, d in files], DETAILS)
    return sweep


def frame_of(sweep: ParsedSweep) -> pl.DataFrame:
    (point,) = sweep.points
    return point.samples_frame().with_columns(point_id=pl.lit(1, pl.Int64))


def multiturn_refusal(name: str, data: bytes) -> tuple[str, int | None, str]:
    with pytest.raises(IngestError) as caught:
        parse_upload([UploadFile(name, data)], DETAILS)
    error = caught.value.errors[0]
    return error.file, error.row, error.message


# vLLM benchmarks/multi_turn --stats-json-output: 4 conversations on 2 clients, 11 requests.
def test_the_vllm_multi_turn_stats_give_four_sessions_of_eleven_turns() -> None:
    sweep = parsed_one([(VLLM.name, VLLM.read_bytes())])
    assert sweep.meta["scenario"] == "chat-multiturn"
    assert sweep.meta["source_tool"] == "vllm benchmark_serving_multi_turn.py"
    (point,) = sweep.points
    assert point.values["concurrency"] == 2.0  # two clients, one request each at a time
    assert point.values["num_requests"] == 11
    assert point.values["duration_s"] == 12.525  # first start to last end
    assert point.values["output_tok_s"] == 1100 / 12.525
    assert point.values["ttft_p50_ms"] == 110.0 and point.values["tpot_p50_ms"] == 20.0
    frame = frame_of(sweep)
    turns = frame.group_by("session_id").agg(pl.col("turn_index").sort()).sort("session_id")
    assert turns.rows() == [
        ("CONV_ID_0", [0, 1, 2]),
        ("CONV_ID_1", [0, 1, 2]),
        ("CONV_ID_2", [0, 1, 2]),
        ("CONV_ID_3", [0, 1]),
    ]


def test_vllm_multi_turn_session_attainment_counts_the_one_session_with_a_slow_turn() -> None:
    frame = frame_of(parsed_one([(VLLM.name, VLLM.read_bytes())]))
    # TTFT ≤ 200 ms on every turn: CONV_ID_1's second turn took 250 ms.
    stats = session_attainment(frame, [("ttft", 200.0)])[1]
    assert (stats.count, stats.good, stats.cut, stats.attainment) == (4, 3, 0, 0.75)
    turns = ttft_by_turn(frame, 50.0)[1]
    # First turns 150, 180, 120, 190 → median 165; later turns 90 95 250 100 80 85 110 → 95.
    assert (turns.first_ms, turns.later_ms) == (165.0, 95.0)
    assert (turns.first_requests, turns.later_requests) == (4, 7)


def test_vllm_multi_turn_after_a_warm_up_step_reads_every_session_as_cut() -> None:
    records = json.loads(VLLM.read_text())
    measured = [dict(r, input_num_turns=r["input_num_turns"] + 2) for r in records]
    sweep = parsed_one([("stats.json", json.dumps(measured).encode())])
    assert any("--warmup-step" in w for w in sweep.warnings)
    stats = session_attainment(frame_of(sweep), [("ttft", 200.0)])[1]
    assert (stats.count, stats.cut, stats.attainment) == (0, 4, None)


def test_a_vllm_multi_turn_record_with_a_word_for_its_ttft_is_refused_naming_row_and_key() -> None:
    records = json.loads(VLLM.read_text())
    records[2]["ttft_ms"] = "fast"
    file, row, message = multiturn_refusal("stats.json", json.dumps(records).encode())
    assert (file, row) == ("stats.json", 3)
    assert "'ttft_ms'" in message and "'fast'" in message
    del records[2]["ttft_ms"]
    assert multiturn_refusal("stats.json", json.dumps(records).encode())[1:] == (
        3,
        "required key 'ttft_ms' is missing",
    )
    records[2]["ttft_ms"] = 100.0
    records[4]["conversation_id"] = None
    assert multiturn_refusal("stats.json", json.dumps(records).encode())[1:] == (
        5,
        "key 'conversation_id': expected an id",
    )


# SGLang benchmark/hicache/bench_multiturn.py --log-file: two request rates, 3 rounds each.
def test_the_sglang_multi_turn_log_gives_a_point_per_rate_with_its_ttft_per_round() -> None:
    sweep = parsed_one([(SGLANG.name, SGLANG.read_bytes())])
    assert sweep.meta["scenario"] == "chat-multiturn"
    low, high = sweep.points
    assert (low.values["request_rate"], high.values["request_rate"]) == (2.0, 4.0)
    assert high.values["ttft_mean_ms"] == 300.0 and high.values["ttft_p90_ms"] == 500.0
    assert high.values["itl_p50_ms"] == 20.0 and "tpot_p50_ms" not in high.values
    assert high.values["num_requests"] == 12
    assert high.values["total_tok_s"] == 12 * 1536 / 6 + 12 * 64 / 6
    assert [r["request_count"] for r in high.extra["rounds"]] == [4, 4, 4]
    # 4 sessions of 3 turns: round 0 is every session's first turn, rounds 1-2 the later ones.
    assert high.extra["ttft_first_turn_mean_ms"] == 500.0
    assert high.extra["ttft_later_turns_mean_ms"] == (4 * 200.0 + 4 * 100.0) / 8
    assert high.extra["cache_hit_rate"] == 0.5


def test_the_sglang_multi_turn_log_has_no_session_read_off_and_says_why() -> None:
    sweep = parsed_one([(SGLANG.name, SGLANG.read_bytes())])
    assert all(p.samples is None for p in sweep.points)
    assert any("session attainment is unknown" in w for w in sweep.warnings)


def test_an_sglang_multi_turn_line_with_a_word_for_a_statistic_is_refused_naming_it() -> None:
    lines = SGLANG.read_text().splitlines()
    second = json.loads(lines[1])
    second["summary"]["p90_ttft"] = "slow"
    data = (lines[0] + "\n" + json.dumps(second) + "\n").encode()
    file, row, message = multiturn_refusal("perf.jsonl", data)
    assert (file, row) == ("perf.jsonl", 2)
    assert "summary.p90_ttft" in message
    twice = (lines[0] + "\n" + lines[0] + "\n").encode()
    assert multiturn_refusal("perf.jsonl", twice)[1:] == (
        2,
        "request rate 4 of tag '' is given twice (rows 1 and 2)",
    )


# guidellm: the real v2 report, its listed requests given conversation ids and turns.
def test_guidellm_conversation_fields_give_sessions_turns_and_the_warm_up_count() -> None:
    sweep = parsed_one([("benchmarks.json", json.dumps(guidellm_conversations()).encode())])
    assert sweep.meta["scenario"] == "multi-turn"
    (point,) = sweep.points
    assert point.extra["request_accounting"] == {
        "records_total": 15,
        "records_profiled": 11,
        "records_dropped_total": 4,
        "records_warmup_dropped": 2,
        "records_cooldown_dropped": 1,
        "records_error_dropped": 1,
    }
    frame = frame_of(sweep)
    assert frame.height == 12
    assert frame["session_id"].unique().sort().to_list() == ["c0", "c1", "c2", "c3"]
    # TTFT ≤ 500 ms on every turn and no failed turn: c0 and c1 met; c2's turn 1 was slow and
    # c3's turn 2 errored.
    stats = session_attainment(frame, [("ttft", 500.0)])[1]
    assert (stats.count, stats.good, stats.cut, stats.attainment) == (4, 2, 0, 0.5)


def test_a_guidellm_turn_that_is_not_a_whole_number_is_refused_naming_its_key() -> None:
    doc = guidellm_conversations()
    bad = copy.deepcopy(doc)
    bad["benchmarks"][0]["requests"]["successful"][3]["info"]["turn_index"] = "second"
    with pytest.raises(IngestError) as caught:
        parse_upload([UploadFile("benchmarks.json", json.dumps(bad).encode())], DETAILS)
    error = caught.value.errors[0]
    assert error.file == "benchmarks.json"
    assert "benchmarks[0].requests.successful[3].info.turn_index" in error.message


# The canonical per-request CSV's phase column.
POINTS = b"sweep,concurrency,output_tok_s,tpot_p50_ms,duration_s\nchat,4,400,20,10\n"
PHASED = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok,session_id,turn_index,phase\n"
    b"chat,4,2900,5000,100,900,true,w1,0,warmup\n"
    b"chat,4,300,2300,100,900,true,s1,0,profiling\n"
    b"chat,4,120,2100,100,1200,true,s1,1,profiling\n"
    b"chat,4,,,,900,false,s2,0,profiling\n"
    b"chat,4,400,2400,100,900,true,s3,0,\n"
)


def test_a_canonical_phase_column_counts_warm_up_requests_apart_from_the_read_off() -> None:
    sweep = parsed_one([("chat.csv", POINTS), ("chat.requests.csv", PHASED)])
    (point,) = sweep.points
    assert point.extra["request_accounting"] == {
        "records_total": 5,
        "records_profiled": 3,
        "records_dropped_total": 2,
        "records_warmup_dropped": 1,
        "records_error_dropped": 1,
    }
    frame = frame_of(sweep)
    assert frame["phase"].to_list() == ["warmup", "profiling", "profiling", "profiling", None]
    read = profiled(frame)
    assert read["session_id"].to_list() == ["s1", "s1", "s2", "s3"]  # no phase: profiled
    stats = session_attainment(read, [("ttft", 500.0)])[1]
    assert (stats.count, stats.good) == (3, 2)
    assert accounting(point.samples_frame()) == point.extra["request_accounting"]


def test_a_phase_that_is_neither_warm_up_nor_profiling_is_refused_naming_row_and_column() -> None:
    bad = PHASED.replace(b"s1,1,profiling", b"s1,1,cooldown")
    with pytest.raises(IngestError) as caught:
        parse_upload(
            [UploadFile("chat.csv", POINTS), UploadFile("chat.requests.csv", bad)], DETAILS
        )
    error = caught.value.errors[0]
    assert (error.file, error.row, error.column, error.message) == (
        "chat.requests.csv",
        4,
        "phase",
        "is not one of warmup, profiling",
    )


def test_a_run_without_warm_up_requests_hashes_as_before_phases_were_kept() -> None:
    plain = PHASED.replace(b"warmup", b"profiling")
    without = b"\n".join(line.rsplit(b",", 1)[0] for line in plain.split(b"\n") if line).replace(
        b",phase", b""
    )
    stated = parsed_one([("chat.csv", POINTS), ("chat.requests.csv", plain)])
    unstated = parsed_one([("chat.csv", POINTS), ("chat.requests.csv", without + b"\n")])
    assert stated.content_hash() == unstated.content_hash()
    warm = parsed_one([("chat.csv", POINTS), ("chat.requests.csv", PHASED)])
    assert warm.content_hash() != stated.content_hash()
