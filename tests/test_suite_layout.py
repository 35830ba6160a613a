"""The suite keeps one home per helper: a helper (or fixture) name defined in two test modules
is two helpers drifting apart (`upload` once had sixteen copies and four signatures), and so is
one body under two names (nine `parse_<tool>` wrappers of parse_upload once)."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from tests.tools.count_asserts import count_checks

TESTS = Path(__file__).resolve().parent

Helper = ast.FunctionDef | ast.AsyncFunctionDef


def _helpers(root: Path) -> Iterator[tuple[str, Helper]]:
    """Module-level functions (helpers and fixtures; not tests, not pytest's hooks) of every
    module under `root`, with the module's path."""
    for path in sorted(root.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, Helper) and not node.name.startswith(("test_", "pytest_")):
                yield str(path.relative_to(root)), node


def defined_twice(root: Path) -> dict[str, list[str]]:
    """Helper names that more than one module under `root` defines, with the modules."""
    where: dict[str, list[str]] = defaultdict(list)
    for module, node in _helpers(root):
        where[node.name].append(module)
    return {name: files for name, files in where.items() if len(files) > 1}


def _body(node: Helper) -> str:
    """What a helper does, whatever it is called: its parameters and statements (the docstring
    and decorators left out; no line numbers)."""
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    return ast.dump(node.args) + ast.dump(ast.Module(body=body, type_ignores=[]))


def same_body_twice(root: Path) -> list[list[str]]:
    """Helpers under `root` (`module:name`) whose bodies are the same statement for statement,
    in one module or several: one helper written again under another name. A body of nothing
    but `pass`, `...` or a docstring (a fixture that only names others) is not compared."""
    where: dict[str, list[str]] = defaultdict(list)
    for module, node in _helpers(root):
        statements = [ast.dump(s) for s in node.body if not _is_nothing(s)]
        if statements:
            where[_body(node)].append(f"{module}:{node.name}")
    return sorted(names for names in where.values() if len(names) > 1)


def _is_nothing(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Pass) or (
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
    )


def test_no_helper_or_fixture_name_is_defined_in_two_test_modules() -> None:
    assert defined_twice(TESTS) == {}


def test_no_two_test_helpers_have_the_same_body_under_different_names() -> None:
    assert same_body_twice(TESTS) == []


def test_a_serial_mark_is_written_in_the_test_module_itself() -> None:
    """`make test`'s serial pass collects only the modules whose text says
    `pytest.mark.serial` (SERIAL_MODULES): a mark a conftest or helper module added, or one
    spelled otherwise, would go unrun."""
    elsewhere = [
        str(path.relative_to(TESTS))
        for path in TESTS.rglob("*.py")
        if path.name != "test_suite_layout.py"
        and ("mark.serial" in (text := path.read_text(encoding="utf-8")) or '"serial"' in text)
        and not (path.name.startswith("test_") and "pytest.mark.serial" in text)
    ]
    assert elsewhere == []


def test_a_helper_defined_in_two_modules_is_found(tmp_path: Path) -> None:
    helper = "def soup(text):\n    return text\n\n\ndef test_x():\n    pass\n"
    (tmp_path / "test_a.py").write_text(helper)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_b.py").write_text(helper)
    assert defined_twice(tmp_path) == {"soup": ["sub/test_b.py", "test_a.py"]}


def test_a_helper_copied_under_another_name_is_found_and_a_different_one_is_not(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_a.py").write_text(
        "def parse_a(*files, **form):\n    '''One.'''\n    return parse_upload(files, form)\n\n\n"
        "def parse_b(*files, **form):\n    return parse_upload(files, {**form})\n\n\n"
        "def seeded(database_url):\n    '''Only names another fixture.'''\n\n\n"
        "def test_x():\n    return parse_upload((), {})\n"
    )
    (tmp_path / "test_b.py").write_text(
        "@fixture\ndef parse_c(*files, **form):\n    return parse_upload(files, form)\n\n\n"
        "def parse_d(*files, **other):\n    return parse_upload(files, other)\n\n\n"
        "def also_seeded(database_url):\n    '''Names it too.'''\n"
    )
    assert same_body_twice(tmp_path) == [["test_a.py:parse_a", "test_b.py:parse_c"]]


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
