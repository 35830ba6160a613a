"""Prices are never borrowed: a sweep is priced only by its own GPU's price or the user's own
$/GPU-hour; anything else is unknown, with the reason, on every page, export and command."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.numbers import fmt_usd
from app.services.seed import SEED_DIR, seed
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.helpers import soup
from tests.web.test_compare import TWO
from tests.web.test_readoff_api import O11

PRICE_SET = "costr@2026-09-08"
SET_LABEL = "InferenceX 3-year rental · Sep 2026"
NO_A100 = "no A100 price in this set: enter $/GPU-hour"
# Once the user has entered a price, the reason points at it instead of asking for one (issue 47).
NO_A100_SEE_OWN = "no A100 price in this set: see your $1.8/GPU-hour"
# LLMPerf's Anyscale run, stored as four A100s: the price set has no A100 price.
LLMPERF = ("summary_anyscale_70b.json", "individual_anyscale_70b.json")
SLO = {"ttft_ms": 1000, "tpot_ms": 100}


@pytest.fixture
def priced(session: Session, tmp_path: Path) -> None:
    """The hardware catalog, price profiles and SLO presets of seed_data/ (no seed sweeps)."""
    for name in ("hardware.csv", "pricing.csv", "slo_presets.csv"):
        shutil.copy(SEED_DIR / name, tmp_path / name)
    seed(session, tmp_path)
    session.commit()


def upload_a100(client: TestClient) -> int:
    files = [(n, (FIXTURES / "llmperf" / n).read_bytes()) for n in LLMPERF]
    response = post_files(client, *files, hardware="A100", num_gpus=4)
    assert response.status_code == 201, response.text
    [sweep] = response.json()["sweeps"]
    return int(sweep["id"])


def readoff_row(client: TestClient, **params: Any) -> dict[str, str]:
    response = client.get("/api/export/readoff.csv", params=params)
    assert response.status_code == 200, response.text
    [row] = csv.DictReader(io.StringIO(response.text))
    return row


@pytest.mark.usefixtures("priced")
def test_the_readoff_csv_never_writes_another_gpus_price_on_an_a100_row(
    client: TestClient,
) -> None:
    sweep = upload_a100(client)
    row = readoff_row(client, sweep=sweep, price_set=PRICE_SET, **SLO)
    assert row["hardware"] == "A100"
    assert row[f"usd_per_gpu_hour [{SET_LABEL}]"] == ""  # never B200's 3.7
    assert row[f"usd_per_mtok [{SET_LABEL}]"] == ""
    assert row[f"usd_per_mtok_reason [{SET_LABEL}]"] == NO_A100


def upload_pair(client: TestClient) -> tuple[int, int]:
    """Both LLMPerf 70B runs as one model on four A100s (a like-with-like pair)."""
    out = []
    for provider in ("anyscale", "together"):
        names = (f"summary_{provider}_70b.json", f"individual_{provider}_70b.json")
        files = [(n, (FIXTURES / "llmperf" / n).read_bytes()) for n in names]
        fields = {"hardware": "A100", "num_gpus": 4, "model": "llama-2-70b-chat"}
        response = post_files(client, *files, **fields)
        assert response.status_code == 201, response.text
        out.append(int(response.json()["sweeps"][0]["id"]))
    return out[0], out[1]


@pytest.mark.usefixtures("priced")
def test_the_readoff_json_gives_the_reason_and_no_other_gpus_price(client: TestClient) -> None:
    sweep = upload_a100(client)
    response = client.get("/api/readoff", params={"sweep": sweep, "price_set": PRICE_SET, **SLO})
    [result] = response.json()["results"]
    assert result["meets_slo"] is True
    assert result["costs"] == []  # none of the set's prices is an A100's
    [cell] = result["price_cells"]
    assert cell == {
        "label": SET_LABEL,
        "price": None,
        "profile_id": None,
        "usd_per_gpu_hour": None,
        "usd_per_mtok": None,
        "reason": NO_A100,
        "ci_low": None,
        "ci_high": None,
        "ci_level": None,
        "ci_method": None,
        "ci_reason": "no interval",
    }


@pytest.mark.usefixtures("priced")
def test_your_own_price_prices_the_a100_beside_the_set_that_has_none(client: TestClient) -> None:
    sweep = upload_a100(client)
    params = {"sweep": sweep, "price_set": PRICE_SET, "usd_per_gpu_hour": 1.8, **SLO}
    result = client.get("/api/readoff", params=params).json()["results"][0]
    unpriced, own = result["price_cells"]
    assert (unpriced["usd_per_gpu_hour"], unpriced["reason"]) == (None, NO_A100_SEE_OWN)
    goodput = result["goodput_tok_s_per_gpu"]
    assert (own["label"], own["usd_per_gpu_hour"], own["reason"]) == ("$1.8/GPU-hour", 1.8, None)
    assert own["usd_per_mtok"] == pytest.approx(1.8 * 1e6 / (3600 * goodput))
    row = readoff_row(client, **params)
    assert row["usd_per_gpu_hour [$1.8/GPU-hour]"] == "1.8"
    assert row["usd_per_mtok_reason [$1.8/GPU-hour]"] == ""
    assert row[f"usd_per_mtok_reason [{SET_LABEL}]"] == NO_A100_SEE_OWN
    page = soup(client.get("/", params={**params, "preset": "custom"}).text)
    notes = [li.get_text() for li in page.select("#readoff #cost-notes li")]
    assert notes == [NO_A100_SEE_OWN]
    assert "enter $/GPU-hour" not in page.get_text()


@pytest.mark.usefixtures("priced")
def test_explore_and_history_read_the_reason_in_the_a100_rows_price_cell(
    client: TestClient,
) -> None:
    [h100] = [s["id"] for s in post_files(client, ("o11.csv", O11)).json()["sweeps"]]
    a100 = upload_a100(client)
    view = {"sweep": [h100, a100], "picked": 1, "preset": "custom", "price_set": PRICE_SET}
    page = soup(client.get("/", params={**view, **SLO}).text)
    rows = {int(tr["data-sweep"]): tr for tr in page.select("#readoff-table tbody tr")}
    # O11 meets the SLO at 48,000 tok/s on 8 GPUs: $2/GPU-hour (the set's H100) ÷ 6,000 tok/s.
    assert rows[h100].select_one("td.cost").get_text() == fmt_usd(2.0 * 1e6 / (3600 * 6000))
    # The A100's missing price: a numbered note under the table, said once (issue 47).
    a100_cell = rows[a100].select_one("td.cost")
    assert a100_cell.get_text() == "–1"
    assert a100_cell.select_one("sup.cost-note a")["title"] == NO_A100
    notes = [li.get_text() for li in page.select("#readoff #cost-notes li")]
    assert notes == [NO_A100]
    twin = client.get("/api/explore", params={**view, **SLO}).json()
    cells = {r["sweep_id"]: r["price_cells"] for r in twin["results"]}
    assert [(c["usd_per_gpu_hour"], c["reason"]) for c in cells[a100]] == [(None, NO_A100)]
    assert [(c["usd_per_gpu_hour"], c["reason"]) for c in cells[h100]] == [(2.0, None)]
    history = soup(client.get("/history", params={**view, **SLO}).text)
    assert NO_A100 in [s.get_text() for s in history.select(".cost-reason")]
    twin = client.get("/api/history", params={**view, **SLO}).json()
    listed = {s["sweep_id"]: s for c in twin["configurations"] for s in c["sweeps"]}
    assert (listed[a100]["costs"], listed[a100]["cost_reasons"]) == ([None], [NO_A100])
    assert listed[h100]["cost_reasons"] == [None]


@pytest.mark.usefixtures("priced")
def test_compare_says_why_a_cost_ratio_with_an_a100_is_unknown(client: TestClient) -> None:
    [h100] = [s["id"] for s in post_files(client, ("o11.csv", O11)).json()["sweeps"]]
    a100 = upload_a100(client)
    params = {"sweep": [h100, a100], "picked": 1, "preset": "custom", "price_set": PRICE_SET}
    [pair] = client.get("/api/compare", params={**params, **SLO}).json()["pairs"]
    name = pair["a"]["name"]
    assert pair["at_slo"]["cost_ratios"] == {SET_LABEL: None}
    assert pair["at_slo"]["cost_reasons"] == {SET_LABEL: f"{name}: {NO_A100}"}
    page = soup(client.get("/compare", params={**params, **SLO}).text)
    cell = page.select_one("#headlines tr.at-slo td.cost-ratio")
    # Said once, below the tables (issue 47): the cell points at the note.
    assert cell.get_text(" ", strip=True) == "– 1"
    assert cell.select_one("sup.cost-note a")["href"] == "#compare-cost-note-1"
    notes = [li.get_text() for li in page.select("#compare-cost-notes li")]
    assert notes == [NO_A100]


@pytest.mark.usefixtures("priced")
def test_the_plan_sizes_the_a100_fleet_but_gives_no_dollars_and_says_why(
    client: TestClient,
) -> None:
    a100 = upload_a100(client)
    query = {"sweep": a100, "price_set": PRICE_SET, "requests_per_s": 10, **SLO}
    body = client.get("/api/plan", params=query).json()
    [r] = body["results"]
    assert r["status"] == "pass" and r["replicas"] is not None
    assert r["costs"] == [] and r["usd_per_month"] is None
    assert r["unpriced"] == [{"label": SET_LABEL, "reason": NO_A100}]
    assert body["cheapest"] is None
    page_query = {
        "sweep": a100,
        "picked": 1,
        "preset": "custom",
        "price_set": PRICE_SET,
        "demand": 10,
        "demand_unit": "requests_per_s",
        **SLO,
    }
    page = soup(client.get("/plan", params=page_query).text)
    costs = page.select_one(f'#plan-table tr[data-sweep="{a100}"] td.costs')
    assert costs.select_one(".cost-reason").get_text() == NO_A100
    assert "see each system's reason below" in page.select_one("#plan-cheapest").get_text()
    twin = page.find("a", string="This plan as JSON")["href"]
    assert client.get(twin).json()["results"][0]["unpriced"] == r["unpriced"]


@pytest.mark.usefixtures("priced")
def test_check_and_plan_print_the_unknown_dollar_line_with_its_reason(
    client: TestClient,
    cli: Callable[..., int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    anyscale, together = upload_pair(client)
    slo = ("--ttft-ms", 1000, "--tpot-ms", 100, "--price-set", PRICE_SET)
    # The two providers name their 70B differently, which check reads as other work.
    slo_check = (*slo, "--allow-different")
    assert cli("check", together, "--baseline", anyscale, *slo_check, "--format", "text") == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        f"$/Mtok ({SET_LABEL}): – -> – unknown: baseline: {NO_A100}; candidate: {NO_A100}"
    ) in lines
    assert cli("check", together, "--baseline", anyscale, *slo_check, "--format", "json") == 0
    [finding] = [
        f for f in json.loads(capsys.readouterr().out)["findings"] if f["figure"] == "usd_per_mtok"
    ]
    assert (finding["baseline"], finding["candidate"], finding["regression"]) == (
        None,
        None,
        False,
    )
    assert cli("plan", anyscale, "--requests-per-s", 10, *slo) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"    $: {NO_A100} · {SET_LABEL}" in lines
    assert "cheapest: none (no system meets the SLO with a price)" in lines


VLLM = sorted((FIXTURES / "vllm").glob("stellalee_openai-*qps-*.json"))


def save_vllm(client: TestClient) -> dict[str, Any]:
    """The real vLLM runs staged and saved as the upload page does, on one H100 each."""
    files = [("files", (p.name, p.read_bytes(), "application/json")) for p in VLLM]
    token = client.post("/api/uploads", files=files).json()["staging"]
    details = {"details": {"hardware": "H100", "num_gpus": 1}}
    saved = client.post(f"/api/uploads/{token}", json=details)
    assert saved.status_code == 201, saved.text
    return dict(saved.json())


@pytest.mark.usefixtures("priced")
def test_open_on_explore_after_an_upload_uses_the_home_pages_slo_preset_and_price_set(
    client: TestClient,
) -> None:
    saved = save_vllm(client)
    link = saved["explore_url"]
    sweep = saved["sweeps"][0]["id"]
    assert link.startswith(f"/?sweep={sweep}&") and link.endswith("&picked=1")
    page = soup(client.get(link).text)
    assert page.select_one("#slo-preset option[selected]")["value"] == "chat-interactive"
    assert page.select_one("#p-set option[selected]")["value"] == PRICE_SET
    said = page.select_one("#explore-defaults")
    assert said.select_one(".default-slo").get_text() == "SLO: Chat (interactive) preset (default)"
    assert said.select_one(".default-prices").get_text() == f"prices: {SET_LABEL} (default)"
    assert "p99 TTFT ≤ 500 ms, p50 TPOT ≤ 40 ms" in page.select_one("#readoff h2").get_text()
    assert SET_LABEL in page.select_one("#readoff-table thead").get_text()
    # The same read-off as the API at the preset's limits and the set's H100 price ($2/GPU-hour).
    api = client.get(
        "/api/readoff",
        params={
            "sweep": sweep,
            "ttft_ms": 500,
            "ttft_percentile": "p99",
            "tpot_ms": 40,
            "tpot_percentile": "p50",
            "price_set": PRICE_SET,
        },
    ).json()["results"][0]
    [cell] = api["price_cells"]
    assert cell["usd_per_gpu_hour"] == 2.0
    row = page.select_one(f'#readoff-table tr[data-sweep="{sweep}"]')
    assert row.select_one("td.verdict")["data-status"] == api["status"]
    assert row.select_one("td.cost").get_text() == fmt_usd(cell["usd_per_mtok"])
    # The JSON twin of the same address reads the same defaults.
    twin = client.get("/api/explore", params={"sweep": sweep, "picked": 1}).json()
    assert twin["slo"]["description"] == "p99 TTFT ≤ 500 ms, p50 TPOT ≤ 40 ms"
    assert [c["label"] for c in twin["price_columns"]] == [SET_LABEL]


@pytest.mark.usefixtures("priced")
def test_explicit_no_limits_and_no_prices_stay_as_chosen(client: TestClient) -> None:
    sweep = save_vllm(client)["sweeps"][0]["id"]
    # The form's "custom limits" with every limit cleared and price set "none".
    page = soup(client.get("/", params={"sweep": sweep, "picked": 1, "preset": "custom"}).text)
    assert page.select_one("#explore-defaults") is None
    assert page.select_one("#slo-preset option[selected]")["value"] == "custom"
    assert page.select_one("#slo-ttft")["value"] == ""
    assert page.select_one("#p-set option[selected]") is None
    assert "$/Mtok" not in page.select_one("#readoff-table thead").get_text()
    # A preset chosen on the page, with price set "none": the prices stay none.
    chosen = {"sweep": sweep, "picked": 1, "preset": "chat-interactive"}
    page = soup(client.get("/", params={**chosen, "applied_preset": "chat-interactive"}).text)
    assert page.select_one("#explore-defaults") is None
    assert "$/Mtok" not in page.select_one("#readoff-table thead").get_text()


@pytest.mark.usefixtures("priced")
def test_the_compare_cost_chart_says_which_system_has_no_price(client: TestClient) -> None:
    # test_compare's overlapping frontiers, B on A100s.
    data = TWO.replace(b"H200", b"A100")
    a, b = [s["id"] for s in post_files(client, ("two.csv", data)).json()["sweeps"]]
    params = {"sweep": [a, b], "picked": 1, "preset": "custom", "price_set": PRICE_SET}
    page = soup(client.get("/compare", params=params).text)
    figure = json.loads(page.select_one("#cost-figure").string)
    assert figure["data"] == []
    [note] = [n for n in figure["layout"]["annotations"] if n.get("name") == "empty-reason"]
    assert note["text"] == f"Nothing to draw: B: {NO_A100}"
