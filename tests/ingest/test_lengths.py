"""Measured mean ISL/OSL beside the configured ones: the import warning, the sweep page, its JSON.

The real SGLang online fixture is labelled random 1024/1024 (`random_input_len`,
`random_output_len`) but ran with `random_range_ratio` 0, so lengths were drawn from 1..1024 and
its requests averaged about 510/512 tokens.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.domain.lengths import LENGTH_TOLERANCE, check_lengths, measured_mean
from tests.conftest import FIXTURES

ONLINE = FIXTURES / "sglang" / "datacrunch_llama_3_3_70b_online_output.jsonl"


def random_rows() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in ONLINE.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["dataset_name"] == "random"]


def test_the_measured_mean_weights_each_point_by_its_requests() -> None:
    assert measured_mean([(500.0, 100), (1000.0, 300)]) == 875.0
    # A point without a request count: plain mean of the point means.
    assert measured_mean([(500.0, 100), (1000.0, None)]) == 750.0
    assert measured_mean([(None, 100)]) is None


def test_a_gap_within_10_percent_gives_no_note_and_beyond_it_a_signed_one() -> None:
    assert LENGTH_TOLERANCE == 0.10
    inside = check_lengths(1000, 100, [(1100.0, 91.0, 10)])
    assert (inside.measured_isl, inside.measured_osl, inside.note) == (1100.0, 91.0, None)
    outside = check_lengths(1000, 100, [(1101.0, 100.0, 10)])
    assert outside.note is not None
    assert outside.note.startswith("ISL configured 1,000, measured mean 1,101 (+10.1 %):")
    assert "OSL configured" not in outside.note
    unlabelled = check_lengths(None, None, [(510.0, 512.0, 300)])
    assert (unlabelled.measured_isl, unlabelled.note) == (510.0, None)


def test_the_sweep_page_and_its_json_show_the_measured_lengths_beside_1024_1024(
    client: TestClient,
) -> None:
    response = client.post(
        "/api/sweeps",
        files=[("files", (ONLINE.name, ONLINE.read_bytes(), "application/octet-stream"))],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    random, sharegpt = response.json()["sweeps"]
    rows = random_rows()
    completed = sum(r["completed"] for r in rows)
    isl = sum(r["total_input_tokens"] for r in rows) / completed
    osl = sum(r["total_output_tokens"] for r in rows) / completed

    data = client.get(f"/api/sweeps/{random['id']}").json()
    assert (data["isl"], data["osl"]) == (1024, 1024)
    assert data["measured_isl"] == pytest.approx(isl, rel=1e-12)
    assert data["measured_osl"] == pytest.approx(osl, rel=1e-12)
    assert data["length_note"].startswith(
        # 510.3 and 511.5 tokens: 3 significant digits, the gaps 50.2 % and 50.05 %.
        "ISL configured 1,024, measured mean 510 (−50.2 %); "
        "OSL configured 1,024, measured mean 512 (−50 %)"
    )
    assert data["length_note"] in data["notes"]  # the import warning was kept in the notes

    page = BeautifulSoup(client.get(f"/sweeps/{random['id']}").text, "html.parser")
    measured = page.select_one("#measured-lengths")
    assert measured is not None
    assert measured.text == "(measured mean 510/512)"
    note = page.select_one("#length-note")
    assert note is not None and note.text == data["length_note"]

    other = client.get(f"/api/sweeps/{sharegpt['id']}").json()
    assert other["isl"] is None and other["length_note"] is None
    assert other["measured_isl"] is not None  # measured, just nothing configured to compare
    page = BeautifulSoup(client.get(f"/sweeps/{sharegpt['id']}").text, "html.parser")
    assert page.select_one("#measured-lengths") is None
    assert page.select_one("#length-note") is None
