"""Uploads and the first read-off after a restart, as a browser's user waits for them (issue 34);
baselines are polars.read_csv of the same file in the same run, in a fresh subprocess each.

A real `paretoscope serve` (one worker, `PARETOSCOPE_MAX_UPLOAD_MB` raised to twice the largest
upload: the default 50 MB refuses the 2M-request file) on a fresh database takes the files as a
browser's form posts them (POST /api/sweeps, multipart), timed at the client (bench.wall_client:
a new connection, the body built before the clock starts, the answer read whole):
- the N-request per-request file (with its points file), after a small upload of the same kind
  (other content: the importers' code has run once, as in a server in use), ≤ 5× a `read_csv`
  after a small one; the server's peak memory growth during it ≤ 3× the file's size (its peak,
  VmHWM, reset through /proc/PID/clear_refs just before, above its resident size before);
- 100k canonical points, uploaded after it — ≤ 15×;
- then the server is restarted: the first per-request read-off of that file's samples is its
  first request (cold, ≤ 3× the warm `read_csv`, as issue 14 set it), the same read-off with a
  new SLO right after (warm, ≤ 3×); then another file of the same size and shape under other
  names is the server's first upload since its start (cold, ≤ 5× a process's first `read_csv`:
  polars imported, its reading code not yet run; its memory growth as info: it also maps the
  importers' code for the first time).

Each figure is the median of a few runs (`RUNS`), each into a fresh empty database (a second
upload of the same content would only find the first), its baselines run beside it, so load
from other jobs on a shared machine hits both alike. (Before issue 34 these were measured in
process, calling `uploads.store`; the HTTP figures include multipart parsing and the server's
own scheduling, which that left out.)
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import polars as pl

from bench.common import Backend, Result, Scale, fresh_database, synthetic_sweeps_csv, unknown
from bench.server import Server, running_server
from bench.wall_client import ACCEPT_JSON, fetch, post_files

TIMEOUT_S = 540
RUNS = 5  # median of this many (fewer when the scale's repeat is lower)

READ_CSV = """
import json, os, sys, time
import polars as pl
def status(key):
    line = next(l for l in open("/proc/self/status") if l.startswith(key + ":"))
    return int(line.split()[1]) * 1024
if sys.argv[2]:
    pl.read_csv(sys.argv[2])  # warm: a small CSV first
before = status("VmRSS")
start = time.perf_counter()
frame = pl.read_csv(sys.argv[1])
elapsed = time.perf_counter() - start
peak = status("VmHWM")
print(json.dumps({"s": elapsed, "growth_mb": (peak - before) / 2**20, "rows": frame.height}))
"""


# Peak memory is the process's own high-water mark (VmHWM). Not getrusage's ru_maxrss: Linux
# carries the parent's peak into a child across fork/exec, so a bench process that just wrote
# a 2M-row file made every child look ~120 MB bigger than it was.


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


def write_requests(
    folder: Path, requests: int, points: int, name: str = "million"
) -> tuple[Path, Path]:
    rng = random.Random(11)
    folder.mkdir(parents=True, exist_ok=True)
    points_csv = folder / "points.csv"
    with points_csv.open("w") as out:
        out.write("sweep,hardware,num_gpus,concurrency,duration_s,tpot_p50_ms,output_tok_s\n")
        for c in range(1, points + 1):
            out.write(f"{name},H100,8,{c},600,{10 + c:.1f},{1000 * c}\n")
    ttft = [round(rng.uniform(50, 900), 3) for _ in range(requests)]
    n = [rng.randint(1, 1024) for _ in range(requests)]
    frame = pl.DataFrame(
        {
            "sweep": pl.repeat(name, requests, eager=True),
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


def _upload(server: Server, *paths: Path) -> tuple[float, list[int]]:
    """Wall seconds of one multipart POST of these files, and the stored sweeps' ids."""
    files = [("files", p.name, p.read_bytes(), "text/csv") for p in paths]
    answer = post_files(server.url, "/api/sweeps", files)
    assert answer.status in (200, 201), answer.body[:500]
    return answer.seconds, [int(s["id"]) for s in answer.json()["sweeps"]]


def _http_run(
    url: str,
    files: tuple[Path, Path],
    second: tuple[Path, Path],
    canonical: Path,
    warm_up: tuple[Path, Path],
    note: Callable[[str, object], None],
) -> None:
    """One run through a real server (see the module's docstring), into the fresh `url`."""
    largest = max(sum(p.stat().st_size for p in pair) for pair in (files, second))
    # The default limit (50 MB) refuses the 2M-request file (~80 MB): a deployment that takes
    # such files raises it, as this does.
    env = {"PARETOSCOPE_MAX_UPLOAD_MB": str(max(50, 2 * largest // 2**20))}
    with running_server(url, workers=1, env=env, keep_log=False) as server:
        _upload(server, *warm_up)  # the importers' code run once, as in a server in use
        server.reset_peak()
        before = server.rss_bytes()
        seconds, ids = _upload(server, *files)
        note("warm", seconds)
        note("growth", (server.peak_bytes() - before) / 2**20)
        note("points", _upload(server, canonical)[0])
    params = {"sweep": ids[0], "mode": "requests", "ttft_ms": 300, "tpot_ms": 30}
    with running_server(url, workers=1, env=env, keep_log=False) as server:
        answer = fetch(server.url, "/api/readoff", params, accept=ACCEPT_JSON)
        assert answer.status == 200, answer.body[:300]
        note("first", answer.seconds)
        again = fetch(server.url, "/api/readoff", {**params, "ttft_ms": 301}, accept=ACCEPT_JSON)
        assert again.status == 200, again.body[:300]
        note("again", again.seconds)
        server.reset_peak()
        before = server.rss_bytes()
        note("cold", _upload(server, *second)[0])
        note("growth cold", (server.peak_bytes() - before) / 2**20)


def _recorder(samples: dict[str, list[float]]) -> Callable[[str, object], None]:
    def note(name: str, value: object) -> None:
        samples.setdefault(name, []).append(float(value))  # type: ignore[arg-type]

    return note


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="paretoscope-imports-"))
    try:
        return _measure(scale, found, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # ~100 MB of generated files


def _measure(scale: Scale, found: list[Backend], folder: Path) -> list[Result]:
    points_csv, requests_csv = write_requests(folder, scale.requests, scale.request_points)
    # The same size and shape under another name: a second upload a server has not seen.
    second = write_requests(folder / "second", scale.requests, scale.request_points, "million-b")
    canonical = folder / "canonical.csv"
    per_sweep = 32
    canonical.write_bytes(
        synthetic_sweeps_csv(max(1, scale.canonical_points // per_sweep), per_sweep)
    )
    # What each process handles first, so both sides are warm (see the module's docstring).
    warm_points, warm_requests = write_requests(folder / "warm", 5_000, 4, name="warm-up")
    warm_canonical = folder / "warm" / "canonical.csv"
    warm_sweeps = synthetic_sweeps_csv(3, per_sweep, seed=3)
    warm_canonical.write_bytes(warm_sweeps.replace(b"bench-", b"warm-"))
    runs = max(1, min(RUNS, scale.repeat))
    file_mb = requests_csv.stat().st_size / 2**20
    label = f"{scale.requests:,}-request upload through POST /api/sweeps"
    results: list[Result] = []
    for backend in found:
        if backend.url is None:
            results += [
                unknown(label, backend, "s", "polars.read_csv", 5.0),
                unknown(f"{label}: peak memory growth", backend, "MB", "file size", 3.0),
                unknown("first per-request read-off after a restart", backend, "s", "—", 3.0),
                unknown("canonical points uploaded", backend, "s", "polars.read_csv", 15.0),
            ]
            continue
        samples: dict[str, list[float]] = {}
        note = _recorder(samples)
        for _ in range(runs):
            note("base", _run(READ_CSV, str(requests_csv), str(warm_requests))["s"])
            # A process's first read_csv: beside the server's first upload since its start.
            note("base cold", _run(READ_CSV, str(requests_csv), "")["s"])
            note("base_points", _run(READ_CSV, str(canonical), str(warm_canonical))["s"])
            url = fresh_database(backend, "imports")
            warm_up = (warm_points, warm_requests)
            _http_run(url, (points_csv, requests_csv), second, canonical, warm_up, note)
        med = {name: statistics.median(values) for name, values in samples.items()}
        name, base = backend.name, med["base"]
        read_csv = "polars.read_csv of the file"
        results += [
            Result(f"{label}, after a small one", name, med["warm"], "s", read_csv, base, 5.0),
            Result(f"{label}: the server's peak memory growth", name, med["growth"], "MB",
                   "the file's size", file_mb, 3.0),
            Result(f"{label}, the server's first upload since its start", name, med["cold"],
                   "s", "a process's first polars.read_csv of it", med["base cold"], 5.0),
            Result("  its peak memory growth", name, med["growth cold"], "MB",
                   "the file's size", file_mb, 3.0, judged="none"),
            Result(f"first per-request read-off of {scale.requests:,} samples after a restart "
                   "(the server's first request)", name, med["first"], "s", read_csv, base, 3.0),
            Result("  the same read-off with a new SLO right after", name, med["again"],
                   "s", read_csv, base, 3.0),
            Result(f"{scale.canonical_points:,} canonical points through POST /api/sweeps",
                   name, med["points"], "s", read_csv, med["base_points"], 15.0),
        ]  # fmt: skip
    return results
