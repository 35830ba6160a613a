"""The `paretoscope` command: import, export, db upgrade and seed against a real database."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.cli import main
from app.settings import get_settings
from app.store.models import Point, Sweep
from tests.factories import MINIMAL, count


@pytest.fixture
def cli(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Callable[..., int]:
    monkeypatch.setenv("PARETOSCOPE_DATABASE_URL", database_url)
    get_settings.cache_clear()
    yield lambda *args: main([str(a) for a in args])
    get_settings.cache_clear()


def test_import_stores_a_canonical_csv_with_metadata_from_options(
    cli: Callable[..., int], tmp_path: Path, session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare.csv"
    bare.write_bytes(b"concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n8,14,700\n")
    options = ("--hardware", "H200", "--gpus", 2, "--model", "qwen", "--name", "cli")
    assert cli("import", bare, *options) == 0
    assert capsys.readouterr().out == "created sweep 1: cli (2 points)\n"
    sweep = session.query(Sweep).one()
    assert (sweep.name, sweep.hardware, sweep.num_gpus, sweep.model) == ("cli", "H200", 2, "qwen")
    assert cli("import", bare, *options) == 0
    assert capsys.readouterr().out == "exists  sweep 1: cli (2 points)\n"
    assert count(session, Sweep) == 1


def test_import_of_a_bad_file_names_the_problem_and_stores_nothing(
    cli: Callable[..., int], tmp_path: Path, session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_bytes(MINIMAL)
    bad.write_bytes(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\nb,H1,1,1,-1,1\n"
    )
    assert cli("import", good, bad) == 2
    err = capsys.readouterr().err
    assert "bad.csv, row 2, column 'tpot_p50_ms': -1.0 is negative" in err
    assert count(session, Sweep) == 0
    assert cli("import", tmp_path / "missing.csv") == 2


def test_export_writes_canonical_csv_that_reimports_to_the_same_sweep(
    cli: Callable[..., int], tmp_path: Path, session: Session
) -> None:
    source = tmp_path / "mini.csv"
    source.write_bytes(MINIMAL)
    assert cli("import", source) == 0
    out = tmp_path / "out.csv"
    assert cli("export", 1, "-o", out) == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("sweep,hardware,num_gpus,")
    assert len(lines) == 3
    session.query(Point).delete()
    session.query(Sweep).delete()
    session.commit()
    assert cli("import", out) == 0
    sweep = session.query(Sweep).one()
    assert [(p.concurrency, p.tpot_p50_ms, p.output_tok_s) for p in sweep.points] == [
        (1.0, 10.0, 100.0),
        (4.0, 12.5, 320.0),
    ]


def test_export_of_an_unknown_sweep_fails_clearly(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("export", 42) == 2
    assert "sweep 42 does not exist" in capsys.readouterr().err


def test_db_upgrade_and_seed_report_what_they_did(
    cli: Callable[..., int], session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("db", "upgrade") == 0
    assert cli("seed") == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("seeded: hardware ")
    assert count(session, Sweep) > 0
    before = count(session, Sweep)
    assert cli("seed") == 0
    assert count(session, Sweep) == before


def test_the_console_script_is_installed() -> None:
    beside_python = Path(sys.executable).parent / "paretoscope"
    exe = str(beside_python) if beside_python.exists() else shutil.which("paretoscope")
    assert exe, "the paretoscope console script is not installed"
    result = subprocess.run([exe, "--help"], capture_output=True, text=True, check=True)
    for command in ("serve", "import", "export", "db", "seed"):
        assert command in result.stdout
