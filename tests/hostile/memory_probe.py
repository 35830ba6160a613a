"""Peak memory and time of every hostile file of at most 1 MB, through the API and the CLI.

Run in a process of its own (`python -m tests.hostile.memory_probe DATABASE_URL OUT.json [cli]`:
the CLI too with `cli`), so
the peak is the process's own resident high-water mark (VmHWM: polars' and Python's memory
alike), reset before each answer by writing 5 to /proc/self/clear_refs. Growth is the peak over
the resident size just before the request, after one answer has warmed the process up (lazy
imports are not the file's cost). Prints nothing; writes one record per case.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from app.cli import main
from app.main import create_app
from app.settings import Settings, get_settings
from tests.hostile.corpus import CASES, MB, Case, write
from tests.hostile.test_hostile_uploads import CLI_OPTIONS

SMALL = int(1.1 * MB)  # "1 MB" bombs are 1.01 MiB


def small_cases() -> list[Case]:
    return [c for c in CASES if len(c.payload()) <= SMALL]


def _status(key: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    raise LookupError(key)


_LIBC = ctypes.CDLL(None)


def measured(answer: Callable[[], int]) -> tuple[int, int, float]:
    """(status, bytes the peak grew by, seconds) of one answer."""
    # What earlier answers freed goes back to the system first: memory the allocator kept
    # would be reused unseen, and the growth would read low.
    gc.collect(1)  # a full collection costs 0.2 s here, and earlier answers' cycles are young
    _LIBC.malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # the high-water mark starts again from the resident size
    before = _status("VmRSS:")
    started = time.perf_counter()
    status = answer()
    elapsed = time.perf_counter() - started
    return status, _status("VmHWM:") - before, elapsed


def _post(client: TestClient, case: Case) -> int:
    files = [("files", (case.filename, case.payload(), "application/octet-stream"))]
    return client.post("/api/sweeps", files=files, data=case.fields).status_code


def _cli(database_url: str, path: Path, case: Case) -> int:
    options = [part for k, v in case.fields.items() for part in (CLI_OPTIONS[k], v)]
    os.environ["PARETOSCOPE_DATABASE_URL"] = database_url
    for name, value in case.settings.items():
        os.environ[f"PARETOSCOPE_{name.upper()}"] = str(value)
    get_settings.cache_clear()
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return main(["import", str(path), *options])
    finally:
        for name in case.settings:
            del os.environ[f"PARETOSCOPE_{name.upper()}"]
        get_settings.cache_clear()


WARM_UP = Case("warm-up", "warm_up.csv", lambda: b"a,b\n1,2\n")


def run(database_url: str, with_cli: bool) -> list[dict[str, object]]:
    records: list[dict[str, object]] = []
    clients: dict[str, TestClient] = {}
    with tempfile.TemporaryDirectory() as folder:
        for case in [WARM_UP, *small_cases()]:
            key = json.dumps(case.settings, sort_keys=True)
            if key not in clients:
                settings = Settings(
                    database_url=database_url,
                    seed_on_start=False,
                    allowed_hosts=["testserver"],
                    **case.settings,  # type: ignore[arg-type]
                )
                clients[key] = TestClient(create_app(settings, migrate=False))
                clients[key].__enter__()
            client = clients[key]
            api = measured(functools.partial(_post, client, case))
            record: dict[str, object] = {
                "id": case.id,
                "bytes": len(case.payload()),
                "api_status": api[0],
                "api_growth": api[1],
                "api_s": api[2],
            }
            if with_cli:
                path = write(case, Path(folder))
                cli = measured(functools.partial(_cli, database_url, path, case))
                record.update(cli_status=cli[0], cli_growth=cli[1], cli_s=cli[2])
            if case is not WARM_UP:
                records.append(record)
        for client in clients.values():
            client.__exit__(None, None, None)
    return records


if __name__ == "__main__":
    records = run(sys.argv[1], sys.argv[3:] == ["cli"])
    sizes = {c.id: len(c.payload()) for c in CASES}
    Path(sys.argv[2]).write_text(json.dumps({"sizes": sizes, "records": records}))
