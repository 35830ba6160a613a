"""The upload preview suggests the GPU count a folder records (issue 47 item 9): the GPU field
is filled from `tp8` in the file name, the preview says where it came from, and saving without
typing stores it."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import Hardware, Sweep
from tests.conftest import FIXTURES
from tests.helpers import soup
from tests.web.test_upload_staging import details_form

QPS1 = FIXTURES / "vllm" / "stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"
HINT = (
    "GPUs: 4 suggested by `--tensor-parallel-size 4` in qwen/serve.commands (the result file "
    "does not say how many GPUs served it): check it before saving"
)


def staged_page(client: TestClient, files: list[tuple[str, bytes]]) -> object:
    multipart = [("files", (name, data, "application/octet-stream")) for name, data in files]
    response = client.post("/upload/stage", files=multipart)
    assert response.status_code == 200, response.text
    return soup(response)


def test_the_preview_fills_the_gpus_from_tp8_in_the_file_name_and_says_so(
    hx_client: TestClient, session: Session
) -> None:
    session.add(Hardware(key="H100", name="NVIDIA H100 SXM"))
    session.commit()
    page = staged_page(hx_client, [("qwen-h100-tp8/rate1_tp8.json", QPS1.read_bytes())])
    field = page.select_one("#s0-num_gpus")  # type: ignore[attr-defined]
    assert field is not None and field["value"] == "8"
    notes = [p.get_text() for p in page.select("#sweep-0 .warning")]  # type: ignore[attr-defined]
    assert any(n.startswith("GPUs: 8 suggested by `tp8` in the file name") for n in notes)
    fields = details_form(page)  # type: ignore[arg-type]
    fields["s0.hardware"] = "H100"
    saved = hx_client.post("/upload/confirm", data=fields)
    assert saved.status_code == 200, saved.text
    [sweep] = session.scalars(select(Sweep)).all()
    assert (sweep.hardware, sweep.num_gpus) == ("H100", 8)


def test_the_api_stores_the_count_a_serve_command_gives_with_the_note(
    client: TestClient, session: Session
) -> None:
    files = [
        ("files", ("qwen/" + QPS1.name, QPS1.read_bytes(), "application/json")),
        (
            "files",
            (
                "qwen/serve.commands",
                b"vllm serve Qwen/Qwen2.5-Coder-7B-Instruct --tensor-parallel-size 4\n",
                "text/plain",
            ),
        ),
    ]
    response = client.post("/api/sweeps", files=files, data={"hardware": "H100X"})
    assert response.status_code == 201, response.text
    [sweep] = session.scalars(select(Sweep)).all()
    assert sweep.num_gpus == 4
    assert HINT in (sweep.notes or "")
