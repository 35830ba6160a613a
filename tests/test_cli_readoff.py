"""`paretoscope readoff` answers as the pages do (issue 47 item 7): the Chat preset when no SLO
is given, a limit without a percentile read at the Chat preset's (p99 TTFT, p50 TPOT), `--preset`,
the pages' default price set, a readable table on a terminal and CSV in a pipe; `import` seeds
the catalogs of a new database."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.domain.numbers import fmt_percent
from app.services.seed import SEED_DIR
from app.store.models import Hardware, PricingProfile, SloPreset, Sweep
from tests.conftest import FIXTURES
from tests.factories import count

RATES = sorted(p for p in (FIXTURES / "vllm").glob("stellalee_*qps-*.json") if "inf" not in p.name)
# Goodput of the StellaLee rate sweep at p99 TTFT ≤ 400 ms and p50 TPOT ≤ 20 ms (tests/test_cli.py).
AT_400_20 = 365.80041687999716
NO_PRICE = "no RTX4090 price in this set: enter $/GPU-hour"


@pytest.fixture
def imported(cli: Callable[..., int], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("import", *RATES, "--hardware", "RTX 4090", "--gpus", 1) == 0
    capsys.readouterr()


def csv_row(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    [row] = csv.DictReader(io.StringIO(capsys.readouterr().out))
    return row


def test_import_on_a_new_database_seeds_the_catalogs_and_matches_the_gpu_name(
    cli: Callable[..., int], session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    assert count(session, Hardware) == 0
    assert cli("import", *RATES, "--hardware", "H100 80GB SXM", "--gpus", 1) == 0
    err = capsys.readouterr().err
    assert "seeded the catalogs: hardware, models, SLO presets, prices, claims" in err
    assert "not in the hardware catalog" not in err
    assert "Hardware 'H100 80GB SXM' → H100 (matched by catalog alias)." in err
    session.expire_all()
    # Every GPU and price profile of seed_data/, read from the files (the catalog grows).
    seeded = {name: len(_seed_rows(name)) for name in ("hardware.csv", "pricing.csv")}
    assert seeded["hardware.csv"] >= 20  # Vera Rubin included (issue 51)
    assert (count(session, Hardware), count(session, PricingProfile)) == (
        seeded["hardware.csv"],
        seeded["pricing.csv"],
    )
    assert count(session, SloPreset) == 16
    # The catalogs only: the user's sweep is the only sweep (the seed sweeps are not added).
    assert [s.hardware for s in session.query(Sweep)] == ["H100"]
    assert cli("import", *RATES, "--hardware", "H100", "--gpus", 1) == 0
    assert "seeded the catalogs" not in capsys.readouterr().err


def _seed_rows(name: str) -> list[dict[str, str]]:
    with (SEED_DIR / name).open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.usefixtures("imported")
def test_a_limit_without_a_percentile_is_read_at_the_chat_presets_percentiles(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("readoff", 1, "--ttft-ms", 400, "--tpot-ms", 20) == 0
    row = csv_row(capsys)
    assert row["slo"] == "p99 TTFT ≤ 400 ms, p50 TPOT ≤ 20 ms"
    assert (row["status"], float(row["goodput_tok_s_per_gpu"])) == ("pass", AT_400_20)


@pytest.mark.usefixtures("imported")
def test_no_slo_is_the_chat_preset_and_no_price_is_the_pages_price_set(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("readoff", 1) == 0
    row = csv_row(capsys)
    assert row["slo"] == "p99 TTFT ≤ 500 ms, p50 TPOT ≤ 40 ms"
    # The pages' default price set has no RTX 4090 price: said, never another GPU's price.
    label = "InferenceX 3-year rental · Sep 2026"
    assert row[f"usd_per_mtok_reason [{label}]"] == NO_PRICE
    assert row[f"usd_per_mtok [{label}]"] == ""


@pytest.mark.usefixtures("imported")
def test_a_preset_sets_its_limits_and_an_option_beside_it_replaces_one(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("readoff", 1, "--preset", "chat-tight") == 0
    assert csv_row(capsys)["slo"] == "p99 TTFT ≤ 200 ms, p50 TPOT ≤ 40 ms"
    assert cli("readoff", 1, "--preset", "chat-tight", "--ttft-ms", 400, "--tpot-ms", 20) == 0
    row = csv_row(capsys)
    assert row["slo"] == "p99 TTFT ≤ 400 ms, p50 TPOT ≤ 20 ms"
    assert float(row["goodput_tok_s_per_gpu"]) == AT_400_20
    assert cli("readoff", 1, "--preset", "chat-loose") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --preset: no SLO preset 'chat-loose' (known: agentic, ")


@pytest.mark.usefixtures("imported")
def test_on_a_terminal_readoff_prints_a_table_with_each_reason_once(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert cli("readoff", 1, "--ttft-ms", 400, "--tpot-ms", 20) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [
        "SLO: p99 TTFT ≤ 400 ms, p50 TPOT ≤ 20 ms",
        "Goodput: output tok/s per GPU, highest first; ± 95% interval where there is one",
        "$/Mtok at InferenceX 3-year rental · Sep 2026",
        "",
    ]
    cells = [re.split(r"\s{2,}", line.strip()) for line in lines[4:7]]
    assert cells[0] == [
        "ID",
        "Sweep",
        "Meets SLO",
        "Goodput tok/s/GPU",
        "At load",
        "tok/s/user",
        "$/Mtok",
    ]
    assert cells[2] == [
        "1",
        "Qwen2.5-Coder-7B-Instruct · vllm bench serve · …",
        "yes",
        "366",
        "4 req/s",
        "54.3",
        "– [1]",
    ]
    assert len({len(line) for line in lines[4:6]}) == 1  # the rule under the head is as wide
    # The RTX 4090's missing price: once, below the table, not in every cell.
    assert lines[7:] == ["", f"[1] {NO_PRICE}"]
    # A pipe (or --format csv) gets the CSV; --format table forces the table.
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert cli("readoff", 1, "--ttft-ms", 400, "--tpot-ms", 20) == 0
    assert capsys.readouterr().out.startswith("sweep_id,sweep,hardware,")
    assert cli("readoff", 1, "--ttft-ms", 400, "--tpot-ms", 20, "--format", "table") == 0
    assert capsys.readouterr().out.startswith("SLO: p99 TTFT ≤ 400 ms")


def test_a_refused_import_on_a_new_database_stores_no_catalog_either(
    cli: Callable[..., int], session: Session, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "README.md").write_text("# no results here\n", encoding="utf-8")
    assert cli("import", tmp_path / "README.md", "--hardware", "H100", "--gpus", 1) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: nothing was imported") and "seeded" not in err
    session.expire_all()
    assert (count(session, Hardware), count(session, Sweep)) == (0, 0)


def test_readoff_reads_the_e2e_axis_and_a_multi_turn_runs_sessions(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = Path(__file__).parent / "fixtures" / "aiperf" / "multiturn"
    files = sorted(folder.iterdir())
    assert cli("import", *files, "--hardware", "H100", "--gpus", 1) == 0
    capsys.readouterr()
    asked = ("--ttft-ms", 3000, "--ttft-percentile", "p50", "--interactivity", "e2e")
    assert cli("readoff", 1, *asked) == 0
    row = csv_row(capsys)
    assert row["interactivity_axis"] == (
        "E2E-normalized interactivity (tok/s/user) = 1000 / p90 of E2EL ÷ OSL"
    )
    # TTFT ≤ 3 s on every turn: corr-1 and corr-2 met it, corr-3's third turn was cancelled.
    assert (row["scenario"], row["sessions"], row["sessions_met"]) == ("multi-turn", "3", "2")
    assert (row["sessions_cut"], row["session_attainment"]) == ("0", repr(2 / 3))
    # Wilson 95 % of 2 of 3: (2/3 + z²/6 ∓ z·√(2/27 + z²/36)) ÷ (1 + z²/3), z = 1.959964.
    z = 1.959963984540054
    centre, spread = 2 / 3 + z * z / 6, z * math.sqrt(2 / 27 + z * z / 36)
    low, high = ((centre - spread) / (1 + z * z / 3), (centre + spread) / (1 + z * z / 3))
    assert float(row["session_attainment_ci_low"]) == pytest.approx(low, abs=1e-12)
    assert float(row["session_attainment_ci_high"]) == pytest.approx(high, abs=1e-12)
    # JSON: the API's read-off, keys `sessions` and `turns`, the axis named in its SLO.
    assert cli("readoff", 1, *asked, "--format", "json") == 0
    [result] = json.loads(capsys.readouterr().out)["results"]
    assert {k: result["sessions"][k] for k in ("count", "met", "cut")} == {
        "count": 3,
        "met": 2,
        "cut": 0,
    }
    assert result["sessions"]["attainment_low"] == pytest.approx(low, abs=1e-12)
    assert set(result["turns"]) >= {"ttft_first_ms", "ttft_later_ms"}
    # A terminal's table names the axis and writes the sessions below the table.
    assert cli("readoff", 1, *asked, "--format", "table") == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[2] == "x axis: E2E-normalized interactivity (tok/s/user) = 1000 / p90 of E2EL ÷ OSL"
    )
    at = lines.index(
        "Sessions at the operating point (every turn within the SLO), by turn, agents:"
    )
    shown = f"66.7 % [{fmt_percent(low)}, {fmt_percent(high)}] of 3 sessions, 0 cut; TTFT p50 "
    assert lines[at + 1].split(": ", 1)[1].startswith(shown + "first turn ")
