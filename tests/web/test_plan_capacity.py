"""The plan's capacity per replica is the read-off's own goodput × GPUs (issue 30 §5): in
tokens, the good requests' tokens ÷ duration, never good requests × every request's mean length."""

from __future__ import annotations

import math
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import FIXTURES
from tests.factories import post_files

# LLMPerf's Anyscale run (150 requests with their own lengths), stored as four GPUs.
LLMPERF = ("summary_anyscale_70b.json", "individual_anyscale_70b.json")
SLO = {
    "mode": "requests",
    "attainment": 0.9,
    "ttft_ms": 500,
    "ttft_percentile": "p99",
    "tpot_ms": 40,
    "tpot_percentile": "p50",
}


def upload_llmperf(client: TestClient) -> int:
    files = [(n, (FIXTURES / "llmperf" / n).read_bytes()) for n in LLMPERF]
    response = post_files(client, *files, hardware="H100", num_gpus=4)
    assert response.status_code == 201, response.text
    return int(response.json()["sweeps"][0]["id"])


def get(client: TestClient, path: str, **params: Any) -> dict[str, Any]:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return dict(response.json()["results"][0])


def test_capacity_in_output_tokens_is_the_readoffs_token_goodput_times_gpus(
    client: TestClient,
) -> None:
    sweep = upload_llmperf(client)
    readoff = get(client, "/api/readoff", sweep=sweep, points=True, **SLO)
    op_id = readoff["operating_point"]["point_id"]
    [op] = [p for p in readoff["points"] if p["point_id"] == op_id]
    assert op["attainment"] == 149 / 150  # below 100 %: one request is not good
    assert readoff["goodput_tok_s_per_gpu"] == 51.52489365400136
    plan = get(client, "/api/plan", sweep=sweep, output_tok_s=20612, **SLO)
    assert plan["goodput_tok_s_per_gpu"] == readoff["goodput_tok_s_per_gpu"]
    assert plan["goodput_per_replica"] == readoff["goodput_tok_s_per_gpu"] * 4  # 206.0996 tok/s
    # 20,612 ÷ 206.0996 = 100.0099 ⇒ 101 replicas; good requests × the mean output of all
    # requests (1.402806 req/s × 146.95 = 206.1377 tok/s) would have said 100.
    assert (plan["replicas"], plan["gpus"]) == (101, 404)
    assert plan["replicas"] == math.ceil(20612 / (readoff["goodput_tok_s_per_gpu"] * 4))
    mean_length = plan["goodput_requests_per_s_per_replica"] * plan["output_tokens_per_request"]
    assert math.ceil(20612 / mean_length) == 100


def test_capacity_in_tokens_a_day_is_the_total_basis_goodput_times_gpus_and_a_day(
    client: TestClient,
) -> None:
    sweep = upload_llmperf(client)
    total = get(client, "/api/readoff", sweep=sweep, basis="total", **SLO)
    assert total["goodput_tok_s_per_gpu"] == 244.4107844285394
    # On the total basis and, read at the same operating point, on the default output basis.
    for basis in ("total", "output"):
        plan = get(client, "/api/plan", sweep=sweep, tokens_per_day=2e9, basis=basis, **SLO)
        assert plan["operating_point"] == total["operating_point"]
        assert plan["goodput_per_replica"] == total["goodput_tok_s_per_gpu"] * 4 * 86_400
        assert plan["replicas"] == 24  # ⌈2·10⁹ ÷ 84,468,367⌉
