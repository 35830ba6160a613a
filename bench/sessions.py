"""Speed at agentic scale (issue 49): a multi-turn canonical request file of S sessions × 20
turns (1,000,000 requests at the top: 50,000 sessions) uploaded through HTTP, then its session
read-off, on each database, at growing sizes.

A real `paretoscope serve` (one worker, `PARETOSCOPE_MAX_UPLOAD_MB` raised above the file) on a
fresh database, timed at the client (bench.wall_client), as bench/imports.py does:
- the upload (points file with `scenario=agentic-coding`, and the requests file with
  `session_id` and `turn_index`) through POST /api/sweeps after a small upload of the same kind
  (warm importers) ≤ 5× `polars.read_csv` of the requests file in a warm process;
- then the server restarts: the first /api/readoff of the sweep (cold: its first request) with
  sessions, turns and agents read off every load level, and the same with a new SLO right after
  (warm), each ≤ 3× the same session attainment computed by polars in a warm process — the file
  read with `read_csv`, then TTFT per turn against the limit, grouped by load and session, the
  whole sessions counted met or missed (the read-off also draws its frontier, operating point,
  intervals and TTFT by turn: the baseline is the least any answer must do, from a file).
Beside the upload, to read it by (judged by nothing): a file of the same kind with a few
requests (`FLOOR_REQUESTS`), uploaded to the same server right after: what any upload costs,
whatever its size (HTTP, the points file, the transaction's queries), a large share of the
upload at the smaller size.
Each figure is the median of five runs (`RUNS`) at a million requests and of the scale's
`repeat` (seven) below, where a run takes seconds and one slow or fast run moved the ratio by
a fifth: each run into a fresh database, its baselines run beside it in fresh subprocesses.
Every run checks what it timed: the upload answered 201 with the sweep created (not found
stored already), the database then holds as many request samples of that sweep as the file
has rows, and `read_csv` read that many rows too (`stored_check`).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

from bench.common import Backend, Result, Scale, fresh_database, unknown
from bench.imports import READ_CSV, _recorder, _run, _upload
from bench.server import Server, running_server
from bench.wall_client import ACCEPT_JSON, fetch, post_files

RUNS = 5  # a single run on a shared two-core machine moves by a quarter either way
LARGE = 1_000_000  # requests from which a run takes tens of seconds: RUNS of them
TURNS = 20
LOADS = (8, 16, 32, 64)  # concurrency levels; the sessions are shared out among them
TTFT_LIMIT_MS = 1500.0
START_S = 180  # a server's start on a busy shared machine (60 s was missed once)
FLOOR_REQUESTS = 80  # four sessions of 20 turns: 76 rows (each load's first turn 0 cut)

# The session attainment of the read-off, in plain polars from the file (warm: a small file
# read and grouped first). Whole sessions: turns 0..k without a gap; met: every turn ok and
# TTFT ≤ the limit.
GROUP_BY = """
import json, sys, time
import polars as pl
def attainment(path, limit):
    frame = pl.read_csv(path)
    good = pl.col("ok") & (pl.col("ttft_ms") <= limit).fill_null(False)
    sessions = frame.group_by("concurrency", "session_id").agg(
        turns=pl.len(), met=good.sum(),
        whole=(pl.col("turn_index").min() == 0) & (pl.col("turn_index").max() == pl.len() - 1),
    )
    return sessions.filter(pl.col("whole")).group_by("concurrency").agg(
        count=pl.len(), good=(pl.col("met") == pl.col("turns")).sum()
    )
attainment(sys.argv[2], 1500.0)
start = time.perf_counter()
table = attainment(sys.argv[1], 1500.0)
print(json.dumps({"s": time.perf_counter() - start, "rows": table.height}))
"""


def write_sessions(folder: Path, requests: int, name: str) -> tuple[Path, Path]:
    """Points and requests files: requests ÷ 20 sessions of 20 turns shared among LOADS; TTFT
    cold on turn 0 and warm after, rising with load; one turn in 97 failed; the first session
    of each load cut (its turn 0 before the window)."""
    folder.mkdir(parents=True, exist_ok=True)
    sessions = max(len(LOADS), requests // TURNS)
    rng = np.random.default_rng(49)
    session = np.repeat(np.arange(sessions), TURNS)
    turn = np.tile(np.arange(TURNS), sessions)
    load = np.asarray(LOADS)[session % len(LOADS)]
    n = session.size
    ttft = np.where(turn == 0, 900.0, 150.0) * (1 + load / 64) * rng.uniform(0.5, 1.5, n)
    out = rng.integers(16, 1024, n)
    e2el = ttft + out * rng.uniform(8, 30, n)
    ok = (np.arange(n) % 97) != 96
    frame = pl.DataFrame(
        {
            "sweep": pl.repeat(name, n, eager=True),
            "concurrency": load,
            "ttft_ms": np.round(ttft, 3),
            "e2el_ms": np.round(e2el, 3),
            "output_len": out,
            "input_len": np.full(n, 8192),
            "ok": ok,
            "session_id": pl.Series(session).cast(pl.String),
            "turn_index": turn,
        }
    )
    cut = (pl.col("session_id").cast(pl.Int64) < len(LOADS)) & (pl.col("turn_index") == 0)
    failed = ~pl.col("ok")
    frame = frame.filter(~cut).with_columns(
        *(pl.when(failed).then(None).otherwise(pl.col(c)).alias(c)
          for c in ("ttft_ms", "e2el_ms", "output_len"))
    )  # fmt: skip
    requests_csv = folder / f"{name}.requests.csv"
    frame.write_csv(requests_csv)
    points_csv = folder / f"{name}.csv"
    lines = [
        "sweep,hardware,num_gpus,scenario,trace_dataset,concurrency,tpot_p50_ms,ttft_p90_ms,"
        "output_tok_s,duration_s,requests_per_s"
    ]
    for c in LOADS:
        lines.append(
            f"{name},H100,8,agentic-coding,bench-traces,{c},{10 + c / 8:.1f},{1200 * (1 + c / 64)},"
            f"{400 * c},600,{c / 4}"
        )
    points_csv.write_text("\n".join(lines) + "\n")
    return points_csv, requests_csv


def file_rows(path: Path) -> int:
    """Rows of a CSV file (its header left out)."""
    return int(pl.scan_csv(path).select(pl.len()).collect().item())


def stored_samples(url: str, sweep_id: int) -> int:
    """Request samples the database holds for a sweep (from its blocks' row counts)."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT COALESCE(SUM(rows), 0) FROM sample_block WHERE sweep_id = :id"),
                {"id": sweep_id},
            ).scalar_one()
    finally:
        engine.dispose()
    return int(rows)


def stored_check(
    server: Server, url: str, files: tuple[Path, Path], rows: int
) -> tuple[float, int]:
    """Wall seconds of the upload of `files` and the sweep's id, after checking it timed the
    work: 201 with the sweep created (a file stored before would answer 200 from its hash,
    storing nothing), and every row of the requests file stored as a sample of that sweep."""
    sent = [("files", p.name, p.read_bytes(), "text/csv") for p in files]
    answer = post_files(server.url, "/api/sweeps", sent)
    if answer.status != 201:
        raise AssertionError(f"upload answered {answer.status}, not 201: {answer.body[:300]!r}")
    [sweep] = answer.json()["sweeps"]
    if not sweep["created"]:
        raise AssertionError(f"the upload found sweep {sweep['id']} stored already")
    stored = stored_samples(url, int(sweep["id"]))
    if stored != rows:
        raise AssertionError(f"{stored:,} request samples stored of the file's {rows:,} rows")
    return answer.seconds, int(sweep["id"])


def _http_run(
    url: str,
    files: tuple[Path, Path],
    warm_up: tuple[Path, Path],
    floor: tuple[Path, Path],
    samples: dict[str, list[float]],
    rows: int,
) -> None:
    note = _recorder(samples)
    size = sum(p.stat().st_size for p in files)
    env = {"PARETOSCOPE_MAX_UPLOAD_MB": str(max(50, 2 * size // 2**20))}
    with running_server(url, workers=1, env=env, keep_log=False, timeout_s=START_S) as server:
        _upload(server, *warm_up)
        seconds, sweep_id = stored_check(server, url, files, rows)
        note("upload", seconds)
        # After the timed upload, so that it stays the server's first large one.
        note("floor", stored_check(server, url, floor, file_rows(floor[1]))[0])
    params = {"sweep": sweep_id, "ttft_ms": TTFT_LIMIT_MS, "ttft_percentile": "p90"}
    with running_server(url, workers=1, env=env, keep_log=False, timeout_s=START_S) as server:
        cold = fetch(server.url, "/api/readoff", params, accept=ACCEPT_JSON)
        assert cold.status == 200, cold.body[:300]
        assert cold.json()["results"][0]["sessions"]["count"], cold.body[:500]
        note("cold", cold.seconds)
        again = {**params, "ttft_ms": TTFT_LIMIT_MS + 1}
        warm = fetch(server.url, "/api/readoff", again, accept=ACCEPT_JSON)
        assert warm.status == 200, warm.body[:300]
        note("warm", warm.seconds)


def run(scale: Scale, found: list[Backend]) -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="paretoscope-sessions-"))
    try:
        return _measure(scale, found, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _measure(scale: Scale, found: list[Backend], folder: Path) -> list[Result]:
    warm_up = write_sessions(folder / "warm", 4_000, "warm-agents")
    floor = write_sessions(folder / "floor", FLOOR_REQUESTS, "floor-agents")
    floor_label = (
        f"  a {file_rows(floor[1])}-request file of the same kind, uploaded right after: any"
        " upload's floor"
    )
    results: list[Result] = []
    for requests in scale.session_requests:
        runs = max(1, scale.repeat if requests < LARGE else min(RUNS, scale.repeat))
        files = write_sessions(folder / str(requests), requests, f"agents-{requests}")
        rows = file_rows(files[1])
        label = f"{requests:,}-request multi-turn file ({requests // TURNS:,} sessions × {TURNS})"
        for backend in found:
            if backend.url is None:
                results += [
                    unknown(f"{label} through POST /api/sweeps", backend, "s", "read_csv", 5.0),
                    unknown(floor_label, backend, "s", "read_csv", 0.0),
                    unknown("  its session read-off, cold", backend, "s", "group-by", 3.0),
                ]
                continue
            samples: dict[str, list[float]] = {}
            note = _recorder(samples)
            for _ in range(runs):
                read = _run(READ_CSV, str(files[1]), str(warm_up[1]))
                if read["rows"] != rows:  # the baseline reads the very rows the upload stores
                    raise AssertionError(f"read_csv read {read['rows']} rows of {rows}")
                note("read_csv", read["s"])
                note("group_by", _run(GROUP_BY, str(files[1]), str(warm_up[1]))["s"])
                database = fresh_database(backend, "sessions")
                _http_run(database, files, warm_up, floor, samples, rows)
                print(f"[sessions {requests:,} {backend.name}: {samples}]", file=sys.stderr)
            med = {k: statistics.median(v) for k, v in samples.items()}
            group_by = "polars read_csv + session attainment group-by"
            results += [
                Result(f"{label} through POST /api/sweeps", backend.name, med["upload"], "s",
                       "polars.read_csv of the file", med["read_csv"], 5.0),
                Result(floor_label, backend.name, med["floor"], "s", "polars.read_csv of the file",
                       med["read_csv"], 0.0, judged="none"),
                Result("  its session read-off, the server's first request (cold)", backend.name,
                       med["cold"], "s", group_by, med["group_by"], 3.0),
                Result("  the same read-off with a new SLO right after (warm)", backend.name,
                       med["warm"], "s", group_by, med["group_by"], 3.0),
            ]  # fmt: skip
    return results
