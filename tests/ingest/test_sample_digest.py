"""A point's samples digest (app.ingest.sample_digest) is the same bytes hashed whichever way
it is computed: started on a helper thread when the samples are attached, on the helper threads
for a large sweep, or one after another; a point whose samples change is digested again."""

from __future__ import annotations

import hashlib

from app.ingest import UploadFile, parse_upload, parsed
from app.ingest.canonical_requests import parse_requests_csv
from app.ingest.sample_digest import PARALLEL_MIN_ROWS, frame_digest, point_digests
from tests.ingest.test_canonical_bulk import as_bytes, request_rows


def _points(n: int, points: int) -> list[parsed.ParsedPoint]:
    groups = parse_requests_csv("r.csv", as_bytes(request_rows(n, points)))
    return [parsed.ParsedPoint({"concurrency": g.concurrency}, samples=g.samples) for g in groups]


def _csv_sha256(point: parsed.ParsedPoint) -> str:
    frame = point.samples_frame().drop("session_id", "turn_index", "phase")
    return hashlib.sha256(frame.write_csv(float_precision=None).encode()).hexdigest()


def test_a_digest_started_when_attached_is_the_sha256_of_the_300_samples_csv_text() -> None:
    [point, *_] = _points(900, 3)
    assert point.sample_count == 300
    point.start_digest()
    assert point.started is not None and point.started.source is point.samples
    assert point_digests([point]) == {0: _csv_sha256(point)}


def test_a_point_whose_samples_changed_after_the_start_is_digested_again() -> None:
    first, second, _ = _points(900, 3)
    first.start_digest()
    first.samples = second.samples  # the started digest is of the samples it had
    assert point_digests([first]) == {0: _csv_sha256(second)}
    assert point_digests([first]) != {0: _csv_sha256(_points(900, 3)[0])}


def test_4_points_of_30_000_samples_digest_on_the_helper_threads_as_one_after_another() -> None:
    points = _points(120_000, 4)
    assert sum(p.sample_count for p in points) >= PARALLEL_MIN_ROWS
    each = [frame_digest(p.samples_frame(any_int_width=True)) for p in points]
    empty = parsed.ParsedPoint({"concurrency": 9})
    assert point_digests([*points[:2], empty, *points[2:]]) == {
        0: each[0],
        1: each[1],
        3: each[2],
        4: each[3],
    }


def test_an_uploaded_request_files_3_points_start_their_digests_and_hash_as_computed() -> None:
    points_csv = (
        "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
        "s,H100,8,1,10,900\ns,H100,8,2,11,1700\ns,H100,8,3,12,2400\n"
    )
    files = [
        UploadFile("s.csv", points_csv.encode()),
        UploadFile("s.requests.csv", as_bytes(request_rows(600, 3))),
    ]
    [sweep] = parse_upload(files, {})
    assert [p.started is not None for p in sweep.points] == [True, True, True]
    started = sweep.content_hash()
    for point in sweep.points:
        point.started = None
    assert sweep.content_hash() == started
