"""`alembic -c alembic.ini` works by hand against the database the settings name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from alembic.script import ScriptDirectory

from app.settings import PROJECT_ROOT
from app.store.migrate import alembic_config, upgrade_to_head


def alembic(*args: str, database: Path, cwd: Path) -> str:
    """Run from elsewhere than the checkout, with the URL from the environment only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PARETOSCOPE_", "PYTHON"))}
    env["PARETOSCOPE_DATABASE_URL"] = f"sqlite:///{database}"
    done = subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(PROJECT_ROOT / "alembic.ini"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_alembic_ini_names_the_migrations_and_the_module_that_runs_them() -> None:
    text = (PROJECT_ROOT / "alembic.ini").read_text(encoding="utf-8")
    assert "app/store/migrate.py" in text
    for word in text.split():
        if word.startswith("app/") and word.endswith(".py"):
            assert (PROJECT_ROOT / word.rstrip(")")).is_file(), word


def test_alembic_heads_and_current_answer_for_the_settings_database(tmp_path: Path) -> None:
    [head] = ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads()
    database = tmp_path / "hand.db"
    assert alembic("heads", database=database, cwd=tmp_path).split() == [head, "(head)"]
    assert alembic("current", database=database, cwd=tmp_path).split() == []  # empty database
    upgrade_to_head(f"sqlite:///{database}")
    assert alembic("current", database=database, cwd=tmp_path).split() == [head, "(head)"]
