"""The Dockerfile builds the project's wheel from exactly the sources, and with the command,
tests/test_install.py builds its wheel from, and ships the venv alone: that test's install and
`serve` from another directory stand for the image's, without a container engine."""

from __future__ import annotations

import re

from app.settings import PROJECT_ROOT
from tests.packaging import SOURCES, WHEEL_COMMAND

DOCKERFILE = PROJECT_ROOT / "Dockerfile"


def copied_paths(dockerfile: str) -> list[str]:
    """Every source of a COPY from the build context (not `--from=` another stage), once each."""
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
    assert f"{' '.join(WHEEL_COMMAND)} /tmp/dist ." in text
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
