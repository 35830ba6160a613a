"""The lock files match pyproject.toml, pin and hash every package, and go stale when it changes."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from app.settings import PROJECT_ROOT


def _lock_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lock_tool", PROJECT_ROOT / "tools" / "lock.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


lock = _lock_tool()
PINNED = re.compile(r"^([a-z0-9][a-z0-9._-]*)(\[[^\]]*\])?==\S+ \\$")


def lock_check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(root / "tools" / "lock.py"), "check"],
        capture_output=True,
        text=True,
    )


def copy_of_the_repository(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tools").mkdir(parents=True)
    for name in ("pyproject.toml", *(lk.file for lk in lock.LOCKS)):
        shutil.copy(PROJECT_ROOT / name, root / name)
    shutil.copy(PROJECT_ROOT / "tools" / "lock.py", root / "tools" / "lock.py")
    return root


def test_every_lock_file_was_compiled_from_what_pyproject_declares_today() -> None:
    assert lock.stale() == []
    done = lock_check(PROJECT_ROOT)
    assert (done.returncode, done.stderr) == (0, "")


def test_every_package_in_a_lock_is_pinned_to_one_version_with_hashes() -> None:
    for each in lock.LOCKS:
        text = (PROJECT_ROOT / each.file).read_text(encoding="utf-8")
        entries = re.split(r"\n(?=[a-z0-9])", text)  # each pin with the lines below it
        pins = [line for line in text.splitlines() if line and line[0].isalnum()]
        assert pins, each.file
        for pin in pins:
            assert PINNED.match(pin), f"{each.file}: {pin!r} is not one pinned version"
        for entry in entries:
            if entry[:1].isalnum():
                assert "--hash=sha256:" in entry, f"{each.file}: {entry.splitlines()[0]}"


def test_the_runtime_lock_has_no_driver_test_tool_or_unused_package() -> None:
    def names(file: str) -> set[str]:
        text = (PROJECT_ROOT / file).read_text(encoding="utf-8")
        return {m.group(1) for m in map(PINNED.match, text.splitlines()) if m}

    runtime, postgres, tests = (names(each.file) for each in lock.LOCKS)
    assert {"fastapi", "cachetools", "numpy", "setuptools"} <= runtime
    assert not {"psycopg", "pandas", "plotly", "pytest"} & runtime
    assert postgres - runtime == {"psycopg", "psycopg-binary"}
    assert {"psycopg", "plotly", "pytest", "types-cachetools"} <= tests
    assert "pandas" not in tests
    assert runtime <= postgres <= tests


def test_a_changed_requirement_makes_the_check_fail_naming_lock_and_requirement(
    tmp_path: Path,
) -> None:
    root = copy_of_the_repository(tmp_path)
    assert lock_check(root).returncode == 0
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('"polars>=1.0,<3"', '"polars>=1.0,<4"'), encoding="utf-8")
    done = lock_check(root)
    assert done.returncode == 1
    for each in lock.LOCKS:
        assert f"stale lock: {each.file} was compiled from other requirements:" in done.stderr
    assert "+polars>=1.0,<4 -polars>=1.0,<3; run `make lock`" in done.stderr


def test_a_new_test_tool_makes_only_the_test_lock_stale(tmp_path: Path) -> None:
    root = copy_of_the_repository(tmp_path)
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('"pytest>=8,<10",', '"pytest>=8,<10", "Rich >= 13",'))
    assert lock.stale(root) == [
        "requirements-test.lock was compiled from other requirements: +rich>=13"
    ]
    (root / "requirements.lock").unlink()
    assert lock.stale(root)[0] == "requirements.lock is missing"


def test_the_runtime_lock_has_no_mcp_sdk_or_websockets_and_the_test_lock_has_the_sdk() -> None:
    """The MCP server is the optional extra `paretoscope[mcp]`: its SDK and what only it needs
    stay out of the runtime and postgres locks; the tests lock it to run the MCP tests."""

    def names(file: str) -> set[str]:
        text = (PROJECT_ROOT / file).read_text(encoding="utf-8")
        return {m.group(1) for m in map(PINNED.match, text.splitlines()) if m}

    sdk = {"mcp", "mcp-types", "cryptography", "jsonschema", "pyjwt", "sse-starlette"}
    runtime, postgres, tests = (names(each.file) for each in lock.LOCKS)
    assert not (sdk | {"websockets", "watchfiles"}) & (runtime | postgres)
    assert sdk <= tests
    assert {"uvicorn", "httptools", "uvloop"} <= runtime
    assert [each.extras for each in lock.LOCKS] == [(), ("postgres",), ("mcp", "postgres", "test")]


def test_a_requirements_marker_keeps_its_case_and_spaces_in_a_lock_input() -> None:
    """`platform_python_implementation == 'cpython'` would be false on CPython: only the name
    and versions are folded."""
    assert lock._normal("UVLoop >= 0.19, <1 ; sys_platform != 'win32'  and x == 'CPython'") == (
        "uvloop>=0.19,<1; sys_platform != 'win32' and x == 'CPython'"
    )
    assert lock._normal("Pytest >= 8, < 10") == "pytest>=8,<10"


@pytest.mark.slow
def test_the_app_serves_sqlite_without_pandas_plotly_psycopg_or_mcp(tmp_path: Path) -> None:
    """pandas is no dependency, plotly only validates figures in the tests, psycopg is the
    postgres extra and mcp the MCP one: with none of them importable the app migrates, seeds
    and draws Explore."""
    code = """
import sys
for name in ("pandas", "plotly", "psycopg", "mcp"):
    sys.modules[name] = None  # `import name` raises ImportError
from fastapi.testclient import TestClient
from app.main import create_app
from app.settings import Settings
app = create_app(Settings(database_url="sqlite:///" + sys.argv[1]))
with TestClient(app, base_url="http://127.0.0.1") as client:
    assert client.get("/healthz").status_code == 200
    assert "application/json" in client.get("/").text
"""
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "app.db")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
