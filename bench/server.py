"""A real `paretoscope serve` on a free loopback port, for the load benchmark and the tests that
need a real server (streaming limits, outages): started, waited for, and stopped by its own pid."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from app.settings import PROJECT_ROOT


@dataclass(frozen=True)
class Server:
    url: str
    pid: int
    log: Path

    def rss_bytes(self) -> int:
        """Resident memory of the serving process and its workers (Linux /proc)."""
        return sum(_rss(pid) for pid in (self.pid, *_children(self.pid)))

    def reset_peak(self) -> None:
        """Start the processes' peak (VmHWM) again from their resident size (Linux: writing 5
        to /proc/PID/clear_refs, allowed for one's own processes)."""
        for pid in (self.pid, *_children(self.pid)):
            with contextlib.suppress(OSError):
                Path(f"/proc/{pid}/clear_refs").write_text("5")

    def peak_bytes(self) -> int:
        """Peak resident memory (VmHWM) of the serving process and its workers (Linux /proc)."""
        return sum(_rss(pid, "VmHWM") for pid in (self.pid, *_children(self.pid)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def running_server(
    database_url: str,
    *,
    workers: int = 1,
    env: dict[str, str] | None = None,
    timeout_s: float = 60,
    keep_log: bool = True,
) -> Iterator[Server]:
    """The server, stopped on exit; its log (stdout and stderr) is removed then unless
    `keep_log` (a bench that restarts servers many times passes False)."""
    port = free_port()
    inherited = {k: v for k, v in os.environ.items() if k != "PARETOSCOPE_WRITE_TOKEN"}
    full_env = {
        **inherited,
        "PARETOSCOPE_DATABASE_URL": database_url,
        "PARETOSCOPE_SEED_ON_START": "false",
        **(env or {}),
    }
    log = Path(tempfile.mkstemp(prefix="paretoscope-server-", suffix=".log")[1])
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
            + ["--workers", str(workers)],
            cwd=PROJECT_ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, log, timeout_s)
        yield Server(url, process.pid, log)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        if not keep_log:
            log.unlink(missing_ok=True)


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"server did not answer /healthz within {timeout_s} s")


def _rss(pid: int, key: str = "VmRSS") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            for child in map(int, text):
                found += [child, *_children(child)]
    except OSError:
        pass
    return found
