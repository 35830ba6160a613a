"""vLLM `bench serve`'s speculative-decoding results (issue 37): a real vLLM result with the
`spec_decode_*` keys serve.py writes added, read into the point's covariates, and Compare and
check warning when two such runs' acceptance rates differ by more than 10 % relative."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.ingest.tools._vllm_spec import spec_decode_covariates
from tests.conftest import FIXTURES
from tests.helpers import upload_id

VLLM = FIXTURES / "vllm" / "stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"


def _with_spec_decode(tmp_path: Path, name: str, accepted: int) -> tuple[str, bytes]:
    """The fixture with serve.py's spec_decode_* keys: 250 drafts of 4 tokens, `accepted` of
    the 1,000 draft tokens accepted (the rate a percentage, the length 1 + accepted ÷ drafts)."""
    doc = json.loads(VLLM.read_text())
    doc |= {
        "spec_decode_num_drafts": 250,
        "spec_decode_draft_tokens": 1000,
        "spec_decode_accepted_tokens": accepted,
        "spec_decode_acceptance_rate": accepted / 1000 * 100,
        "spec_decode_acceptance_length": 1 + accepted / 250,
        "spec_decode_per_position_acceptance_rates": [0.8, 0.6, 0.4, 0.2],
    }
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path.name, path.read_bytes()


def test_vllm_acceptance_rate_and_length_are_read_and_compare_and_check_warn(
    client: TestClient, tmp_path: Path
) -> None:
    fields = {"hardware": "H100", "num_gpus": 1, "spec_decode": "eagle"}
    high = upload_id(client, _with_spec_decode(tmp_path, "high", 600), sweep="high", **fields)
    low = upload_id(client, _with_spec_decode(tmp_path, "low", 450), sweep="low", **fields)
    [point] = client.get(f"/api/sweeps/{high}").json()["points"]
    # 600 of 1,000 draft tokens; 1 + 600 / 250 tokens per step. serve.py's keys stay as written.
    assert point["extra"]["spec_acceptance_rate"] == 0.6
    assert point["extra"]["spec_acceptance_length"] == 3.4
    assert point["extra"]["spec_decode_acceptance_rate"] == 60.0
    # 45 % vs 60 %: 25 % relative, beyond the 10 % at which both warn; high is the baseline.
    pair = client.get(f"/api/compare?sweep={high}&sweep={low}&picked=1").json()["pairs"][0]
    [caveat] = pair["caveats"]
    assert caveat["kind"] == "acceptance"
    assert caveat["text"].startswith("Acceptance rates differ by 25% relative (45% vs 60%)")
    assert "the speed-up depends on the data" in caveat["text"]
    check = client.post(
        "/api/check", json={"candidate": str(low), "baseline": str(high), "percentile": "p50"}
    ).json()
    assert [c["kind"] for c in check["caveats"]] == ["acceptance"]
    assert check["caveats"][0]["text"] == caveat["text"]


def test_vllm_spec_decode_keys_become_covariates_only_when_they_hold_numbers_in_range() -> None:
    # The counts win over the rounded percentage; the percentage alone is read ÷ 100.
    counted = {"spec_decode_draft_tokens": 3, "spec_decode_accepted_tokens": 2}
    assert spec_decode_covariates(counted | {"spec_decode_acceptance_rate": 66.7}) == {
        "spec_acceptance_rate": pytest.approx(2 / 3, rel=1e-15)
    }
    assert spec_decode_covariates({"spec_decode_acceptance_rate": "45.5"}) == {
        "spec_acceptance_rate": 0.455
    }
    # No drafts, a percentage beyond 100, a length below 1 or text: not covariates.
    odd = {"spec_decode_draft_tokens": 0, "spec_decode_accepted_tokens": 0}
    odd |= {"spec_decode_acceptance_rate": 140.0, "spec_decode_acceptance_length": 0.5}
    assert spec_decode_covariates(odd) == {}
    assert spec_decode_covariates({"spec_decode_acceptance_length": "n/a"}) == {}
