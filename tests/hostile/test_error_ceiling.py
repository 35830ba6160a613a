"""Errors with a ceiling: blank lines and rows of empty cells are skipped as CSV readers skip
them (rows keep their line numbers), and a refusal lists at most 50 problems, then says how many
more there are, through the API and the CLI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.ingest.errors import MAX_LISTED
from app.store.models import Sweep
from tests.factories import MINIMAL, count, post_files
from tests.hostile.corpus import HEADER, good_row

REQUESTS = b"sweep,concurrency,ttft_ms,e2el_ms,output_len,ok\n" + b"mini,4,10,100,5,true\n" * 3


def test_a_trailing_blank_line_and_blank_rows_inside_a_csv_are_skipped(
    client: TestClient, session: Session
) -> None:
    body = MINIMAL.replace(b"\nmini,H100,1,4", b"\n\n,,,,,\n  \nmini,H100,1,4") + b"\n\n"
    requests = REQUESTS.replace(b"\nmini,4,10,100,5,true", b"\n\n,,,,,\nmini,4,10,100,5,true", 1)
    stored = post_files(client, ("blank.csv", body), ("r.csv", requests + b"\n \n"))
    assert stored.status_code == 201, stored.text
    assert stored.json()["sweeps"][0]["points"] == 2
    assert count(session, Sweep) == 1
    detail = client.get(f"/api/sweeps/{stored.json()['sweeps'][0]['id']}").json()
    assert [p.get("request_samples") for p in detail["points"]] == [0, 3], detail["points"][0]


def test_a_bad_row_after_blank_lines_is_named_by_its_line_in_the_file(
    client: TestClient, session: Session
) -> None:
    body = HEADER + "\n" + good_row() + "\n\n\n,,,,,,\n" + good_row(tpot_p50_ms="-1") + "\n"
    answer = post_files(client, ("late.csv", body.encode()))
    assert answer.status_code == 422
    assert answer.json()["detail"] == "late.csv, row 6, column 'tpot_p50_ms': -1.0 is negative"
    requests = REQUESTS + b"\n\nmini,4,10,100,-5,true\n"
    answer = post_files(client, ("mini.csv", MINIMAL), ("r.csv", requests))
    assert answer.json()["detail"] == "r.csv, row 7, column 'output_len': is negative"
    assert count(session, Sweep) == 0


def test_a_refusal_lists_50_problems_then_how_many_more_of_the_same_kind(
    client: TestClient, session: Session
) -> None:
    rows = [good_row(concurrency="-4")] * 100_000
    answer = post_files(client, ("bad.csv", "\n".join([HEADER, *rows]).encode() + b"\n"))
    assert answer.status_code == 422
    errors = answer.json()["errors"]
    assert len(errors) == MAX_LISTED + 1 == 51
    assert errors[0]["message"] == "-4.0 must be greater than 0" and errors[0]["row"] == 2
    assert errors[49]["row"] == 51
    assert errors[-1] == {
        "file": "bad.csv",
        "row": None,
        "column": None,
        "message": "and 99,950 more of the same kind",
    }
    assert answer.json()["detail"].endswith("; and 99,980 more")
    assert len(answer.content) < 16_384
    # A problem of another kind among the unlisted ones: "more", not "of the same kind".
    other = "\n".join([HEADER, *rows, good_row(output_tok_s="-1")]).encode() + b"\n"
    errors = post_files(client, ("other.csv", other)).json()["errors"]
    assert errors[-1]["message"] == "and 99,951 more"
    assert count(session, Sweep) == 0


@pytest.mark.parametrize("rows", [49, 50, 51])
def test_the_row_by_row_list_and_the_counted_rest_agree_at_the_ceiling(
    client: TestClient, rows: int
) -> None:
    """Up to the ceiling every problem is listed; past it the rest is counted as columns."""
    lines = [good_row(concurrency="-4", output_tok_s="-1")] * rows
    answer = post_files(client, ("edge.csv", "\n".join([HEADER, *lines]).encode() + b"\n"))
    errors = answer.json()["errors"]
    total = 2 * rows
    assert len(errors) == min(total, MAX_LISTED) + (total > MAX_LISTED)
    if total > MAX_LISTED:
        assert errors[-1]["message"] == f"and {total - MAX_LISTED} more of the same kind"


def test_the_cli_prints_at_most_51_problems_for_a_file_of_a_million(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "many.csv"
    path.write_text(HEADER + "\n" + "x,,,,,,\n" * 130_000)
    assert cli("import", str(path), "--hardware", "H100", "--num-gpus", "8") == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "error: nothing was imported"
    assert len(lines) == 1 + MAX_LISTED + 1
    assert lines[-1] == "  many.csv: and 389,950 more of the same kind"


def test_the_memory_probe_covers_blank_lines_rows_of_empty_cells_and_a_million_problems() -> None:
    """tests/hostile/memory_probe.py measures every corpus file of at most 1 MB (the peak test
    in test_hostile_uploads.py): these are among them."""
    from tests.hostile.corpus import CEILING
    from tests.hostile.memory_probe import small_cases

    probed = {c.filename for c in small_cases()}
    assert {c.filename for c in CEILING} <= probed
    assert {"blank_lines.csv", "empty_cells.csv", "many_problems.csv"} <= probed
