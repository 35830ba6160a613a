"""The MCP SDK is the optional extra `paretoscope[mcp]`: without it `paretoscope mcp`, `serve`
with PARETOSCOPE_MCP_HTTP and the app itself refuse with what to install, and nothing else
loads it. (tests/test_install.py runs the same refusals where the SDK is really absent.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.main import create_app
from app.mcp import SdkMissing, require_sdk
from app.settings import Settings, get_settings

INSTALL = "pip install 'paretoscope[mcp]'"


@pytest.fixture
def without_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """`import mcp` fails as it does where the extra is not installed (None in sys.modules
    halts the import with ModuleNotFoundError naming mcp)."""
    monkeypatch.setitem(sys.modules, "mcp", None)


def test_paretoscope_mcp_without_the_sdk_exits_2_saying_what_to_install(
    without_sdk: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: `paretoscope mcp` needs the Model Context Protocol SDK")
    assert INSTALL in err
    assert "Traceback" not in err


def test_serve_with_mcp_http_without_the_sdk_refuses_before_touching_the_database(
    without_sdk: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    database = tmp_path / "never.db"
    monkeypatch.setenv("PARETOSCOPE_MCP_HTTP", "true")
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", f"sqlite:///{database}")
    get_settings.cache_clear()
    try:
        assert main(["serve"]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert err.startswith("error: PARETOSCOPE_MCP_HTTP (the MCP server at /mcp) needs")
    assert INSTALL in err
    assert not database.exists()


def test_the_app_with_mcp_http_without_the_sdk_refuses_to_start_saying_what_to_install(
    without_sdk: None, tmp_path: Path
) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'app.db'}", mcp_http=True)
    with pytest.raises(SdkMissing, match=r"the MCP server at /mcp\) needs .*paretoscope\[mcp\]"):
        create_app(settings, migrate=False)


def test_an_sdk_that_is_installed_but_broken_keeps_its_own_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the SDK's absence is blamed on the extra: a dependency of it that fails to import
    is reported as itself."""
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.setitem(sys.modules, "mcp_types", None)
    with pytest.raises(SdkMissing):
        require_sdk("this")
    monkeypatch.delitem(sys.modules, "mcp")
    monkeypatch.delitem(sys.modules, "mcp_types")
    code = """
import sys, importlib.abc
class Broken(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "anyio":
            raise ModuleNotFoundError("No module named 'anyio'", name="anyio")
for name in [m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types", "anyio")]:
    del sys.modules[name]
sys.meta_path.insert(0, Broken())
from app.mcp import require_sdk
require_sdk("this")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith("ModuleNotFoundError: No module named 'anyio'")


def test_nothing_but_the_mcp_surfaces_imports_the_sdk() -> None:
    """The app, its CLI and every page and JSON answer load without it (the SDK is loaded by
    `paretoscope mcp` and /mcp alone)."""
    code = """
import sys
import app.cli, app.main
from fastapi.testclient import TestClient
from app.main import create_app
from app.settings import Settings
create_app(Settings(database_url="sqlite://"), migrate=False)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types")))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
