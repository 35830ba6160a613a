"""The wheel built from a copy of the checkout and served from a venv outside it: what
tests/test_install.py and tests/test_dockerfile.py share."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.settings import PROJECT_ROOT
from tests.helpers import free_port

# What a wheel is built from: the package, its build files and the top-level directories
# setup.py ships inside it.
SOURCES = ("pyproject.toml", "setup.py", "README.md", "app")
SOURCES += ("templates", "static", "migrations", "seed_data")


def copy_sources(names: list[str] | tuple[str, ...], into: Path) -> Path:
    """A copy of these checkout paths (caches left out): builds write build/ and *.egg-info
    beside their sources, which must not land in the checkout."""
    into.mkdir(parents=True)
    for name in names:
        source = PROJECT_ROOT / name
        assert source.exists(), f"{name} is not in the repository"
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, into / name)
    return into


def outside_env() -> dict[str, str]:
    """This environment without anything pointing at the checkout (PYTHONPATH, settings)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PARETOSCOPE_", "PYTHON"))}


# How the wheel is built, here and by the Dockerfile's builder (tests/test_dockerfile.py).
WHEEL_COMMAND = ("pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir")


def build_wheel(context: Path, out: Path) -> Path:
    """The wheel, built by the test venv's locked setuptools as the Dockerfile's builder does."""
    subprocess.run(
        [sys.executable, "-m", *WHEEL_COMMAND, str(out), "--quiet", str(context)],
        check=True,
        cwd=context,
        env=outside_env(),
    )
    (wheel,) = out.glob("paretoscope-*.whl")
    return wheel


def new_venv(path: Path) -> Path:
    """A venv of its own (no pip: uv installs into it); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def uv_install(python: Path, *args: str) -> None:
    """uv (a test tool, `make lock` compiles with it) installs into that venv: pip takes ~50 s
    for the runtime lock here, uv 2-7 s."""
    uv = Path(sys.executable).parent / "uv"
    subprocess.run(
        [uv, "pip", "install", "--quiet", "--python", str(python), *args],
        check=True,
        env=outside_env(),
    )


def run_python(python: Path, code: str, cwd: Path) -> str:
    done = subprocess.run(
        [python, "-c", code], check=True, capture_output=True, text=True, cwd=cwd, env=outside_env()
    )
    return done.stdout.strip()


@contextmanager
def serving(venv: Path, cwd: Path, **settings: str) -> Iterator[str]:
    """`paretoscope serve` of that venv, started in `cwd`, until /healthz answers 200; its base
    URL. The server's output is in the failure message when it does not."""
    port = free_port()
    env = outside_env() | {"PARETOSCOPE_PORT": str(port), **settings}
    server = subprocess.Popen(
        [venv / "bin" / "paretoscope", "serve"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        status = _healthz(f"{base}/healthz", server)
        if status != 200:
            server.terminate()
            output = server.communicate(timeout=20)[0].decode(errors="replace")
            raise AssertionError(f"/healthz answered {status}:\n{output}")
        yield base
    finally:
        if server.poll() is None:
            server.terminate()
            server.communicate(timeout=20)


def _healthz(url: str, server: subprocess.Popen[bytes]) -> int:
    """The status /healthz answers once the server listens (it migrates and seeds first); -1
    when the server exited, -2 when it never answered."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return -1
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return int(response.status)
        except OSError:
            time.sleep(0.2)
    return -2


def fetch(url: str) -> tuple[int, str, bytes]:
    """Status, content type and body of a GET."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return int(response.status), response.headers.get("content-type", ""), response.read()
