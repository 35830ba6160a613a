"""A large per-request file is read on a helper thread from the start of the upload, while the
files sorted before it (its points file) are read: what the upload gives, and what it refuses,
must not change."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from app.ingest import IngestError, UploadFile, parse_upload_files, recognise
from app.ingest.registry import importers
from app.ingest.source import SourceFile
from tests.ingest.test_canonical_bulk import as_bytes, request_rows

POINTS = "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n" + "".join(
    f"s,H100,8,{c},10,1000\n" for c in (1, 2, 3)
)


@pytest.fixture
def read_on(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The thread each per-request file was read on."""
    seen: list[str] = []
    real = recognise.parse_requests_csv

    def parse(file: str, data: bytes) -> Any:
        seen.append(threading.current_thread().name)
        return real(file, data)

    monkeypatch.setattr(recognise, "parse_requests_csv", parse)
    return seen


def two_files(rows: list[str], points: str = POINTS) -> list[UploadFile]:
    return [UploadFile("points.csv", points.encode()), UploadFile("r.csv", as_bytes(rows))]


def parsed_as(files: list[UploadFile]) -> list[tuple[Any, ...]]:
    sweeps = parse_upload_files(files, {}).sweeps
    return [
        (s.meta, [(p.values, p.samples.rows()) for p in s.points], s.content_hash()) for s in sweeps
    ]


def test_a_large_per_request_file_is_read_on_a_helper_thread_and_gives_what_it_gives_in_turn(
    read_on: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = two_files(request_rows(3000))
    in_turn = parsed_as(files)
    assert read_on == ["MainThread"]
    monkeypatch.setattr(recognise, "READ_AHEAD_BYTES", len(files[1].data))
    assert parsed_as(files) == in_turn
    assert read_on == ["MainThread", "read-ahead_0"]  # read once, ahead


def test_a_smaller_file_or_a_file_uploaded_alone_is_read_in_its_turn(
    read_on: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = two_files(request_rows(300))
    monkeypatch.setattr(recognise, "READ_AHEAD_BYTES", len(files[1].data) + 1)
    parse_upload_files(files, {})
    monkeypatch.setattr(recognise, "READ_AHEAD_BYTES", 1)
    with pytest.raises(IngestError, match="no sweep named 's' in this upload"):
        parse_upload_files(files[1:], {})
    assert read_on == ["MainThread", "MainThread"]


@pytest.mark.parametrize("points", [POINTS, POINTS.replace("s,H100,8,2,10,", "s,H100,8,2,-10,")])
def test_a_refused_file_read_ahead_is_refused_with_the_same_errors_in_the_same_order(
    points: str, read_on: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = request_rows(3000)
    rows[2000] = "s,3,100.0,9000.0,seven,512,true"  # not a count: named by row and column
    files = two_files(rows, points)
    with pytest.raises(IngestError) as in_turn:
        parse_upload_files(files, {})
    monkeypatch.setattr(recognise, "READ_AHEAD_BYTES", 1)
    with pytest.raises(IngestError) as ahead:
        parse_upload_files(files, {})
    assert read_on == ["MainThread", "read-ahead_0"]
    assert ahead.value.errors == in_turn.value.errors
    assert any(e.row == 2002 and e.column == "output_len" for e in ahead.value.errors)


def test_only_a_file_read_as_canonical_per_request_samples_is_read_ahead() -> None:
    tools = importers()
    requests = SourceFile("r.csv", as_bytes(request_rows(30)))
    wide = SourceFile("w.csv", (",".join(f"c{i}" for i in range(5000)) + "\n1\n").encode())
    json_file = SourceFile("r.json", b'{"ttft_ms": [1, 2]}')
    assert recognise._requests_file(requests, tools)
    assert not recognise._requests_file(SourceFile("points.csv", POINTS.encode()), tools)
    assert not recognise._requests_file(wide, tools)  # refused in its turn, naming its width
    assert not recognise._requests_file(json_file, tools)
