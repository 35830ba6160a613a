"""Two `paretoscope serve` processes with two workers each, on one database, show the same data:
what one stores (points and columnar request samples) every worker of the other reads, and
what one deletes is gone from all of them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.settings import PROJECT_ROOT
from tests.databases import empty_postgres
from tests.helpers import free_port

PG_URL = os.environ.get("PARETOSCOPE_TEST_DATABASE_URL")
# Four server processes of two workers each: the machine of its own, in the serial pass.
pytestmark = pytest.mark.serial

POINTS = (
    b"sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,"
    b"output_tok_s\n"
    b"shared,H100,8,1,60,10.0,11.0,100,800\n"
    b"shared,H100,8,8,60,20.0,24.0,180,4000\n"
)
REQUESTS = b"sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n" + b"".join(
    f"shared,{c},{90 + i},{90 + i + 10 * c * 99},100,512,true\n".encode()
    for c in (1, 8)
    for i in range(40)
)


@pytest.fixture
def two_servers(request: pytest.FixtureRequest) -> Iterator[list[str]]:
    # Scale-out means one shared Postgres (SQLite serves one machine's processes only).
    if not PG_URL:
        pytest.skip("PARETOSCOPE_TEST_DATABASE_URL is not set")
    database_url = request.getfixturevalue("postgres_migrated")
    empty_postgres(database_url)
    env = {
        **os.environ,
        "PARETOSCOPE_DATABASE_URL": database_url,
        "PARETOSCOPE_SEED_ON_START": "false",
    }
    env.pop("PARETOSCOPE_WRITE_TOKEN", None)
    ports = [free_port(), free_port()]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(p), "--workers", "2"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for p in ports
    ]
    bases = [f"http://127.0.0.1:{p}" for p in ports]
    try:
        deadline = time.monotonic() + 90
        for base in bases:
            while True:
                try:
                    if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, f"{base} did not start"
                time.sleep(0.3)
        yield bases
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def _readoff(base: str, sweep_id: int) -> dict[str, Any]:
    response = httpx.get(
        f"{base}/api/readoff",
        params={"sweep": sweep_id, "mode": "requests", "ttft_ms": 200, "tpot_ms": 15},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_what_one_server_stores_or_deletes_every_worker_of_the_other_sees(
    two_servers: list[str],
) -> None:
    first, second = two_servers
    files = [
        ("files", ("points.csv", POINTS, "text/csv")),
        ("files", ("requests.csv", REQUESTS, "text/csv")),
    ]
    created = httpx.post(f"{first}/api/sweeps", files=files, timeout=60)
    assert created.status_code == 201, created.text
    sweep_id = created.json()["sweeps"][0]["id"]

    stored = httpx.get(f"{second}/api/sweeps/{sweep_id}", timeout=30).json()
    assert [p["request_samples"] for p in stored["points"]] == [40, 40]
    expected = _readoff(first, sweep_id)
    # Several requests, so both workers of the second server answer at least once (likely).
    answers = [_readoff(second, sweep_id) for _ in range(6)]
    assert all(a == expected for a in answers)
    [result] = expected["results"]
    assert result["meets_slo"] is True

    assert httpx.delete(f"{first}/api/sweeps/{sweep_id}", timeout=30).status_code in (200, 204)
    for _ in range(4):
        gone = httpx.get(f"{second}/api/readoff", params={"sweep": sweep_id}, timeout=30)
        assert gone.status_code == 404
