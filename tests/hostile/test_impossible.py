"""Issue 31 §2: impossible data is refused naming the file, row and field, for every importer,
on both databases and through the CLI; every real fixture passes the same checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.cli import main
from app.domain.impossible import impossible_values
from app.ingest import UploadFile, parse_upload
from app.settings import get_settings
from tests.hostile.corpus import IMPOSSIBLE, IMPOSSIBLE_AT, Case, write
from tests.ingest.test_all_fixtures import FIXTURES, FOLDERS, files_of


def test_falling_percentiles_are_found_against_the_highest_stored_below_them() -> None:
    values = {"ttft_p50_ms": 500.0, "ttft_p90_ms": 600.0, "ttft_p99_ms": 1.0}
    extra = {"p99.9_ttft_ms": 550.0, "ttft_max_ms": 700.0}
    found = [(p.field, p.message) for p in impossible_values(values, extra)]
    never = "(a higher percentile can never be lower)"
    assert found == [
        ("ttft_p99_ms", f"TTFT p99 1 ms is below its p90 600 ms {never}"),
        ("p99.9_ttft_ms", f"TTFT p99.9 550 ms is below its p90 600 ms {never}"),
    ]


def test_equal_percentiles_a_mean_between_min_and_max_and_sound_counts_pass() -> None:
    values = {
        "ttft_mean_ms": 10.0, "ttft_p50_ms": 9.0, "ttft_p99_ms": 9.0, "concurrency": 8.0,
        "num_requests": 140, "num_failed": 10, "duration_s": 3.5, "output_tok_s": 100.0,
    }  # fmt: skip
    extra = {"ttft_min_ms": "1", "ttft_max_ms": "12", "num_prompts": 150}
    assert impossible_values(values, extra) == []


def test_a_mean_outside_min_and_max_and_counts_above_the_issued_are_refused() -> None:
    values = {"e2el_mean_ms": 0.5, "num_requests": 100, "num_failed": 51}
    extra = {"e2el_min_ms": 1.0, "e2el_max_ms": 2.0, "num_prompts": 150}
    assert [p.message for p in impossible_values(values, extra)] == [
        "E2EL mean 0.5 ms is outside its min 1 ms and max 2 ms",
        "100 completed + 51 failed = 151 requests, but the file says it issued 150 (num_prompts)",
    ]


@pytest.mark.parametrize("concurrency", [1.5, 0.0, -2.0, float("inf")])
def test_a_concurrency_that_is_not_a_positive_whole_number_is_refused(concurrency: float) -> None:
    [problem] = impossible_values({"concurrency": concurrency}, {})
    assert problem.field == "concurrency"


def test_a_zero_duration_is_refused_only_where_a_rate_is_derived_from_it() -> None:
    assert impossible_values({"duration_s": 0.0}, {}) == []
    [problem] = impossible_values({"duration_s": 0.0, "output_tok_s": 10.0}, {})
    assert problem.message == (
        "duration 0 s, but output_tok_s is a rate over it (a rate over no time is undefined)"
    )


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_real_fixture_holds_an_impossible_value(folder: str) -> None:
    """So no tool is known to write such values itself: none is imported with a warning."""
    root = FIXTURES / folder
    files = [UploadFile(str(p.relative_to(root)), p.read_bytes()) for p in files_of(folder)]
    sweeps = parse_upload(files, {"hardware": "H100", "num_gpus": 8})
    points = [p for s in sweeps for p in s.points]
    assert points
    assert [impossible_values(p.values, p.extra) for p in points] == [[]] * len(points)


@pytest.mark.parametrize("case", IMPOSSIBLE, ids=[c.id for c in IMPOSSIBLE])
def test_an_impossible_value_is_a_422_naming_the_file_row_and_field(
    client: TestClient, case: Case
) -> None:
    response = client.post(
        "/api/sweeps",
        files=[("files", (case.filename, case.payload(), "application/octet-stream"))],
        data=case.fields,
    )
    assert response.status_code == 422, response.text
    first = response.json()["errors"][0]
    assert (first["file"], first["row"], first["column"]) == (
        case.filename,
        *IMPOSSIBLE_AT[case.filename],
    )
    assert client.get("/api/sweeps").json()["sweeps"] == []


@pytest.mark.parametrize("case", IMPOSSIBLE, ids=[c.id for c in IMPOSSIBLE])
def test_the_cli_refuses_an_impossible_value_one_line_per_problem_naming_file_and_field(
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: Case,
) -> None:
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    try:
        status = main(["import", str(write(case, tmp_path)), "--hardware", "H100", "--gpus", "8"])
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert status == 2
    row, column = IMPOSSIBLE_AT[case.filename]
    where = ", ".join(
        [case.filename, *([f"row {row}"] if row is not None else []), f"column {column!r}"]
    )
    lines = err.strip().splitlines()
    assert lines[0] == "error: nothing was imported"
    assert lines[1].strip().startswith(where + ": point at ")


def canonical_file(rows: int, bad_row: int | None = None) -> bytes:
    header = (
        "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p99_ms,ttft_p99.9_ms,output_tok_s"
    )
    lines = [header]
    for i in range(rows):
        tail = "100" if i + 2 == bad_row else "900"  # p99.9 below p99 (500) on the bad row
        lines.append(f"s{i % 7},H100,8,{i + 1},12.5,500,{tail},400")
    return ("\n".join(lines) + "\n").encode()


def test_a_large_canonical_file_is_screened_as_columns_and_refused_only_at_its_bad_row() -> None:
    sound = parse_upload([UploadFile("big.csv", canonical_file(20_000))], {})
    assert sum(s.point_count for s in sound) == 20_000
    assert all(s.table_rows is not None for s in sound)  # never built as a list of points
    with pytest.raises(Exception) as refused:
        parse_upload([UploadFile("big.csv", canonical_file(20_000, bad_row=12_345))], {})
    assert str(refused.value) == (
        "big.csv, row 12345, column 'ttft_p99.9_ms': point at concurrency 12344: TTFT p99.9 "
        "100 ms is below its p99 500 ms (a higher percentile can never be lower)"
    )


def test_the_upload_preview_lists_each_impossible_value_with_file_row_and_column(
    hx_client: TestClient,
) -> None:
    data = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p50_ms,ttft_p99_ms,output_tok_s\n"
        b"s,H100,8,1.5,12.5,500,1,400\n"
    )
    response = hx_client.post("/upload/preview", files=[("files", ("bad.csv", data, "text/csv"))])
    items = BeautifulSoup(response.text, "html.parser").select("#upload-preview .alert-error li")
    assert [li.text for li in items] == [
        "bad.csv, row 2, column 'ttft_p99_ms': point at concurrency 1.5: TTFT p99 1 ms is below "
        "its p50 500 ms (a higher percentile can never be lower)",
        "bad.csv, row 2, column 'concurrency': point at concurrency 1.5: concurrency 1.5 is not "
        "a positive whole number of requests",
    ]
