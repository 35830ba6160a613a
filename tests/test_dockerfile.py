"""The Dockerfile's build context is enough: what its COPY lines copy installs the package and
serves /healthz, without a container engine (the locked packages come from the test venv)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

from app.settings import PROJECT_ROOT

DOCKERFILE = PROJECT_ROOT / "Dockerfile"


def copied_paths(dockerfile: str) -> list[str]:
    """Every source of a COPY from the build context (not `--from=` another stage), once each
    (both stages copy the package)."""
    out: list[str] = []
    for line in dockerfile.replace("\\\n", " ").splitlines():
        words = line.split()
        if not words or words[0].upper() != "COPY":
            continue
        args = [w for w in words[1:] if not w.startswith("--")]
        if any(w.startswith("--from") for w in words[1:]):
            continue
        out += args[:-1]
    return list(dict.fromkeys(out))


def stages(dockerfile: str) -> list[str]:
    return re.findall(r"^FROM\s+(\S+)", dockerfile, flags=re.MULTILINE)


def test_the_image_is_built_in_two_stages_from_the_lock_and_runs_unprivileged() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert len(stages(text)) == 2
    assert "pip install --require-hashes -r requirements-postgres.lock" in text
    assert "COPY --from=builder /opt/venv /opt/venv" in text
    users = re.findall(r"^USER\s+(\S+)", text, flags=re.MULTILINE)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", text, flags=re.MULTILINE)
    assert "curl" not in text


def test_the_copy_lines_are_read_as_the_build_context_paths() -> None:
    paths = copied_paths(DOCKERFILE.read_text(encoding="utf-8"))
    assert paths[0] == "requirements-postgres.lock"
    assert {"pyproject.toml", "README.md", "app", "templates", "static", "migrations"} <= set(paths)
    assert "/opt/venv" not in paths  # copied from the builder stage, not the context


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_the_files_the_dockerfile_copies_install_and_serve_healthz(tmp_path: Path) -> None:
    context = tmp_path / "srv"
    context.mkdir()
    for name in copied_paths(DOCKERFILE.read_text(encoding="utf-8")):
        source = PROJECT_ROOT / name
        assert source.exists(), f"the Dockerfile copies {name}, which the repository lacks"
        if source.is_dir():
            shutil.copytree(source, context / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, context / name)
    # A venv of its own whose only link to the test venv is its packages' directory (a plain
    # path: the test venv's own editable install of this repository is not activated there).
    # Nothing of the environment points at this checkout (PYTHONPATH, settings).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PARETOSCOPE_", "PYTHON"))}
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    (Path(site) / "locked.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    subprocess.run([*install, "-e", str(context)], check=True, cwd=tmp_path, env=env)
    where = subprocess.run(
        [python, "-c", "import app; print(app.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    ).stdout.strip()
    assert Path(where) == context / "app" / "__init__.py"

    port = _free_port()
    env |= {
        "PARETOSCOPE_DATABASE_URL": f"sqlite:///{tmp_path / 'data' / 'paretoscope.db'}",
        "PARETOSCOPE_HOST": "127.0.0.1",
        "PARETOSCOPE_PORT": str(port),
        "PARETOSCOPE_SEED_ON_START": "false",
    }
    (tmp_path / "data").mkdir()
    server = subprocess.Popen(
        [venv / "bin" / "paretoscope", "serve"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        status = _healthz(f"http://127.0.0.1:{port}/healthz", server)
    finally:
        server.terminate()
        output = server.communicate(timeout=20)[0].decode(errors="replace")
    assert status == 200, output


def _healthz(url: str, server: subprocess.Popen[bytes]) -> int:
    """The status /healthz answers once the server listens (it migrates first)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return -1
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return int(response.status)
        except OSError:
            time.sleep(0.1)
    return -2
