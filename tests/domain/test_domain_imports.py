"""app/domain stays pure: no web, database, template, plotting or settings imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DOMAIN = Path(__file__).resolve().parents[2] / "app" / "domain"
BANNED = ("fastapi", "sqlalchemy", "jinja2", "plotly", "starlette", "app.settings")


def imported_modules(path: Path) -> list[str]:
    """Every module name imported by a file, including relative and nested imports."""
    modules: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.append(node.module)
            modules.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def test_domain_has_modules_to_check() -> None:
    assert len(list(DOMAIN.glob("*.py"))) >= 5


@pytest.mark.parametrize("path", sorted(DOMAIN.glob("*.py")), ids=lambda p: p.name)
def test_domain_module_imports_nothing_banned(path: Path) -> None:
    banned = [m for m in imported_modules(path) for b in BANNED if m == b or m.startswith(b + ".")]
    assert banned == [], f"{path.name} imports {banned}"
