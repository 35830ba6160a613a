"""A 1,000,000-request per-request file imports in ≤ 10 s with peak memory ≤ 1.5 GB (issue 4).

Each side runs in a fresh subprocess so its peak RSS is its own; the baseline is pandas reading
the same file in the same run.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import Result

REQUESTS = 1_000_000
POINTS = 20


def write_files(folder: Path) -> tuple[Path, Path]:
    rng = random.Random(11)
    points = folder / "points.csv"
    requests = folder / "requests.csv"
    with points.open("w") as out:
        out.write("sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,output_tok_s\n")
        for c in range(1, POINTS + 1):
            out.write(f"million,H100,8,{c},600,{10 + c:.1f},{1000 * c}\n")
    with requests.open("w") as out:
        out.write("sweep,concurrency,ttft_ms,e2el_ms,output_len,input_len,ok\n")
        for i in range(REQUESTS):
            c = i % POINTS + 1
            if i % 199 == 0:
                out.write(f"million,{c},,,,1024,false\n")
                continue
            ttft = rng.uniform(50, 900)
            n = rng.randint(1, 1024)
            out.write(f"million,{c},{ttft:.3f},{ttft + n * rng.uniform(8, 40):.3f},{n},1024,true\n")
    return points, requests


IMPORT = """
import json, resource, sys, time
from app.store.db import make_engine, make_sessionmaker
from app.ingest import UploadFile
from app.store.migrate import upgrade_to_head
from app.services import uploads
url, points, requests = sys.argv[1:4]
upgrade_to_head(url)
session = make_sessionmaker(make_engine(url))()
start = time.perf_counter()
files = [UploadFile("points.csv", open(points, "rb").read()),
         UploadFile("requests.csv", open(requests, "rb").read())]
saved = uploads.store(session, files, {})
elapsed = time.perf_counter() - start
print(json.dumps({"s": elapsed, "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "created": saved[0].created}))
"""

PANDAS = """
import json, resource, sys, time
import pandas as pd
start = time.perf_counter()
frame = pd.read_csv(sys.argv[1])
elapsed = time.perf_counter() - start
print(json.dumps({"s": elapsed, "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rows": len(frame)}))
"""


def _run(code: str, *args: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def run() -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="paretoscope-import-"))
    points, requests = write_files(folder)
    ours = _run(IMPORT, f"sqlite:///{folder / 'import.db'}", str(points), str(requests))
    pandas = _run(PANDAS, str(requests))
    return [
        Result("import 1M requests (SQLite)", ours["s"], "s", 10.0, "pandas.read_csv", pandas["s"]),
        Result("import 1M requests peak RSS", ours["mb"], "MB", 1536.0, "pandas.read_csv",
               pandas["mb"]),
    ]  # fmt: skip
