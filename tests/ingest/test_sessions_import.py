"""Sessions and turns read from each tool's multi-turn output (issue 49)."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy.orm import Session

from app.ingest import IngestError, UploadFile, parse_upload, parsed
from app.store import samples as sample_store
from app.store import sweeps as q

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
    saved = q.save_parsed(session, sweeps)
    session.commit()
    ids = [p.id for p in q.get_sweep(session, saved[0].sweep.id).points]
    frame = sample_store.samples_frame(session, ids)
    assert frame.select("session_id", "turn_index").rows() == [
        ("s1", 0),
        ("s1", 1),
        ("s2", 0),
        ("s2", 1),
    ]
    # A single-turn run's samples hash as the five columns did before sessions existed.
    single = [(120.5, 3090.25, 100, 512, True), (None, None, None, 512, False)]
    point = parsed.ParsedPoint({"concurrency": 1.0}, samples=single)
    before = b"ttft_ms,e2el_ms,output_len,input_len,ok\n120.5,3090.25,100,512,true\n,,,512,false\n"
    assert parsed._samples_digest(point) == hashlib.sha256(before).hexdigest()
    with_sessions = parsed.ParsedPoint({"concurrency": 1.0}, samples=[(*r, "a", 0) for r in single])
    assert parsed._samples_digest(with_sessions) != hashlib.sha256(before).hexdigest()


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
