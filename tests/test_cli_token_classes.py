"""`paretoscope readoff` with API prices by token class (issue 50): CSV columns and a table
line per sweep, the same figures as /api/readoff."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.web.test_token_classes_api import AGENTIC_POINTS, AGENTIC_REQUESTS

CLASS_PRICES = (
    "--usd-per-mtok-input", 1, "--usd-per-mtok-cached-input", 0.1, "--usd-per-mtok-output", 1,
)  # fmt: skip
LIMITS = (
    "--tpot-ms",
    35,
    "--tpot-percentile",
    "p50",
    "--ttft-ms",
    1000,
    "--ttft-percentile",
    "p90",
)


@pytest.fixture
def agentic(cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.csv").write_bytes(AGENTIC_POINTS)
    (tmp_path / "a.requests.csv").write_bytes(AGENTIC_REQUESTS)
    assert cli("import", tmp_path / "a.csv", tmp_path / "a.requests.csv") == 0
    capsys.readouterr()


@pytest.mark.usefixtures("agentic")
def test_readoff_csv_carries_the_class_columns_and_break_even_prices(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("readoff", "agentic", *LIMITS, "--usd-per-gpu-hour", 2, *CLASS_PRICES)
    assert cli(*args, "--format", "csv") == 0
    [row] = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert float(row["cached_input_share"]) == 14300 / 18000
    assert row["cached_input_source"] == "client"
    assert float(row["tok_s_per_gpu_output"]) == 1500.0
    assert float(row["blended_usd_per_mtok"]) == pytest.approx(5347.5 / 15000, rel=1e-12)
    revenue = 5347.5 * 0.0036  # $/GPU-hour at the API prices
    scale = 2.0 / revenue
    assert float(row["break_even_usd_per_mtok_output [$2/GPU-hour]"]) == pytest.approx(scale)
    cached = float(row["break_even_usd_per_mtok_cached_input [$2/GPU-hour]"])
    assert cached == pytest.approx(0.1 * scale)


@pytest.mark.usefixtures("agentic")
def test_readoff_table_writes_a_token_class_line_per_sweep(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("readoff", "agentic", *LIMITS, "--usd-per-gpu-hour", 2, *CLASS_PRICES)
    assert cli(*args, "--format", "table") == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("  agentic: "))
    assert "cached 79.4 % of input (reported by the client (per-request usage))" in line
    assert "blended $0.36/Mtok" in line
    assert "break-even at $2/GPU-hour: " in line


@pytest.mark.usefixtures("agentic")
def test_readoff_without_class_prices_or_cached_tokens_keeps_its_columns(
    cli: Callable[..., int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("readoff", "agentic", *LIMITS, "--format", "csv") == 0
    header = capsys.readouterr().out.splitlines()[0]
    # The sweep reports cached tokens: the share is shown even without prices.
    assert "cached_input_share" in header
