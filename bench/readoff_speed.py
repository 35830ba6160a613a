"""/api/readoff over 50 sweeps × 32 points: median server time ≤ 20 ms (issue 3)."""

from __future__ import annotations

from typing import Any

from bench.common import Result, client_with_db, median_server_ms, synthetic_sweeps_csv


def run() -> list[Result]:
    client = client_with_db()
    upload = client.post(
        "/api/sweeps", files=[("files", ("bench.csv", synthetic_sweeps_csv(50, 32), "text/csv"))]
    )
    ids = [s["id"] for s in upload.json()["sweeps"]]
    pricing = client.post(
        "/api/pricing", json={"name": "bench", "kind": "rental", "usd_per_gpu_hour": 2.0}
    ).json()["id"]
    params = {
        "sweep": ids,
        "ttft_ms": 300,
        "tpot_ms": 30,
        "pricing": pricing,
        "interpolation": "linear",
    }

    def readoff() -> Any:
        response = client.get("/api/readoff", params=params)
        assert response.status_code == 200 and len(response.json()["results"]) == 50
        return response

    measured = median_server_ms(readoff, 30)
    # Baseline: the same app answering its cheapest database round trip, /healthz.
    baseline = median_server_ms(lambda: client.get("/healthz"), 30)
    return [Result("readoff 50×32 median", measured, "ms", 20.0, "/healthz", baseline)]
