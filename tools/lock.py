"""The hashed lock files, compiled from pyproject.toml, and the check that they still match it.

    python tools/lock.py compile   # `make lock`: rewrite every lock file (needs uv)
    python tools/lock.py check     # `make test`'s first step: exit 1 when a lock is stale

Each lock file's header names the requirements it was compiled from (pyproject's dependencies,
the extras it includes and the build backend), one per line, so the check needs neither uv nor
the network: it compares those lines with what pyproject.toml declares today.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = "3.11"
PLATFORM = "x86_64-manylinux_2_28"  # linux x86_64 wheels, whatever machine compiles
INPUT = "# input: "


@dataclass(frozen=True)
class Lock:
    file: str
    extras: tuple[str, ...]


LOCKS = (
    Lock("requirements.lock", ()),
    Lock("requirements-postgres.lock", ("postgres",)),
    Lock("requirements-test.lock", ("mcp", "postgres", "test")),  # the MCP tests need the SDK
)


def declared(pyproject: Path, extras: tuple[str, ...]) -> list[str]:
    """The requirements a lock of these extras is compiled from, normalised and sorted: the
    build backend (installed with --no-build-isolation), the dependencies and each extra's."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    wanted = list(project["build-system"]["requires"]) + list(project["project"]["dependencies"])
    optional = project["project"].get("optional-dependencies", {})
    for extra in extras:
        if extra not in optional:
            raise SystemExit(f"{pyproject}: no extra named {extra!r} (tools/lock.py LOCKS)")
        wanted += optional[extra]
    return sorted({_normal(r) for r in wanted})


def _normal(requirement: str) -> str:
    """One spelling per requirement: no spaces or capitals in the name and versions; a marker
    keeps its words apart and its case (`platform_python_implementation == 'CPython'`)."""
    spec, _, marker = requirement.partition(";")
    spec = "".join(spec.split()).lower()
    return f"{spec}; {' '.join(marker.split())}" if marker.strip() else spec


def recorded(lock: Path) -> list[str]:
    lines = lock.read_text(encoding="utf-8").splitlines()
    return sorted(line.removeprefix(INPUT) for line in lines if line.startswith(INPUT))


def stale(root: Path = ROOT) -> list[str]:
    """Why each lock file no longer matches pyproject.toml (none when all match)."""
    problems = []
    for lock in LOCKS:
        path = root / lock.file
        if not path.is_file():
            problems.append(f"{lock.file} is missing")
            continue
        want, have = declared(root / "pyproject.toml", lock.extras), recorded(path)
        added = [r for r in want if r not in have]
        dropped = [r for r in have if r not in want]
        if added or dropped:
            change = [f"+{r}" for r in added] + [f"-{r}" for r in dropped]
            problems.append(f"{lock.file} was compiled from other requirements: {' '.join(change)}")
    return problems


def compile_lock(lock: Lock, root: Path = ROOT) -> None:
    wanted = declared(root / "pyproject.toml", lock.extras)
    with tempfile.NamedTemporaryFile("w", suffix=".in", delete=False) as inputs:
        inputs.write("\n".join(wanted) + "\n")
    out = root / lock.file
    subprocess.run(
        [
            *(["uv"] if _has_uv_on_path() else [sys.executable, "-m", "uv"]),
            "pip",
            "compile",
            inputs.name,
            "--quiet",
            "--generate-hashes",
            "--python-version",
            PYTHON,
            "--python-platform",
            PLATFORM,
            "--no-header",
            "--output-file",
            str(out),
        ],
        check=True,
    )
    Path(inputs.name).unlink()
    body = out.read_text(encoding="utf-8").replace(inputs.name, f"{lock.file} inputs")
    header = [
        f"# {lock.file}: Python {PYTHON} on linux x86_64, every package pinned with its hashes.",
        "# Compiled by `make lock` (tools/lock.py) from pyproject.toml: never edit by hand.",
        f"# Extras: {', '.join(lock.extras) or 'none'}. `make test` fails when the inputs below",
        "# differ from what pyproject.toml declares.",
        *(INPUT + r for r in wanted),
    ]
    out.write_text("\n".join(header) + "\n" + body, encoding="utf-8")


def _has_uv_on_path() -> bool:
    from shutil import which

    return which("uv") is not None


def main(argv: list[str]) -> int:
    if argv == ["compile"]:
        for lock in LOCKS:
            compile_lock(lock)
        return 0
    if argv == ["check"]:
        problems = stale()
        for problem in problems:
            print(f"stale lock: {problem}; run `make lock`", file=sys.stderr)
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
