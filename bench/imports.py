"""Imports and the first read-off after a restart, each in a fresh subprocess so its memory is
its own; baselines are polars.read_csv of the same file in the same run.

- N-request per-request file stored (time; peak memory growth against the file's size)
- first per-request read-off of those samples in a new server process
- 100k canonical points stored
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl

from bench.common import Backend, Result, Scale, fresh_database, synthetic_sweeps_csv, unknown

TIMEOUT_S = 540

IMPORT = """
import json, os, resource, sys, time
from sqlalchemy import text
from app.store.db import make_engine, make_sessionmaker
from app.ingest import UploadFile
from app.services import uploads
url, names = sys.argv[1], sys.argv[2:]
session = make_sessionmaker(make_engine(url))()
session.execute(text("SELECT 1"))
before = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
start = time.perf_counter()
files = [UploadFile(os.path.basename(n), open(n, "rb").read()) for n in names]
saved = uploads.store(session, files, {})
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"s": elapsed, "growth_mb": (peak - before) / 2**20,
                  "ids": [s.sweep.id for s in saved]}))
"""

READOFF = """
import json, sys, time
from fastapi.testclient import TestClient
from app.main import create_app
from app.settings import Settings
url, sweep = sys.argv[1], int(sys.argv[2])
settings = Settings(database_url=url, seed_on_start=False, allowed_hosts=["testserver"])
client = TestClient(create_app(settings, migrate=False))
client.__enter__()
assert client.get("/healthz").status_code == 200
start = time.perf_counter()
response = client.get("/api/readoff", params={"sweep": sweep, "mode": "requests",
                                              "ttft_ms": 300, "tpot_ms": 30})
elapsed = time.perf_counter() - start
assert response.status_code == 200, response.text
print(json.dumps({"s": elapsed, "meets": response.json()["results"][0]["meets_slo"]}))
"""

READ_CSV = """
import json, os, resource, sys, time
import polars as pl
before = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
start = time.perf_counter()
frame = pl.read_csv(sys.argv[1])
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"s": elapsed, "growth_mb": (peak - before) / 2**20, "rows": frame.height}))
"""


def _run(code: str, *args: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def write_requests(folder: Path, requests: int, points: int) -> tuple[Path, Path]:
    rng = random.Random(11)
    points_csv = folder / "points.csv"
    with points_csv.open("w") as out:
        out.write("sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,output_tok_s\n")
        for c in range(1, points + 1):
            out.write(f"million,H100,8,{c},600,{10 + c:.1f},{1000 * c}\n")
    ttft = [round(rng.uniform(50, 900), 3) for _ in range(requests)]
    n = [rng.randint(1, 1024) for _ in range(requests)]
    frame = pl.DataFrame(
        {
            "sweep": pl.repeat("million", requests, eager=True),
            "concurrency": pl.int_range(0, requests, eager=True) % points + 1,
            "ttft_ms": ttft,
            "e2el_ms": [round(t + k * rng.uniform(8, 40), 3) for t, k in zip(ttft, n, strict=True)],
            "output_len": n,
            "input_len": pl.repeat(1024, requests, eager=True),
            "ok": (pl.int_range(0, requests, eager=True) % 199) != 0,
        }
    )
    failed = ~pl.col("ok")
    frame = frame.with_columns(
        *(pl.when(failed).then(None).otherwise(pl.col(c)).alias(c)
          for c in ("ttft_ms", "e2el_ms", "output_len"))
    )  # fmt: skip
    requests_csv = folder / "requests.csv"
    frame.write_csv(requests_csv)
    return points_csv, requests_csv


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="paretoscope-imports-"))
    points_csv, requests_csv = write_requests(folder, scale.requests, scale.request_points)
    canonical = folder / "canonical.csv"
    per_sweep = 32
    canonical.write_bytes(
        synthetic_sweeps_csv(max(1, scale.canonical_points // per_sweep), per_sweep)
    )
    base = _run(READ_CSV, str(requests_csv))
    base_points = _run(READ_CSV, str(canonical))
    file_mb = requests_csv.stat().st_size / 2**20
    label = f"{scale.requests:,}-request import"
    results: list[Result] = []
    for backend in found:
        if backend.url is None:
            results.append(unknown(label, backend, "s", "polars.read_csv", 5.0))
            continue
        url = fresh_database(backend, "imports")
        ours = _run(IMPORT, url, str(points_csv), str(requests_csv))
        sweep_id = ours["ids"][0]  # type: ignore[index]
        first = _run(READOFF, url, str(sweep_id))
        points = _run(IMPORT, url, str(canonical))
        results += [
            Result(label, backend.name, float(ours["s"]), "s",  # type: ignore[arg-type]
                   "polars.read_csv of the file", float(base["s"]), 5.0),  # type: ignore[arg-type]
            Result(f"{label}: peak memory growth", backend.name,
                   float(ours["growth_mb"]), "MB",  # type: ignore[arg-type]
                   "the file's size", file_mb, 3.0),
            Result(f"first per-request read-off of {scale.requests:,} samples after a restart",
                   backend.name, float(first["s"]), "s",  # type: ignore[arg-type]
                   "polars.read_csv of the file", float(base["s"]), 3.0),  # type: ignore[arg-type]
            Result(f"{scale.canonical_points:,} canonical points stored", backend.name,
                   float(points["s"]), "s",  # type: ignore[arg-type]
                   "polars.read_csv of the file", float(base_points["s"]), 15.0),  # type: ignore[arg-type]
        ]  # fmt: skip
    return results
