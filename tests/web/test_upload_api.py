"""POST /api/sweeps: canonical CSV in, exactly its rows stored, bad input refused whole."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.columns import POINT_COLUMN_NAMES
from app.store.models import Sweep
from tests.factories import (
    FULL_HEADER,
    MINIMAL,
    count,
    full_row,
    point_count,
    post_files,
    sample_count,
    to_csv,
)
from tests.helpers import upload


def test_every_canonical_column_round_trips_through_the_api(client: TestClient) -> None:
    rows = [full_row(), full_row(concurrency=32, request_rate=12.5, tpot_p50_ms=31.0625)]
    response = post_files(client, ("sweep.csv", to_csv(rows, FULL_HEADER)))
    assert response.status_code == 201, response.text
    [created] = response.json()["sweeps"]
    assert created["name"] == "h100-vllm-70b"
    assert created["points"] == 2
    assert created["created"] is True

    stored = client.get(f"/api/sweeps/{created['id']}").json()
    for key in ("hardware", "model", "engine", "engine_version", "precision", "spec_decode"):
        assert stored[key] == rows[0][key]
    assert stored["num_gpus"] == 8
    assert (stored["isl"], stored["osl"]) == (1024, 1024)
    assert (stored["num_prefill_gpus"], stored["num_decode_gpus"]) == (4, 4)
    assert stored["measured_at"] == "2026-11-02"
    # The user's notes, then the import warning: the rows' measured lengths are far from 1024.
    notes, warning = stored["notes"].split("\n")
    assert notes == "lab run, node 7"
    assert warning == stored["length_note"]
    for sent, got in zip(rows, stored["points"], strict=True):
        for name in POINT_COLUMN_NAMES:
            expected = sent[name]
            if name == "request_rate" and expected == "inf":
                assert got[name] == "inf"
            elif name == "goodput_slo":
                assert got[name] == expected
            else:
                assert got[name] == pytest.approx(float(expected), rel=0, abs=0), name


def test_missing_optional_values_are_stored_as_missing_not_zero(
    client: TestClient, session: Session
) -> None:
    response = post_files(client, ("mini.csv", MINIMAL))
    assert response.status_code == 201
    sweep_id = response.json()["sweeps"][0]["id"]
    point = client.get(f"/api/sweeps/{sweep_id}").json()["points"][0]
    assert point["ttft_p90_ms"] is None
    assert point["total_tok_s"] is None
    assert point["request_rate"] is None
    assert point["tpot_p50_ms"] == 10.0
    assert point_count(session) == 2


def test_uploading_the_same_content_again_answers_with_the_existing_sweep(
    client: TestClient, session: Session
) -> None:
    first = post_files(client, ("mini.csv", MINIMAL)).json()["sweeps"][0]
    again = post_files(client, ("renamed.csv", MINIMAL))
    assert again.status_code == 200
    [second] = again.json()["sweeps"]
    assert second == {**first, "created": False}
    assert count(session, Sweep) == 1
    assert point_count(session) == 2


def test_one_file_may_hold_several_sweeps(client: TestClient) -> None:
    data = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
        b"a,H100,8,1,10,100\nb,H200,8,1,9,110\na,H100,8,2,11,190\n"
    )
    sweeps = post_files(client, ("two.csv", data)).json()["sweeps"]
    assert [(s["name"], s["points"]) for s in sweeps] == [("a", 2), ("b", 1)]


def test_form_fields_fill_what_the_file_leaves_out(client: TestClient) -> None:
    data = b"concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n8,14,700\n"
    response = post_files(
        client, ("bare.csv", data), sweep="bare", hardware="B200", num_gpus=4, model="m", isl=1024
    )
    assert response.status_code == 201, response.text
    stored = client.get(f"/api/sweeps/{response.json()['sweeps'][0]['id']}").json()
    assert (stored["name"], stored["hardware"], stored["num_gpus"]) == ("bare", "B200", 4)
    assert (stored["model"], stored["isl"]) == ("m", 1024)


def test_per_request_samples_attach_to_their_points(client: TestClient, session: Session) -> None:
    requests = (
        b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n"
        b"mini,1,120,3090,100,512,true\nmini,1,,,,512,false\nmini,4,190,190,1,512,true\n"
    )
    response = post_files(client, ("mini.csv", MINIMAL), ("mini.requests.csv", requests))
    assert response.status_code == 201, response.text
    points = client.get(f"/api/sweeps/{response.json()['sweeps'][0]['id']}").json()["points"]
    assert [p["request_samples"] for p in points] == [2, 1]
    assert sample_count(session) == 3


BAD_UPLOADS = [
    pytest.param(
        b"sweep,hardware,concurrency,tpot_p50_ms,output_tok_s\nx,H100,1,10,100\n",
        ["bad.csv", "row 1", "num_gpus"],
        id="missing-required-column",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,ten,100\n",
        ["bad.csv", "row 2", "tpot_p50_ms", "'ten' is not a number"],
        id="unparseable-number",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,-3,100\n",
        ["row 2", "tpot_p50_ms", "negative"],
        id="negative-latency",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,5,inf\n",
        ["row 2", "output_tok_s", "finite"],
        id="non-finite-throughput",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,nan,10\n",
        ["row 2", "tpot_p50_ms", "finite"],
        id="nan-latency",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p90_ms,e2el_p90_ms,output_tok_s\n"
        b"x,H100,8,1,5,10,20,100\nx,H100,8,2,5,900,800,100\n",
        ["row 3", "ttft_p90_ms", "above E2EL"],
        id="ttft-above-e2el",
    ),
    pytest.param(b"", ["bad.csv", "empty"], id="empty-file"),
    pytest.param(b"   \n\n", ["bad.csv", "empty"], id="blank-file"),
    pytest.param(
        "sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nGPU\u00e9,H100,8,1,5,1\n".encode(
            "latin-1"
        ),
        ["bad.csv", "not UTF-8", "row 2"],
        id="not-utf8",
    ),
    pytest.param(
        b'{"completed": 10, "duration": 3.5}',
        ["bad.csv", "not a recognised result file"],
        id="json",
    ),
    pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00", ["bad.csv", "binary"], id="binary"),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,5,1,7,7\n",
        ["bad.csv", "not a readable CSV"],
        id="ragged-rows",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,output_tok_s\nx,H100,8,1,100\n",
        ["bad.csv", "TPOT"],
        id="no-tpot-statistic",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,tpot_p50_ms,output_tok_s\nx,H100,8,5,100\n",
        ["bad.csv", "concurrency", "request_rate"],
        id="no-load-column",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,2.5,1,5,100\n",
        ["row 2", "num_gpus", "whole number"],
        id="fractional-gpu-count",
    ),
    pytest.param(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,8,1,5,100\n"
        b"x,H200,8,2,6,150\n",
        ["row 3", "hardware", "'H100'"],
        id="conflicting-sweep-metadata",
    ),
]


@pytest.mark.parametrize(("data", "expected"), BAD_UPLOADS)
def test_bad_input_is_refused_with_file_row_and_column_and_stores_nothing(
    client: TestClient, session: Session, data: bytes, expected: list[str]
) -> None:
    response = post_files(client, ("bad.csv", data))
    assert 400 <= response.status_code < 500
    detail = response.json()["detail"]
    for fragment in expected:
        assert fragment in detail
    assert count(session, Sweep) == 0
    assert point_count(session) == 0


def test_one_bad_file_refuses_the_whole_upload(client: TestClient, session: Session) -> None:
    bad = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\ny,H100,8,1,5,oops\n"
    response = post_files(client, ("good.csv", MINIMAL), ("bad.csv", bad))
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"file": "bad.csv", "row": 2, "column": "output_tok_s", "message": "'oops' is not a number"}
    ]
    assert count(session, Sweep) == 0


def test_samples_for_a_sweep_not_in_the_upload_are_refused(
    client: TestClient, session: Session
) -> None:
    requests = b"sweep,concurrency,ttft_ms,e2el_ms,output_len,ok\nother,1,1,2,3,true\n"
    response = post_files(client, ("mini.csv", MINIMAL), ("r.csv", requests))
    assert response.status_code == 422
    assert "r.csv, row 2, column 'sweep': no sweep named 'other'" in response.json()["detail"]
    assert count(session, Sweep) == 0


def test_a_bad_form_field_names_the_field(client: TestClient, session: Session) -> None:
    data = b"sweep,hardware,concurrency,tpot_p50_ms,output_tok_s\nx,H100,1,10,100\n"
    response = post_files(client, ("f.csv", data), num_gpus="eight")
    assert response.status_code == 422
    # Named as the API spells the field.
    assert "num_gpus: 'eight' is not a whole number" in response.json()["detail"]
    [error] = response.json()["errors"]
    assert (error["field"], error["message"]) == ("num_gpus", "'eight' is not a whole number")
    assert count(session, Sweep) == 0


def test_an_upload_over_the_size_limit_is_refused(make_client, session: Session) -> None:  # type: ignore[no-untyped-def]
    client = make_client(max_upload_mb=0.0001)
    response = post_files(client, ("big.csv", MINIMAL * 10))
    assert response.status_code == 413
    assert "big.csv" in response.json()["detail"]
    assert count(session, Sweep) == 0


def test_more_files_than_a_form_may_carry_are_refused_with_the_way_round(
    client: TestClient, session: Session
) -> None:
    files = [(f"r{k}.csv", MINIMAL) for k in range(1001)]
    response = post_files(client, *files)
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "Too many files. Maximum number of files is 1000. "
        "Put the files in one .zip or .tar.gz and upload that instead."
    )
    assert count(session, Sweep) == 0


def test_writes_need_the_bearer_token_when_one_is_set(make_client, session: Session) -> None:  # type: ignore[no-untyped-def]
    client = make_client(write_token="s3cret")
    assert post_files(client, ("mini.csv", MINIMAL)).status_code == 401
    assert count(session, Sweep) == 0
    client.headers["Authorization"] = "Bearer s3cret"
    assert post_files(client, ("mini.csv", MINIMAL)).status_code == 201
    sweep_id = client.get("/api/sweeps").json()["sweeps"][0]["id"]
    del client.headers["Authorization"]
    assert client.delete(f"/api/sweeps/{sweep_id}").status_code == 401
    assert client.patch(f"/api/sweeps/{sweep_id}", json={"name": "x"}).status_code == 401
    assert count(session, Sweep) == 1


def test_the_served_template_is_itself_a_valid_upload(client: TestClient) -> None:
    template = client.get("/api/templates/sweep.csv")
    assert template.headers["content-type"].startswith("text/csv")
    requests = client.get("/api/templates/requests.csv").content
    response = post_files(client, ("sweep.csv", template.content), ("requests.csv", requests))
    assert response.status_code == 201, response.text
    assert response.json()["sweeps"][0]["name"] == "my-sweep"


def test_a_sweep_marked_disaggregated_needs_its_split_from_the_file_or_the_form(
    client: TestClient, session: Session
) -> None:
    data = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nx,H100,16,1,10,100\n"
    refused = post_files(client, ("f.csv", data), disaggregated="true", num_prefill_gpus=8)
    assert refused.status_code == 422
    [error] = refused.json()["errors"]
    assert (error["field"], error["message"]) == (
        "num_decode_gpus",
        "the file does not say its decode GPUs; give num_decode_gpus",
    )
    assert error["file"] == "sweep 1 (f.csv)"
    assert count(session, Sweep) == 0
    bad = post_files(client, ("f.csv", data), disaggregated="maybe")
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["field"] == "disaggregated"
    assert "disaggregated: 'maybe' is not true or false" in bad.json()["detail"]
    split = {"num_prefill_gpus": 8, "num_decode_gpus": 8}
    stored = upload(client, ("f.csv", data), disaggregated="true", **split)
    detail = client.get(f"/api/sweeps/{stored[0]['id']}").json()
    assert (detail["num_prefill_gpus"], detail["num_decode_gpus"], detail["split"]) == (
        8,
        8,
        "8P + 8D",
    )
    # Not marked (or marked false), a sweep without a split is stored as aggregated.
    other = data.replace(b"x,", b"y,")
    assert upload(client, ("g.csv", other), disaggregated="false")[0]["name"] == "y"
