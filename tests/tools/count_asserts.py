"""Count the suite's checks, so a refactoring of the tests can show it lost none.

`python -m tests.tools.count_asserts [tests/]` prints three numbers: `assert` statements,
calls of pytest.raises / pytest.warns / Playwright's expect, and their total. A helper that
asserts counts once where it is defined (merging sixteen copies of one helper lowers the
first figure by fifteen without checking any less), so the closing note states both sides.
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


def count(root: Path) -> dict[str, int]:
    asserts = calls = 0
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assert):
                asserts += 1
            elif isinstance(node, ast.Call) and _called_name(node) in CHECK_CALLS:
                calls += 1
    return {"assert": asserts, "raises/warns/expect": calls, "total": asserts + calls}


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    for name, n in count(root).items():
        print(f"{name}: {n}")
