"""Compare against the public record (issue 51): your sweep ÷ a public band of three dated
InferenceX runs at your SLO, with the interval that includes the band's spread, by hand; the
JSON twin and the page say the same. Runs on SQLite and Postgres (it stores and reads sweeps)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers import upload_ids

pytestmark = pytest.mark.postgres_twin

PUBLIC_API = Path(__file__).resolve().parent.parent / "fixtures" / "inferencex"
PUBLIC_FILE = "api_benchmarks_llama70b_h100_tp2.json"
# The Chat preset's limits, stated: p99 TTFT ≤ 500 ms, p50 TPOT ≤ 40 ms.
CHAT = {
    "preset": "custom",
    "ttft_ms": 500,
    "ttft_percentile": "p99",
    "tpot_ms": 40,
    "tpot_percentile": "p50",
}
T_975_2 = 4.302652729911275  # Student's t, 97.5 % quantile, 2 degrees of freedom (a table value)
MINE_HEADER = (
    "sweep,hardware,num_gpus,model,engine,precision,isl,osl,concurrency,ttft_p99_ms,"
    "tpot_p50_ms,output_tok_s\n"
)


def my_public_sweep_csv(heavy: tuple[float, ...]) -> bytes:
    """Your own run of the public configuration: one run at concurrency 8 and repeated runs at
    16, every one inside the Chat limits (TTFT p99 300 ms, TPOT p50 30 ms), 2 GPUs."""
    rows = ["mine,H100,2,llama70b,vllm,fp8,1024,1024,8,250,25,1400\n"]
    rows += [f"mine,H100,2,llama70b,vllm,fp8,1024,1024,16,300,30,{y}\n" for y in heavy]
    return (MINE_HEADER + "".join(rows)).encode()


def against_public_setup(client: TestClient) -> tuple[int, list[int]]:
    public = upload_ids(client, (PUBLIC_FILE, (PUBLIC_API / PUBLIC_FILE).read_bytes()))
    mine = upload_ids(client, ("mine.csv", my_public_sweep_csv((2300.0, 2400.0, 2500.0))))
    return mine[0], public


def compare_public(client: TestClient, ids: list[int], **extra: Any) -> dict[str, Any]:
    response = client.get("/api/compare", params={"sweep": ids, "picked": 1, **CHAT, **extra})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_your_sweep_against_a_band_of_three_dated_runs_by_hand(client: TestClient) -> None:
    mine, public = against_public_setup(client)
    [item] = compare_public(client, [mine, *public])["public_record"]
    band = item["band"]
    assert band["name"] == "llama70b · InferenceX · h100 vllm fp8 · 1024/1024 · TP2"
    assert band["dates"] == 3
    # Per date at the Chat limits (output tok/s per GPU): 03-01 passes at concurrency 16
    # (300 ms, 34 ms) → 1100; 03-08 misses TPOT at 16 (41 ms) and passes at 8 → 720;
    # 03-15 passes at 16 (310 ms, 36 ms) → 1000.
    assert [(r["date"], r["goodput_tok_s_per_gpu"]) for r in band["runs"]] == [
        ("2026-03-01", 1100.0),
        ("2026-03-08", 720.0),
        ("2026-03-15", 1000.0),
    ]
    assert [r["run_id"] for r in band["runs"]] == ["22000000101", "22000000202", "22000000303"]
    assert band["median_tok_s_per_gpu"] == 1000.0
    assert band["spread"] == 1100.0 / 720.0
    assert (band["best_date"], band["latest_date"]) == ("2026-03-01", "2026-03-15")
    assert band["best_is_earlier"] is True and band["best_over_latest"] == 1.1
    # Yours: 3 runs at concurrency 16, 1150, 1200 and 1250 per GPU: their geometric mean, with a
    # t interval on the log scale: exp(mean ± t(0.975, 2) · s / √3) of ln x.
    logs = [math.log(y) for y in (1150.0, 1200.0, 1250.0)]
    mean = sum(logs) / 3
    s = math.sqrt(sum((v - mean) ** 2 for v in logs) / 2)
    half = T_975_2 * s / math.sqrt(3)
    yours, low, high = math.exp(mean), math.exp(mean - half), math.exp(mean + half)
    assert item["yours_goodput_tok_s_per_gpu"] == pytest.approx(yours, rel=1e-9)
    # The rule: yours ÷ median; [your low ÷ the band's highest, your high ÷ its lowest].
    assert item["ratio"] == pytest.approx(yours / 1000.0, rel=1e-9)
    assert item["ratio_low"] == pytest.approx(low / 1100.0, rel=1e-9)
    assert item["ratio_high"] == pytest.approx(high / 720.0, rel=1e-9)
    assert round(item["ratio"], 4) == 1.1993
    assert (round(item["ratio_low"], 4), round(item["ratio_high"], 4)) == (0.983, 1.8475)
    assert [round(r["ratio"], 4) for r in band["runs"]] == [1.0903, 1.6657, 1.1993]
    assert item["yours"] == {"sweep_id": mine, "name": "mine"}
    assert item["reason"] is None and "median" in item["rule"]
    # Its chart: the runs by date, your goodput across them over your interval.
    runs_trace, yours_trace = item["figure"]["data"]
    assert runs_trace["x"] == ["2026-03-01", "2026-03-08", "2026-03-15"]
    assert runs_trace["y"] == [1100.0, 720.0, 1000.0]
    assert yours_trace["x"] == ["2026-03-01", "2026-03-15"]
    assert yours_trace["y"] == [item["yours_goodput_tok_s_per_gpu"]] * 2
    [shade] = item["figure"]["layout"]["shapes"]
    assert (shade["y0"], shade["y1"]) == (
        pytest.approx(low, rel=1e-9),
        pytest.approx(high, rel=1e-9),
    )


def test_the_compare_page_shows_the_band_the_ratio_and_its_interval(client: TestClient) -> None:
    mine, public = against_public_setup(client)
    html = client.get("/compare", params={"sweep": [mine, *public], "picked": 1, **CHAT}).text
    page = BeautifulSoup(html, "html.parser")
    card = page.select_one("#public-record")
    assert card is not None
    ratio = card.select_one(".public-ratio")
    assert ratio is not None
    assert " ".join(ratio.get_text().split()) == (
        "Your goodput is 1.2× the public median (0.983× – 1.85×, including the public "
        "run-to-run spread)."
    )
    rows = card.select("tr.public-run")
    assert [r["data-date"] for r in rows] == ["2026-03-01", "2026-03-08", "2026-03-15"]
    cells = [[td.get_text(strip=True) for td in r.select("td")] for r in rows]
    assert cells[1] == ["2026-03-08", "22000000202", "720", "1.67×"]
    link = rows[2].select_one("a")
    assert link is not None and link["href"].endswith("/runs/22000000303/attempts/1")
    shade = card.select_one(".public-shade-note")
    assert shade is not None and shade.get_text() == "Shaded: your goodput's 95 % interval."
    spread = card.select_one(".public-spread")
    assert spread is not None and "earlier than the latest (2026-03-15), by 1.1×" in spread.text


def test_no_public_run_in_the_selection_means_no_public_record(client: TestClient) -> None:
    mine = upload_ids(client, ("mine.csv", my_public_sweep_csv((2300.0,))))
    other = upload_ids(client, ("other.csv", my_public_sweep_csv((2000.0,)).replace(b"mine", b"b")))
    body = compare_public(client, [mine[0], other[0]])
    assert body["public_record"] is None
    page = client.get("/compare", params={"sweep": [mine[0], other[0]], "picked": 1, **CHAT})
    assert BeautifulSoup(page.text, "html.parser").select_one("#public-record") is None


def test_public_runs_alone_show_the_band_and_ask_for_your_sweep(client: TestClient) -> None:
    _, public = against_public_setup(client)
    [item] = compare_public(client, public)["public_record"]
    assert item["yours"] is None and item["ratio"] is None
    assert item["reason"] == "tick one of your own sweeps beside the public runs"
    assert item["band"]["spread"] == 1100.0 / 720.0


def test_a_date_without_goodput_at_a_tighter_slo_is_listed_and_left_out(client: TestClient) -> None:
    mine, public = against_public_setup(client)
    # TPOT ≤ 26 ms: 03-01 passes at 8 (25 ms) → 700; 03-08 at 4 (21 ms) → 390; 03-15 at 8
    # (26 ms) → 710. Yours: concurrency 8 (25 ms) → 700, one run: no interval of its own.
    tighter = {**CHAT, "tpot_ms": 26}
    response = client.get("/api/compare", params={"sweep": [mine, *public], "picked": 1, **tighter})
    [item] = response.json()["public_record"]
    assert [r["goodput_tok_s_per_gpu"] for r in item["band"]["runs"]] == [700.0, 390.0, 710.0]
    assert item["ratio"] == 700.0 / 700.0
    assert (item["ratio_low"], item["ratio_high"]) == (700.0 / 710.0, 700.0 / 390.0)
    # TTFT ≤ 110 ms: no public point meets it (the fastest p99 is 120 ms).
    none_pass = {**CHAT, "ttft_ms": 110}
    response = client.get(
        "/api/compare", params={"sweep": [mine, *public], "picked": 1, **none_pass}
    )
    [item] = response.json()["public_record"]
    assert item["ratio"] is None
    assert item["reason"] == "no dated run of the public record has a goodput at this SLO"
    assert all(r["reason"] for r in item["band"]["runs"])
    notes = [a["text"] for a in item["figure"]["layout"]["annotations"]]
    assert notes == [f"Nothing to draw: {item['reason']}"]


def test_the_sweep_page_links_its_run_and_never_a_script_address(client: TestClient) -> None:
    _, public = against_public_setup(client)
    page = BeautifulSoup(client.get(f"/sweeps/{public[1]}").text, "html.parser")
    run = page.select_one("#meta-run")
    assert run is not None
    link = run.select_one("a")
    assert link is not None and link.get_text() == "22000000202"
    assert (
        link["href"]
        == "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/22000000202/attempts/1"
    )
    assert "image vllm/vllm-openai:v0.18.0" in run.get_text()
    # A run URL is data: one that is not http(s) is shown as text, never linked.
    edited = client.patch(f"/api/sweeps/{public[1]}", json={"run_url": "javascript:alert(1)"})
    assert edited.status_code == 200, edited.text
    page = BeautifulSoup(client.get(f"/sweeps/{public[1]}").text, "html.parser")
    run = page.select_one("#meta-run")
    assert run is not None and run.select_one("a") is None
    compare = client.get("/compare", params={"sweep": public, "picked": 1, **CHAT}).text
    rows = BeautifulSoup(compare, "html.parser").select("#public-record tr.public-run")
    assert rows[1].select_one("a") is None and rows[2].select_one("a") is not None


def test_the_metrics_page_states_the_public_band_rule(client: TestClient) -> None:
    page = BeautifulSoup(client.get("/metrics").text, "html.parser")
    entry = page.select_one("#public-band")
    assert entry is not None
    text = " ".join(entry.get_text().split())
    assert "ratio = G ÷ median(g₁ … gₙ); interval = [G_low ÷ max gᵢ, G_high ÷ min gᵢ]" in text
    assert "run-to-run noise" in text


REAL_HISTORY = "benchmarks_history_dsr1_mi355x_sglang_fp4_tp4_1k1k.json"
# A reasoning-style SLO the real DeepSeek-R1 1k/1k runs on MI355X can meet (their p99 TTFT is
# 1.3–9.9 s): p99 TTFT ≤ 5 s, p50 TPOT ≤ 40 ms.
REASONING = {**CHAT, "ttft_ms": 5000}


def test_a_band_of_three_real_nightly_runs_against_your_sweep_by_hand(client: TestClient) -> None:
    public = upload_ids(client, (REAL_HISTORY, (PUBLIC_API / REAL_HISTORY).read_bytes()))
    header = MINE_HEADER.encode()
    mine_csv = header + b"".join(
        f"mine-r1,MI355X,4,dsr1,sglang,fp4,1024,1024,32,2500,30,{y}\n".encode()
        for y in (1000.0, 1100.0)
    )
    [mine] = upload_ids(client, ("mine-r1.csv", mine_csv))
    [item] = compare_public(client, [mine, *public], **REASONING)["public_record"]
    runs = item["band"]["runs"]
    # Each date's goodput is the file's own output_tput_per_gpu at its heaviest load inside the
    # SLO: 2025-12-11 at concurrency 8 (16 misses TPOT: 42.5 ms), 2025-12-12 at 16 (32: 50.7
    # ms), 2025-12-13 at 64 (p99 TTFT 4.35 s, TPOT 37.9 ms).
    assert [(r["date"], r["run_id"], r["goodput_tok_s_per_gpu"]) for r in runs] == [
        ("2025-12-11", "20117712794", 60.51757147356053),
        ("2025-12-12", "20151920609", 109.69739941355992),
        ("2025-12-13", "20183691426", 411.2796901208846),
    ]
    band = item["band"]
    assert band["median_tok_s_per_gpu"] == 109.69739941355992
    assert band["spread"] == 411.2796901208846 / 60.51757147356053  # 6.80×: the nightly spread
    assert band["best_is_earlier"] is False and band["best_date"] == "2025-12-13"
    # Yours: two runs at concurrency 32, 250 and 275 per GPU: geometric mean √(250·275), with
    # t(0.975, 1) = 12.7062 on the log scale: exp(mean ± 12.7062 · s / √2),
    # s = |ln 275 − ln 250| / √2.
    yours = math.sqrt(250.0 * 275.0)
    half = 12.706204736174698 * abs(math.log(275.0) - math.log(250.0)) / math.sqrt(2) / math.sqrt(2)
    low, high = yours * math.exp(-half), yours * math.exp(half)
    assert item["yours_goodput_tok_s_per_gpu"] == pytest.approx(yours, rel=1e-9)
    assert item["ratio"] == pytest.approx(yours / 109.69739941355992, rel=1e-9)
    assert item["ratio_low"] == pytest.approx(low / 411.2796901208846, rel=1e-9)
    assert item["ratio_high"] == pytest.approx(high / 60.51757147356053, rel=1e-9)
    assert [round(r["ratio"], 3) for r in runs] == [4.333, 2.39, 0.638]


def test_history_draws_the_real_public_runs_as_one_configuration_by_date(
    client: TestClient,
) -> None:
    public = upload_ids(client, (REAL_HISTORY, (PUBLIC_API / REAL_HISTORY).read_bytes()))
    params = {"sweep": public, "picked": 1, **REASONING}
    body = client.get("/api/history", params=params).json()
    [config] = body["configurations"]
    assert [(s["date"], s["date_source"]) for s in config["sweeps"]] == [
        ("2025-12-11", "measured"),
        ("2025-12-12", "measured"),
        ("2025-12-13", "measured"),
    ]
    assert [s["goodput_tok_s_per_gpu"] for s in config["sweeps"]] == [
        60.51757147356053,
        109.69739941355992,
        411.2796901208846,
    ]


def test_the_offline_compare_report_carries_the_public_record(client: TestClient) -> None:
    mine, public = against_public_setup(client)
    params = {"view": "compare", "sweep": [mine, *public], "picked": 1, **CHAT}
    report = client.get("/report", params=params)
    assert report.status_code == 200, report.text
    card = BeautifulSoup(report.text, "html.parser").select_one("#public-record .public-ratio")
    assert card is not None and "1.2× the public median" in card.get_text()
