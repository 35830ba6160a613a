"""tools/complexity.py, the radon check in `make test`: the tree passes it, and it refuses a
block of rank E, a new long function and a listed one that is no longer long."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from app.settings import PROJECT_ROOT


def _complexity_tool() -> object:
    spec = importlib.util.spec_from_file_location(
        "complexity_tool", PROJECT_ROOT / "tools" / "complexity.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


complexity: Any = _complexity_tool()


def test_the_app_is_within_the_complexity_ratchet() -> None:
    assert complexity.problems() == []


def test_a_tangled_function_and_a_long_one_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = tmp_path / "app"
    app.mkdir()
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(35))
    (app / "tangled.py").write_text(f"def tangled(x):\n{branches}    return -1\n")
    (app / "long.py").write_text("def long():\n" + "    x = 1\n" * 90 + "    return x\n")
    monkeypatch.setattr(complexity, "ROOT", tmp_path)
    # A listed function that is no longer long (here: gone) must be struck from the list.
    monkeypatch.setattr(complexity, "LONG_LEFT", frozenset({"app/gone.py gone"}))
    found = complexity.problems(app)
    assert any("tangled: rank E (36), at most D" in line for line in found)
    assert any(line.startswith("app/long.py long: 92 lines") for line in found)
    assert any("app/gone.py gone" in line and "strike it from LONG_LEFT" in line for line in found)
