"""Sessions and turns read from each tool's multi-turn output (issue 49)."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from sqlalchemy.orm import Session

from app.domain.phases import profiled
from app.domain.sessions import e2e_interactivity, session_attainment, ttft_by_turn
from app.ingest import IngestError, UploadFile, parse_upload, parsed
from app.ingest.sample_digest import CSV, point_digests
from app.store import samples as sample_store
from app.store import sweep_save
from app.store import sweeps as q
from tests.ingest.test_sample_digest import values_sha256

DETAILS = {"hardware": "H100", "num_gpus": 8}
POINTS = b"sweep,concurrency,output_tok_s,tpot_p50_ms,duration_s\nagents,4,400,20,10\n"
MULTI_TURN_CSV = (
    b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok,session_id,turn_index\n"
    b"agents,4,900,3000,100,20000,true,s1,0\n"
    b"agents,4,120,2100,100,21000,true,s1,1\n"
    b"agents,4,1100,3200,100,18000,true,s2,0\n"
    b"agents,4,,,,18500,false,s2,1\n"
)


def test_the_canonical_request_csv_carries_each_requests_session_and_turn() -> None:
    sweeps = parse_upload(
        [
            UploadFile("agents.csv", POINTS),
            UploadFile("agents.requests.csv", MULTI_TURN_CSV),
        ],
        DETAILS,
    )
    frame = sweeps[0].points[0].samples_frame()
    assert frame["session_id"].to_list() == ["s1", "s1", "s2", "s2"]
    assert frame["turn_index"].to_list() == [0, 1, 0, 1]


def test_session_columns_survive_storage_and_single_turn_hashes_are_unchanged(
    session: Session,
) -> None:
    files = [
        UploadFile("agents.csv", POINTS),
        UploadFile("agents.requests.csv", MULTI_TURN_CSV),
    ]
    sweeps = parse_upload(files, DETAILS)
    saved = sweep_save.save_parsed(session, sweeps)
    session.commit()
    ids = [p.id for p in q.get_sweep(session, saved[0].sweep.id).points]
    frame = sample_store.samples_frame(session, ids)
    assert frame.select("session_id", "turn_index").rows() == [
        ("s1", 0),
        ("s1", 1),
        ("s2", 0),
        ("s2", 1),
    ]
    # A single-turn run's samples hash as the five columns did before sessions existed (the
    # CSV text of format 1, which finds the sweeps stored then), and in format 2 as five too.
    single = [(120.5, 3090.25, 100, 512, True), (None, None, None, 512, False)]
    point = parsed.ParsedPoint({"concurrency": 1.0}, samples=single)
    before = b"ttft_ms,e2el_ms,output_len,input_len,ok\n120.5,3090.25,100,512,true\n,,,512,false\n"
    assert point_digests([point], CSV).get(0) == hashlib.sha256(before).hexdigest()
    five = point.samples_frame(any_int_width=True).select(pl.nth(range(5)))
    assert point_digests([point]).get(0) == values_sha256(five)
    with_sessions = parsed.ParsedPoint({"concurrency": 1.0}, samples=[(*r, "a", 0) for r in single])
    assert point_digests([with_sessions], CSV).get(0) != hashlib.sha256(before).hexdigest()
    assert point_digests([with_sessions]).get(0) != point_digests([point]).get(0)


def test_a_negative_turn_is_refused_naming_row_and_column() -> None:
    bad = MULTI_TURN_CSV.replace(b"s2,1\n", b"s2,-1\n")
    with pytest.raises(IngestError) as caught:
        parse_upload(
            [
                UploadFile("agents.csv", POINTS),
                UploadFile("agents.requests.csv", bad),
            ],
            DETAILS,
        )
    error = caught.value.errors[0]
    assert (error.file, error.row, error.column, error.message) == (
        "agents.requests.csv",
        5,
        "turn_index",
        "is negative",
    )


FIXTURES = Path(__file__).parent.parent / "fixtures"


def aiperf_cancellation_run() -> parsed.ParsedSweep:
    path = FIXTURES / "aiperf" / "aiperf_examples_run1_cancellations.zip"
    (sweep,) = parse_upload([UploadFile(path.name, path.read_bytes())], DETAILS)
    return sweep


def aiperf_raw_records() -> list[dict[str, Any]]:
    """The real run's records read with the json module alone (an oracle for the importer)."""
    path = FIXTURES / "aiperf" / "aiperf_examples_run1_cancellations.zip"
    with zipfile.ZipFile(path) as archive:
        text = archive.read("run1/profile_export.jsonl").decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_the_early_aiperf_schema_imports_with_its_cancellations_counted_as_failures() -> None:
    sweep = aiperf_cancellation_run()
    (point,) = sweep.points
    assert point.values["num_requests"] == 89 and point.values["num_failed"] == 11
    assert point.values["ttft_p50_ms"] == 2369.317693  # the short tag `ttft` under `records`
    frame = point.samples_frame()
    assert frame.height == 100 and frame["ok"].sum() == 89
    records = aiperf_raw_records()
    cancelled = [r for r in records if r["error"] is not None]
    assert len(cancelled) == 11 and {r["error"]["code"] for r in cancelled} == {499}
    assert point.extra["request_accounting"] == {
        "records_total": 100,
        "records_profiled": 89,
        "records_dropped_total": 11,
        "records_warmup_dropped": 0,
        "records_error_dropped": 11,
        "error_categories": {"RequestCancellationError": 11},
    }
    # Each request is its own session (turn 0, its own correlation id): a cancelled one is a
    # session that failed, so session attainment at TTFT ≤ 3 s counts it against.
    samples = frame.with_columns(point_id=pl.lit(1, pl.Int64))
    stats = session_attainment(samples, [("ttft", 3000.0)])[1]
    met = sum(1 for r in records if r["error"] is None and r["metrics"]["ttft"]["value"] <= 3000.0)
    assert (stats.count, stats.good, stats.cut) == (100, met, 0)
    assert met < 89  # some successes are too slow as well


def test_e2e_normalized_p90_of_the_real_aiperf_run_equals_numpy_over_its_records() -> None:
    frame = aiperf_cancellation_run().points[0].samples_frame()
    got = e2e_interactivity(frame.with_columns(point_id=pl.lit(1, pl.Int64)))[1]
    ok = [r["metrics"] for r in aiperf_raw_records() if r["error"] is None]
    ratios = np.array(
        [m["request_latency"]["value"] / m["output_sequence_length"]["value"] for m in ok]
    )
    assert abs(got.tok_s_user - 1000.0 / np.percentile(ratios, 90)) <= 1e-9
    assert got.requests == 89


def test_aiperf_multi_turn_records_give_sessions_turns_and_the_warm_up_count() -> None:
    folder = FIXTURES / "aiperf" / "multiturn"
    files = [UploadFile(f"run/{p.name}", p.read_bytes()) for p in sorted(folder.iterdir())]
    (sweep,) = parse_upload(files, DETAILS)
    assert sweep.meta["scenario"] == "multi-turn"
    (point,) = sweep.points
    accounting = point.extra["request_accounting"]
    assert (accounting["records_total"], accounting["records_warmup_dropped"]) == (11, 2)
    assert (accounting["records_profiled"], accounting["records_error_dropped"]) == (8, 1)
    frame = point.samples_frame().with_columns(point_id=pl.lit(1, pl.Int64))
    # The two warm-up records stay, in their phase; the read-offs take the profiled ones.
    warm = frame.filter(pl.col("phase") == "warmup")
    assert sorted(warm["session_id"]) == ["corr-90", "corr-91"]
    frame = profiled(frame)
    assert frame["session_id"].unique().sort().to_list() == ["corr-1", "corr-2", "corr-3"]
    # TTFT ≤ 2 s per turn: corr-1 met every turn, corr-2's second turn took 2.6 s, corr-3's
    # third turn was cancelled.
    stats = session_attainment(frame, [("ttft", 2000.0)])[1]
    assert (stats.count, stats.good, stats.cut) == (3, 1, 0)
    turns = ttft_by_turn(frame)[1]
    assert (turns.first_ms, turns.later_ms) == (1800.0, 310.0)


def test_an_agentx_aggregate_row_reads_its_scenario_trace_accounting_and_p75() -> None:
    path = FIXTURES / "inferencex" / "agentx_agg_bmk_built.json"
    (sweep,) = parse_upload([UploadFile(path.name, path.read_bytes())], {})
    assert sweep.meta["scenario"] == "agentic-coding"
    assert sweep.meta["trace_dataset"] == "semianalysisai/cc-traces-weka-042026"
    assert (sweep.meta["hardware"], sweep.meta["num_gpus"]) == ("B200", 8)
    assert "isl" not in sweep.meta and "osl" not in sweep.meta
    low, high = sweep.points
    assert low.values["ttft_p90_ms"] == pytest.approx(0.85 * 1.5 * 1000)
    assert low.extra["ttft_p75_ms"] == pytest.approx(0.85 * 1.2 * 1000)
    assert low.values["total_tok_s"] == 18500.0 and low.values["duration_s"] == 1800.0
    assert (low.values["num_requests"], low.values["num_failed"]) == (520, 8)
    assert low.extra["request_accounting"]["records_warmup_dropped"] == 12
    assert high.extra["request_accounting"]["error_categories"] == {"TimeoutError": 10}
    assert "intvty" not in json.dumps(low.extra["request_metrics"])


def test_an_agentx_row_with_a_latency_that_is_not_a_number_names_the_key() -> None:
    path = FIXTURES / "inferencex" / "agentx_agg_bmk_built.json"
    rows = json.loads(path.read_text())
    rows[1]["request_metrics"]["latency"]["ttft"]["p90"] = "slow"
    with pytest.raises(IngestError) as caught:
        parse_upload([UploadFile("agg.json", json.dumps(rows).encode())], {})
    error = caught.value.errors[0]
    assert (error.file, error.row) == ("agg.json", 2)
    assert "request_metrics.latency.ttft.p90" in error.message
