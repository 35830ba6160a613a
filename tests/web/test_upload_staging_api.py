"""/api/uploads: the upload page's JSON twin (stage once, preview with details, save)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import StagedUpload, Sweep
from tests.conftest import FIXTURES
from tests.factories import count

LLMPERF = sorted((FIXTURES / "llmperf").glob("*.json"))


def staged_upload(client: TestClient) -> dict[str, Any]:
    files = [("files", (p.name, p.read_bytes(), "application/json")) for p in LLMPERF]
    response = client.post("/api/uploads", files=files)
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_staging_answers_a_token_and_each_sweeps_details_from_its_files(
    client: TestClient, session: Session
) -> None:
    body = staged_upload(client)
    assert len(body["staging"]) == 43
    first, second = body["sweeps"]
    assert (first["index"], first["points"], first["request_samples"]) == (0, 1, 150)
    assert first["details"]["model"] == "meta-llama/Llama-2-70b-chat-hf"
    assert second["details"]["model"] == "together_ai/togethercomputer/llama-2-70b-chat"
    assert first["details"]["isl"] == 550
    assert first["missing"] == second["missing"] == ["hardware", "num_gpus"]
    assert count(session, Sweep) == 0


def test_preview_and_save_send_only_details_and_each_sweep_keeps_its_own(
    client: TestClient, session: Session
) -> None:
    token = staged_upload(client)["staging"]
    details = {"details": {"hardware": "H100"}, "sweeps": [{"num_gpus": 8}, {"num_gpus": 2}]}
    preview = client.post(f"/api/uploads/{token}/preview", json=details)
    assert preview.status_code == 200
    assert preview.request.headers["content-type"] == "application/json"
    assert [s["missing"] for s in preview.json()["sweeps"]] == [[], []]
    saved = client.post(f"/api/uploads/{token}", json=details)
    assert saved.status_code == 201, saved.text
    assert saved.request.headers["content-type"] == "application/json"
    body = saved.json()
    ids = [s["id"] for s in body["sweeps"]]
    assert [s["points"] for s in body["sweeps"]] == [1, 1]
    assert body["explore_url"] == f"/?sweep={ids[0]}&sweep={ids[1]}&picked=1"
    stored = {s.id: (s.hardware, s.num_gpus) for s in session.scalars(select(Sweep))}
    assert stored == {ids[0]: ("H100", 8), ids[1]: ("H100", 2)}
    assert session.scalars(select(StagedUpload)).all() == []
    assert client.post(f"/api/uploads/{token}", json=details).status_code == 410


def test_a_missing_or_refused_detail_is_a_422_naming_the_sweep_and_the_api_field(
    client: TestClient, session: Session
) -> None:
    token = staged_upload(client)["staging"]
    bad = client.post(f"/api/uploads/{token}/preview", json={"sweeps": [{"num_gpus": "x"}]})
    assert bad.status_code == 422
    [error] = bad.json()["errors"]
    assert (error["field"], error["message"]) == ("num_gpus", "'x' is not a whole number")
    missing = client.post(f"/api/uploads/{token}", json={"details": {"hardware": "H100"}})
    assert missing.status_code == 422
    assert [e["message"] for e in missing.json()["errors"]] == [
        "the file does not say how many GPUs; give num_gpus"
    ] * 2
    unknown = client.post(f"/api/uploads/{token}", json={"details": {"gpus": 8}})
    assert unknown.status_code == 422
    assert "unknown field 'gpus'" in unknown.json()["detail"]
    assert count(session, Sweep) == 0
    assert len(session.scalars(select(StagedUpload)).all()) == 1  # still staged for a retry


def test_discarding_drops_the_staged_files(client: TestClient, session: Session) -> None:
    token = staged_upload(client)["staging"]
    assert client.delete(f"/api/uploads/{token}").status_code == 204
    assert session.scalars(select(StagedUpload)).all() == []
    assert client.post(f"/api/uploads/{token}/preview", json={}).status_code == 410


def test_staging_needs_the_bearer_token_when_one_is_set(make_client: Any) -> None:
    client = make_client(write_token="s3cret")
    files = [("files", ("x.json", LLMPERF[0].read_bytes(), "application/json"))]
    assert client.post("/api/uploads", files=files).status_code == 401
    assert client.post("/api/uploads/abcdefghijklmnopqrstuvwxyz", json={}).status_code == 401


def test_a_sweep_marked_disaggregated_is_saved_only_with_its_prefill_and_decode_gpus(
    client: TestClient, session: Session
) -> None:
    token = staged_upload(client)["staging"]
    marked = {"details": {"hardware": "H100", "num_gpus": 8}, "disaggregated": [1]}
    preview = client.post(f"/api/uploads/{token}/preview", json=marked).json()
    assert [s["missing"] for s in preview["sweeps"]] == [
        [],
        ["num_prefill_gpus", "num_decode_gpus"],
    ]
    refused = client.post(f"/api/uploads/{token}", json=marked)
    assert refused.status_code == 422
    errors = refused.json()["errors"]
    assert [(e["file"].split(" (")[0], e["field"]) for e in errors] == [
        ("sweep 2", "num_prefill_gpus"),
        ("sweep 2", "num_decode_gpus"),
    ]
    assert errors[0]["message"] == "the file does not say its prefill GPUs; give num_prefill_gpus"
    assert count(session, Sweep) == 0
    split = {"sweeps": [{}, {"num_prefill_gpus": 2, "num_decode_gpus": 6}]}
    saved = client.post(f"/api/uploads/{token}", json=marked | split)
    assert saved.status_code == 201, saved.text
    stored = [(s.num_prefill_gpus, s.num_decode_gpus) for s in session.scalars(select(Sweep))]
    assert sorted(stored, key=str) == [(2, 6), (None, None)]
    bad = client.post(f"/api/uploads/{token}/preview", json={"disaggregated": [-1]})
    assert bad.status_code == 422


STELLALEE = sorted((FIXTURES / "vllm").glob("stellalee_*.json"))  # four rates and rate inf
VLLM_BASE = "Qwen2.5-Coder-7B-Instruct · vllm bench serve · "
H100_1 = {"details": {"hardware": "H100", "num_gpus": 1}}


def staged_vllm(client: TestClient, **form: str) -> dict[str, Any]:
    files = [("files", (f"vllm/{p.name}", p.read_bytes(), "application/json")) for p in STELLALEE]
    response = client.post("/api/uploads", files=files, data=form)
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_staged_files_of_one_configuration_join_one_sweep_unless_kept_apart(
    client: TestClient, session: Session
) -> None:
    joined = staged_vllm(client)
    assert joined["keep_apart"] is False
    assert [(s["name"], s["points"]) for s in joined["sweeps"]] == [
        (VLLM_BASE + "rate sweep 2026-07-07", 4),
        (VLLM_BASE + "baseline_burstgpt", 1),
    ]
    apart = staged_vllm(client, keep_apart="true")
    assert apart["keep_apart"] is True
    assert [(s["name"], s["points"]) for s in apart["sweeps"]] == [
        *((f"{VLLM_BASE}base_r{rate}_burstgpt", 1) for rate in (1, 2, 4, 8)),
        (VLLM_BASE + "baseline_burstgpt", 1),
    ]
    assert [s["source_file"] for s in apart["sweeps"]] == [f"vllm/{p.name}" for p in STELLALEE]
    # The preview and the save of files staged apart keep them apart without being told again.
    token = apart["staging"]
    preview = client.post(f"/api/uploads/{token}/preview", json=H100_1).json()
    assert (preview["keep_apart"], len(preview["sweeps"])) == (True, 5)
    assert all(s["missing"] == [] for s in preview["sweeps"])
    saved = client.post(f"/api/uploads/{token}", json=H100_1)
    assert saved.status_code == 201, saved.text
    assert [(s["points"], s["created"]) for s in saved.json()["sweeps"]] == [(1, True)] * 5
    assert count(session, Sweep) == 5


def test_staged_uploads_kept_apart_store_what_api_sweeps_stores_kept_apart(
    client: TestClient, session: Session
) -> None:
    token = staged_vllm(client, keep_apart="1")["staging"]
    staged = client.post(f"/api/uploads/{token}", json=H100_1).json()["sweeps"]
    files = [("files", (f"vllm/{p.name}", p.read_bytes(), "application/json")) for p in STELLALEE]
    form = {"keep_apart": "true", "hardware": "H100", "num_gpus": "1"}
    direct = client.post("/api/sweeps", files=files, data=form)
    assert direct.status_code == 200  # the same five sweeps, stored before
    assert [(s["id"], s["name"], s["created"]) for s in direct.json()["sweeps"]] == [
        (s["id"], s["name"], False) for s in staged
    ]
    hashes = session.scalars(select(Sweep.content_hash)).all()
    assert len(set(hashes)) == 5


def test_a_keep_apart_that_is_not_true_or_false_is_refused_naming_it(
    client: TestClient, session: Session
) -> None:
    files = [("files", (p.name, p.read_bytes(), "application/json")) for p in STELLALEE]
    response = client.post("/api/uploads", files=files, data={"keep_apart": "maybe"})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "file": "(form)",
            "row": None,
            "column": None,
            "field": "keep_apart",
            "message": "'maybe' is not true or false",
        }
    ]
    assert session.scalars(select(StagedUpload)).all() == []
