"""`pip install .` is a real package: the wheel carries templates, static files, migrations and
seed data, installs with the runtime lock alone (no MCP SDK) into a venv outside the checkout,
and `paretoscope serve` started from another directory migrates, seeds and serves pages."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import PROJECT_ROOT, Settings
from tests.packaging import (
    SOURCES,
    build_wheel,
    copy_sources,
    fetch,
    new_venv,
    outside_env,
    run_python,
    serving,
    uv_install,
)

ABSENT = ("mcp", "mcp_types", "cryptography", "jsonschema", "jwt", "websockets")
INSTALL = "pip install 'paretoscope[mcp]'"


def seeded_sweep_names(tmp_path: Path) -> list[str]:
    """The sweeps the checkout's own seed data gives a new database."""
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'checkout.db'}"))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        return sorted(s["name"] for s in client.get("/api/sweeps").json()["sweeps"])


@pytest.mark.slow
def test_the_wheel_with_the_runtime_lock_serves_pages_from_another_directory(
    tmp_path: Path,
) -> None:
    wheel = build_wheel(copy_sources(SOURCES, tmp_path / "src"), tmp_path / "dist")
    python = new_venv(tmp_path / "venv")
    uv_install(python, "--require-hashes", "-r", str(PROJECT_ROOT / "requirements.lock"))
    uv_install(python, "--no-deps", str(wheel))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    found = run_python(
        python,
        "import importlib.util, json, app\n"
        f"print(json.dumps([app.__file__, [importlib.util.find_spec(n) for n in {ABSENT!r}]],"
        " default=str))",
        elsewhere,
    )
    where, specs = json.loads(found)
    assert Path(where).is_relative_to(tmp_path / "venv")  # the installed copy, not the checkout
    assert specs == [None] * len(ABSENT)  # the MCP SDK's tree is not installed

    # The MCP surfaces say what to install; serve refuses before it migrates anything.
    for command, env in ((["mcp"], {}), (["serve"], {"PARETOSCOPE_MCP_HTTP": "true"})):
        done = subprocess.run(
            [tmp_path / "venv" / "bin" / "paretoscope", *command],
            cwd=elsewhere,
            env=outside_env() | env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr.startswith("error: ") and INSTALL in done.stderr, done.stderr
    assert list(elsewhere.iterdir()) == []

    # No database setting: an installed package keeps its data under the working directory.
    with serving(tmp_path / "venv", elsewhere) as base:
        status, kind, body = fetch(f"{base}/healthz")
        assert (status, json.loads(body)) == (200, {"status": "ok"})
        status, kind, body = fetch(f"{base}/")
        assert (status, kind) == (200, "text/html; charset=utf-8")
        page = BeautifulSoup(body, "html.parser")
        assert page.title is not None and page.title.text.endswith(" · Paretoscope")
        styles = [link["href"] for link in page.select("link[rel=stylesheet]")]
        assert any(str(href).startswith("/static/app.css?v=") for href in styles), styles
        css = next(str(href) for href in styles if str(href).startswith("/static/app.css"))
        status, kind, body = fetch(f"{base}{css}")
        assert (status, kind.split(";")[0]) == (200, "text/css")
        assert body == (PROJECT_ROOT / "static" / "app.css").read_bytes()
        status, kind, body = fetch(f"{base}/api/sweeps")
        served = sorted(s["name"] for s in json.loads(body)["sweeps"])
    assert (elsewhere / "data" / "paretoscope.db").is_file()
    assert served == seeded_sweep_names(tmp_path)  # every seed sweep shipped and loaded
    assert len(served) >= 10
