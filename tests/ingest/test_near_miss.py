"""A file no importer recognises is refused (or skipped beside results) saying what it nearly
is and what kept it out, not only "not a recognised result file"."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.ingest import IngestError, UploadFile, parse_upload
from tests.conftest import FIXTURES
from tests.factories import MINIMAL, post_files

VLLM = FIXTURES / "vllm" / "stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"
FORM = {"hardware": "H100", "num_gpus": 1}
SEMICOLONS = "its header reads as a canonical CSV delimited by semicolons: save it with commas"
COMMENT = (
    "it is JSON behind a comment (// or /* */), and JSON has no comments: delete the comment lines"
)


def refusal_of(name: str, data: bytes) -> str:
    with pytest.raises(IngestError) as caught:
        parse_upload([UploadFile(name, data)], FORM)
    [error] = caught.value.errors
    assert error.file == name
    return error.message


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        ("semi.csv", MINIMAL.replace(b",", b";"), SEMICOLONS),
        ("tabs.tsv", MINIMAL.replace(b",", b"\t"), SEMICOLONS.replace("semicolons", "tabs")),
        ("note.json", b"// vllm bench serve, run 1\n" + VLLM.read_bytes(), COMMENT),
        ("block.json", b"/* run 1\n   rate 1 */\n" + VLLM.read_bytes(), COMMENT),
        (
            "wide.csv",
            b"run," + b"x" * 100_000 + b"\n1,2\n",
            "its first line runs over 65,536 bytes: no header of a known format is that long",
        ),
        (
            "long.csv",
            b"run;" + b"y" * 19_996 + b"\n1;2\n",
            "its first line is 20,000 characters long: no header of a known format is that long",
        ),
    ],
)
def test_a_near_miss_says_what_the_file_nearly_is_and_why_it_did_not_match(
    name: str, data: bytes, why: str
) -> None:
    message = refusal_of(name, data)
    assert message.startswith(f"not a recognised result file: {why}; expected one of: ")


def test_a_file_near_nothing_keeps_the_plain_refusal() -> None:
    message = refusal_of("other.csv", b"a,b\n1,2\n")
    assert message.startswith("not a recognised result file; expected one of: canonical CSV, ")


def test_a_near_miss_beside_a_result_is_skipped_with_its_reason(client: TestClient) -> None:
    response = post_files(client, ("mini.csv", MINIMAL), ("semi.csv", MINIMAL.replace(b",", b";")))
    assert response.status_code == 201, response.text
    assert response.json()["skipped"] == [
        {"file": "semi.csv", "reason": f"not a result file ({SEMICOLONS}): skipped"}
    ]
