"""Explore HTML plus figure data for 20 sweeps: ≤ 150 KB (issue 3); baseline the points' JSON."""

from __future__ import annotations

from bench.common import Result, client_with_db, synthetic_sweeps_csv


def run() -> list[Result]:
    client = client_with_db()
    upload = client.post(
        "/api/sweeps", files=[("files", ("bench.csv", synthetic_sweeps_csv(20, 16), "text/csv"))]
    )
    ids = [s["id"] for s in upload.json()["sweeps"]]
    page = client.get("/", params={"sweep": ids, "picked": 1, "tpot_ms": 30, "ttft_ms": 300})
    assert page.status_code == 200
    size_kb = len(page.content) / 1024
    raw_kb = sum(len(client.get(f"/api/sweeps/{i}").content) for i in ids) / 1024
    return [Result("explore page, 20 sweeps", size_kb, "KB", 150.0, "sweeps JSON", raw_kb)]
