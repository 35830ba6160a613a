"""Count the suite's checks, so a refactoring of the tests can show it lost none.

`python -m tests.tools.count_asserts [tests/]` prints `assert` statements, calls of
pytest.raises / pytest.warns / Playwright's expect, their total, and how many of those sit in
test functions themselves. A helper that asserts counts once where it is defined (merging
sixteen copies of one helper lowers the total by fifteen without checking any less); the last
figure is what such a merge cannot lower.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

CHECK_CALLS = {"raises", "warns", "expect"}


def _called_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _checks(tree: ast.AST) -> tuple[int, int]:
    asserts = calls = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            asserts += 1
        elif isinstance(node, ast.Call) and _called_name(node) in CHECK_CALLS:
            calls += 1
    return asserts, calls


def count_checks(root: Path) -> dict[str, int]:
    asserts = calls = in_tests = 0
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        a, c = _checks(tree)
        asserts, calls = asserts + a, calls + c
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                in_tests += sum(_checks(node))
    return {
        "assert": asserts,
        "raises/warns/expect": calls,
        "total": asserts + calls,
        "in test functions": in_tests,  # what merging helpers' copies cannot lower
    }


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    for name, n in count_checks(root).items():
        print(f"{name}: {n}")
