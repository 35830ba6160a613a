"""The `paretoscope` command: import, export, db upgrade and seed against a real database."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.store.models import PointBlock, Sweep
from tests.conftest import FIXTURES
from tests.factories import MINIMAL, count


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
    session.query(PointBlock).delete()
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


def test_readoff_takes_a_percentile_per_limit_and_says_unknown_at_a_missing_one(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import csv
    import io
    import json

    from tests.conftest import FIXTURES

    names = sorted(
        p for p in (FIXTURES / "vllm").glob("stellalee_*qps-*.json") if "inf" not in p.name
    )
    assert cli("import", *names, "--hardware", "RTX4090", "--gpus", 1) == 0
    capsys.readouterr()
    # The StellaLee files store no p90: a limit read at p90 is unknown, not a fail.
    assert cli("readoff", 1, "--ttft-ms", 400, "--tpot-ms", 20, "--percentile", "p90") == 0
    [row] = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert (row["status"], row["meets_slo"]) == ("unknown", "")
    limits = ("--ttft-ms", 400, "--tpot-ms", 20, "--ttft-percentile", "p99")
    assert cli("readoff", 1, *limits, "--tpot-percentile", "p50", "--usd-per-gpu-hour", 0.5) == 0
    [row] = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert row["slo"] == "p99 TTFT ≤ 400 ms, p50 TPOT ≤ 20 ms"
    assert (row["status"], float(row["goodput_tok_s_per_gpu"])) == ("pass", 365.80041687999716)
    # $0.50/GPU-hour at 365.8 output tok/s/GPU: 0.5·10⁶ / (3600 · 365.80041688).
    assert float(row["usd_per_mtok [$0.5/GPU-hour]"]) == pytest.approx(0.379684884)
    assert cli("readoff", 1, *limits, "--tpot-percentile", "p90", "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["slo"]["tpot_percentile"] == "p90"
    assert doc["results"][0]["status"] == "unknown"
    assert cli("readoff", 1, "--ttft-percentile", "p100") == 2
    assert "ttft_percentile" in capsys.readouterr().err


def test_readoff_takes_an_interval_level_and_gives_the_same_interval_twice(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from tests.web.test_intervals_api import POINTS, REQUESTS

    (tmp_path / "ci.csv").write_bytes(POINTS)
    (tmp_path / "ci.requests.csv").write_bytes(REQUESTS)
    assert cli("import", tmp_path / "ci.csv", tmp_path / "ci.requests.csv") == 0
    capsys.readouterr()
    options = ("--ttft-ms", 500, "--mode", "requests", "--attainment", 0.8, "--format", "json")
    docs = []
    for _ in range(2):
        assert cli("readoff", 1, *options, "--ci-level", 0.9) == 0
        docs.append(json.loads(capsys.readouterr().out)["results"][0])
    goodput = docs[0]["intervals"]["goodput_tok_s_per_gpu"]
    assert goodput["ci_level"] == 0.9 and goodput["ci_method"] == "bootstrap"
    assert goodput["ci_low"] < docs[0]["goodput_tok_s_per_gpu"] < goodput["ci_high"]
    assert docs[0]["intervals"] == docs[1]["intervals"]
    assert cli("readoff", 1, "--ci-level", 1.5) == 2
    assert "ci_level" in capsys.readouterr().err


def test_import_takes_the_api_field_names_as_options_and_names_them_in_errors(
    cli: Callable[..., int], tmp_path: Path, session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare.csv"
    bare.write_bytes(b"concurrency,tpot_p50_ms,output_tok_s\n1,10,100\n")
    assert cli("import", bare, "--hardware", "H100") == 2
    err = capsys.readouterr().err
    assert "required column 'sweep' is missing and --sweep was not given" in err
    assert "required column 'num_gpus' is missing and --num-gpus was not given" in err
    assert cli("import", bare, "--sweep", "s", "--hardware", "H100", "--num-gpus", 0) == 2
    assert "  --num-gpus: must be greater than 0\n" in capsys.readouterr().err
    vllm = (
        FIXTURES / "vllm" / "stellalee_openai-1.0qps-Qwen2.5-Coder-7B-Instruct-20260707-093920.json"
    )
    assert cli("import", vllm, "--hardware", "H100") == 2
    assert "the file does not say how many GPUs; give --num-gpus" in capsys.readouterr().err
    assert count(session, Sweep) == 0
    assert cli("import", bare, "--sweep", "s", "--hardware", "H100", "--num-gpus", 4) == 0
    assert capsys.readouterr().out == "created sweep 1: s (1 point)\n"
    assert session.query(Sweep).one().num_gpus == 4


def test_import_of_a_disaggregated_sweep_needs_its_split_from_the_files_or_the_options(
    cli: Callable[..., int], tmp_path: Path, session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "bare.csv"
    bare.write_bytes(
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\ns,H100,16,1,10,100\n"
    )
    assert cli("import", bare, "--disaggregated", "--num-prefill-gpus", 8) == 2
    err = capsys.readouterr().err
    assert "the file does not say its decode GPUs; give --num-decode-gpus" in err
    assert count(session, Sweep) == 0
    split = ("--num-prefill-gpus", 8, "--num-decode-gpus", 8)
    assert cli("import", bare, "--disaggregated", *split) == 0
    stored = session.query(Sweep).one()
    assert (stored.num_prefill_gpus, stored.num_decode_gpus) == (8, 8)
