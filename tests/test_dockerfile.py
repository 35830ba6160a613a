"""The Dockerfile's build context is enough: what its COPY lines copy builds the wheel, which
installs and serves /healthz, without a container engine (the locked packages come from the test
venv)."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import pytest

from app.settings import PROJECT_ROOT
from tests.packaging import (
    SOURCES,
    build_wheel,
    copy_sources,
    new_venv,
    run_python,
    serving,
    uv_install,
)

DOCKERFILE = PROJECT_ROOT / "Dockerfile"


def copied_paths(dockerfile: str) -> list[str]:
    """Every source of a COPY from the build context (not `--from=` another stage), once each
    (both stages copy the package)."""
    out: list[str] = []
    for line in dockerfile.replace("\\\n", " ").splitlines():
        words = line.split()
        if not words or words[0].upper() != "COPY":
            continue
        args = [w for w in words[1:] if not w.startswith("--")]
        if any(w.startswith("--from") for w in words[1:]):
            continue
        out += args[:-1]
    return list(dict.fromkeys(out))


def stages(dockerfile: str) -> list[str]:
    return re.findall(r"^FROM\s+(\S+)", dockerfile, flags=re.MULTILINE)


def test_the_image_is_built_in_two_stages_from_the_lock_and_runs_unprivileged() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert len(stages(text)) == 2
    assert "pip install --require-hashes -r requirements-postgres.lock" in text
    assert "pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/dist ." in text
    assert "pip install --no-deps /tmp/dist/paretoscope-*.whl" in text
    assert "COPY --from=builder /opt/venv /opt/venv" in text
    assert not re.search(r"pip install .*-e ", text)  # the wheel, not an editable source tree
    users = re.findall(r"^USER\s+(\S+)", text, flags=re.MULTILINE)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", text, flags=re.MULTILINE)
    assert "curl" not in text


def test_the_copy_lines_are_the_wheels_sources_and_the_final_stage_copies_only_the_venv() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    paths = copied_paths(text)
    assert paths == ["requirements-postgres.lock", *SOURCES]
    final = text[text.rindex("\nFROM ") :]
    assert copied_paths(final) == []  # nothing from the context: the package is in the venv
    assert "/opt/venv" not in paths  # copied from the builder stage, not the context


@pytest.mark.slow
def test_the_wheel_built_from_what_the_dockerfile_copies_installs_and_serves_healthz(
    tmp_path: Path,
) -> None:
    context = copy_sources(copied_paths(DOCKERFILE.read_text(encoding="utf-8")), tmp_path / "src")
    wheel = build_wheel(context, tmp_path / "dist")
    # A venv of its own whose only link to the test venv is its packages' directory (a plain
    # path: the test venv's own editable install of this repository is not activated there).
    python = new_venv(tmp_path / "venv")
    site = run_python(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])", tmp_path)
    (Path(site) / "locked.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    uv_install(python, "--no-deps", str(wheel))
    where = run_python(python, "import app; print(app.__file__)", tmp_path)
    assert Path(where) == Path(site) / "app" / "__init__.py"

    # The final stage's working directory holds nothing but the database.
    data = tmp_path / "data"
    data.mkdir()
    database = f"sqlite:///{data / 'paretoscope.db'}"
    with serving(
        tmp_path / "venv",
        data,
        PARETOSCOPE_DATABASE_URL=database,
        PARETOSCOPE_SEED_ON_START="false",
    ):
        pass
