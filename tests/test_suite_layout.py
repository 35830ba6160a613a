"""The suite keeps one home per helper: a helper (or fixture) name defined in two test modules
is two helpers drifting apart (`upload` once had sixteen copies and four signatures)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.tools.count_asserts import count_checks

TESTS = Path(__file__).resolve().parent


def defined_twice(root: Path) -> dict[str, list[str]]:
    """Module-level function names (helpers and fixtures; not tests, not pytest's hooks) that
    more than one module under `root` defines, with the modules."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef
            ) and not node.name.startswith(("test_", "pytest_")):
                where[node.name].append(str(path.relative_to(root)))
    return {name: files for name, files in where.items() if len(files) > 1}


def test_no_helper_or_fixture_name_is_defined_in_two_test_modules() -> None:
    assert defined_twice(TESTS) == {}


def test_a_helper_defined_in_two_modules_is_found(tmp_path: Path) -> None:
    helper = "def soup(text):\n    return text\n\n\ndef test_x():\n    pass\n"
    (tmp_path / "test_a.py").write_text(helper)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_b.py").write_text(helper)
    assert defined_twice(tmp_path) == {"soup": ["sub/test_b.py", "test_a.py"]}


def test_the_check_count_sees_asserts_raises_and_expect(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(
        "import pytest\n\n\ndef test_x(page):\n    assert 1\n    assert 2\n"
        "    with pytest.raises(ValueError):\n        int('x')\n    expect(page).to_be_ok()\n"
    )
    assert count_checks(tmp_path) == {
        "assert": 2,
        "raises/warns/expect": 2,
        "total": 4,
        "in test functions": 4,
    }
