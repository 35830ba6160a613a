"""Docs that cannot drift: every setting, CLI command and option, make target and link the
README and docs/ name is checked against the code, which is walked rather than listed here, so
a new setting or option without its entry fails."""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

import pytest

from app.cli import main as cli_main
from app.settings import Settings
from app.views.explore_state import DEFAULT_PRESET

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CONFIGURATION = DOCS / "configuration.md"
CLI_DOC = DOCS / "cli.md"


def markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md")), *sorted(ROOT.glob("CHANGELOG.md"))]


def without_code_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def sections(text: str) -> dict[str, str]:
    """Each `##` or `###` heading with its text, up to the next such heading."""
    parts = re.split(r"^(#{2,3} .*)$", text, flags=re.M)
    return {parts[i].lstrip("#").strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def table_row(text: str, name: str) -> str | None:
    """The table row whose first cell names `name` in backticks (alone or among others)."""
    for line in text.splitlines():
        if line.startswith("|") and f"`{name}`" in line.split("|")[1]:
            return line
    return None


def env_var(field: str) -> str:
    return "PARETOSCOPE_" + field.upper()


def spelled(default: object) -> str | None:
    """A default as the docs write it; None when it is not a plain value to compare."""
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, int | float):
        return f"{default:g}"
    if isinstance(default, str) and str(ROOT) not in default:
        return default
    return None


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_every_setting_has_a_row_in_the_configuration_table_with_its_default(field: str) -> None:
    row = table_row(CONFIGURATION.read_text(encoding="utf-8"), env_var(field))
    assert row is not None, f"{env_var(field)} is not in {CONFIGURATION.relative_to(ROOT)}"
    default = spelled(Settings.model_fields[field].default)
    if default is not None:
        assert f"`{default}`" in row.split("|")[2], f"{env_var(field)}: default {default}"


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_every_setting_is_named_in_the_readme_configuration(field: str) -> None:
    readme = sections(README.read_text(encoding="utf-8"))
    assert f"`{env_var(field)}`" in readme["Configuration"]


def test_every_environment_variable_the_code_reads_is_in_the_configuration_doc() -> None:
    """Beyond the settings: the variables of the tests, benchmarks, CI and the image."""
    documented = CONFIGURATION.read_text(encoding="utf-8")
    sources = [ROOT / "Dockerfile", ROOT / "Makefile", *sorted((ROOT / ".ci").glob("*"))]
    for folder in ("app", "bench", "tests"):
        sources += sorted((ROOT / folder).rglob("*.py"))
    named = set()
    for path in sources:
        if path.is_file() and path != Path(__file__):
            named |= set(re.findall(r"PARETOSCOPE_[A-Z][A-Z_]*[A-Z]", path.read_text("utf-8")))
    assert "PARETOSCOPE_TEST_DATABASE_URL" in named
    assert {name for name in named if f"`{name}`" not in documented} == set()


def cli_parser(monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The parser `paretoscope` builds, caught as it is about to parse (nothing runs)."""
    caught: list[argparse.ArgumentParser] = []

    def catch(parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        caught.append(parser)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", catch)
    assert cli_main(["--help"]) == 0
    return caught[0]


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every command and subcommand, with its parser, walked from the top."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append(((*path, name), sub))
                found.extend(commands(sub, (*path, name)))
    return found


def test_the_cli_walk_finds_every_command_the_cli_names(monkeypatch: pytest.MonkeyPatch) -> None:
    names = {" ".join(path) for path, _ in commands(cli_parser(monkeypatch))}
    assert {"serve", "import", "export", "plan", "readoff", "check", "db upgrade", "seed"} <= names


def test_every_cli_command_and_option_is_in_the_cli_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reference = sections(CLI_DOC.read_text(encoding="utf-8"))
    missing = []
    for path, parser in commands(cli_parser(monkeypatch)):
        options = [
            action
            for action in parser._actions
            if action.option_strings and not isinstance(action, argparse._HelpAction)
        ]
        if any(isinstance(a, argparse._SubParsersAction) for a in parser._actions):
            continue  # a group such as `db`: its subcommands have the entries
        heading = f"`paretoscope {' '.join(path)}`"
        if heading not in reference:
            missing.append(f"no section ### {heading}")
            continue
        for action in options:
            row = None
            for option in action.option_strings:
                row = table_row(reference[heading], option)
                if row is None:
                    missing.append(f"{heading}: {option}")
            default = action.default
            if row is not None and default not in (None, False, [], "==SUPPRESS=="):
                if f"`{spelled(default)}`" not in row.split("|")[2]:
                    missing.append(f"{heading}: {action.option_strings[-1]} default {default}")
    assert missing == []


def test_the_cli_reference_names_no_command_or_option_the_cli_lacks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsers = {" ".join(path): parser for path, parser in commands(cli_parser(monkeypatch))}
    stale = []
    for heading, text in sections(CLI_DOC.read_text(encoding="utf-8")).items():
        named = re.fullmatch(r"`paretoscope (.+)`", heading)
        if named is None:
            continue
        parser = parsers.get(named.group(1))
        if parser is None:
            stale.append(heading)
            continue
        known = {o for action in parser._actions for o in action.option_strings}
        for line in text.splitlines():
            if line.startswith("| `-"):
                stale += [
                    f"{heading}: {o}"
                    for o in re.findall(r"`(-[^`]+)`", line.split("|")[1])
                    if o not in known
                ]
    assert stale == []


def test_the_settings_table_names_no_setting_the_code_lacks() -> None:
    table = sections(CONFIGURATION.read_text(encoding="utf-8"))["Settings"]
    rows = re.findall(r"^\| `(PARETOSCOPE_\w+)`", table, flags=re.M)
    assert sorted(rows) == sorted(env_var(field) for field in Settings.model_fields)


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([A-Za-z][\w-]*):", text, flags=re.M))


def test_every_make_target_the_docs_name_is_in_the_makefile() -> None:
    named = set()
    for path in markdown_files():
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r"`make ([a-z][\w-]*)", text))
        named |= set(re.findall(r"^make ([a-z][\w-]*)", text, flags=re.M))
    assert {"run", "test"} <= named
    assert named - makefile_targets() == set()


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = without_code_blocks(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.*)$", text, flags=re.M):
        base, n = slug(heading), 0
        while (base if n == 0 else f"{base}-{n}") in found:
            n += 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def test_every_relative_link_in_the_readme_and_docs_resolves() -> None:
    broken = []
    for path in markdown_files():
        text = without_code_blocks(path.read_text(encoding="utf-8"))
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(ROOT)} → {target}"
            if not linked.exists():
                broken.append(f"{where}: no such file")
                continue
            if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{where}: no such heading")
    assert broken == []


def test_the_readme_states_the_default_slo_the_pages_use() -> None:
    with (ROOT / "seed_data" / "slo_presets.csv").open(encoding="utf-8") as f:
        preset = next(row for row in csv.DictReader(f) if row["key"] == DEFAULT_PRESET)
    limits = [
        f"{preset[f'{metric}_percentile'] or preset['percentile']} {metric.upper()} "
        f"≤ {preset[f'{metric}_ms']} ms"
        for metric in ("ttft", "tpot", "e2el")
        if preset[f"{metric}_ms"]
    ]
    stated = ", ".join([*limits, f"{float(preset['attainment']):.0%} attainment"])
    readme = " ".join(README.read_text(encoding="utf-8").split())  # as read, not as wrapped
    assert f'"{preset["name"]}" preset: {stated}' in readme


def test_the_readme_stays_under_400_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 400
