"""SLO attainment read off the MLCommons endpoints client's histograms (issue 51): shares under
a limit as bounds when the limit falls between bucket bounds, in the read-off and on the sweep
page, never as one value. Numbers by hand from the real file's buckets
(tests/fixtures/mlperf/SOURCES.md): TTFT buckets end at …, 474.24 ms (597,035 requests at or
below), 534.12 ms (597,301); TPOT at …, 38.19 ms (209,821), 41.24 ms (305,037), 48.08 ms
(590,639), 51.92 ms (600,000); 600,000 requests, none failed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.histogram_attainment import histogram_attainment, point_histograms
from app.store.models import SloPreset
from tests.helpers import parse, soup, upload_id

ENDPOINTS = (
    Path(__file__).parent.parent
    / "fixtures"
    / "mlperf"
    / "endpoints_result_summary_VR-NVL72_deepseek-r1_Server_v6.1.json"
)
N = 600000


def endpoints() -> tuple[str, bytes]:
    return ENDPOINTS.name, ENDPOINTS.read_bytes()


def test_a_limit_between_bucket_bounds_gives_the_counts_around_it_and_fréchet_for_both() -> None:
    [sweep] = parse(endpoints(), hardware="RUBIN", num_gpus=72)
    histograms = point_histograms(sweep.points[0].extra)
    assert sorted(histograms) == ["e2el", "tpot", "ttft"]
    found = histogram_attainment(histograms, [("ttft", 500.0), ("tpot", 40.0)], 0.9)
    assert found is not None
    ttft, tpot = found.limits
    assert (ttft.lower, ttft.upper) == (597035 / N, 597301 / N)
    assert (tpot.lower, tpot.upper) == (209821 / N, 305037 / N)
    assert not ttft.exact and not tpot.exact
    # Both at once: max(0, Σ lower − 1) to min upper.
    assert found.lower == pytest.approx((597035 + 209821 - N) / N, abs=1e-15)
    assert found.upper == 305037 / N
    assert found.verdict == "fail"  # even the upper bound, 50.8 %, misses 90 %


def test_bounds_that_straddle_the_target_are_unknown_and_above_it_pass() -> None:
    [sweep] = parse(endpoints(), hardware="RUBIN", num_gpus=72)
    histograms = point_histograms(sweep.points[0].extra)
    limits = [("ttft", 500.0), ("tpot", 50.0)]
    passing = histogram_attainment(histograms, limits, 0.9)
    assert passing is not None
    assert passing.lower == pytest.approx((597035 + 590639 - N) / N, abs=1e-15)  # 97.95 %
    assert passing.upper == 597301 / N  # 99.55 %
    assert passing.verdict == "pass"
    straddling = histogram_attainment(histograms, limits, 0.99)
    assert straddling is not None and straddling.verdict == "unknown"
    # A limit on a bucket bound reads exactly.
    bound = histograms["tpot"][0][18]
    exact = histogram_attainment(histograms, [("tpot", bound)], 0.9)
    assert exact is not None and exact.limits[0].exact
    assert exact.lower == exact.upper == 590639 / N


def test_failed_requests_count_as_misses_and_a_metric_without_a_histogram_reads_nothing() -> None:
    [sweep] = parse(endpoints(), hardware="RUBIN", num_gpus=72)
    histograms = point_histograms(sweep.points[0].extra)
    with_failed = histogram_attainment(histograms, [("ttft", 500.0)], 0.9, failed=400000)
    assert with_failed is not None and with_failed.issued == 1_000_000
    assert (with_failed.lower, with_failed.upper) == (597035 / 1e6, 597301 / 1e6)
    assert histogram_attainment({"ttft": histograms["ttft"]}, [("tpot", 40.0)], 0.9) is None
    assert histogram_attainment(histograms, [], 0.9) is None


def read_at_slo(client: TestClient, sweep_id: int, **params: Any) -> dict[str, Any]:
    answer = client.get("/api/readoff", params={"sweep": sweep_id, **params})
    assert answer.status_code == 200, answer.text
    [result] = answer.json()["results"]
    return dict(result)


def test_the_readoff_api_gives_the_histogram_bounds_never_one_value(
    client: TestClient, catalog: None
) -> None:
    sweep_id = upload_id(client, endpoints(), hardware="RUBIN", num_gpus=72)
    result = read_at_slo(client, sweep_id, ttft_ms=500, tpot_ms=40, attainment=0.9)
    [row] = result["histogram_attainment"]
    assert (row["attainment_low"], row["attainment_high"]) == pytest.approx(
        ((597035 + 209821 - N) / N, 305037 / N), abs=1e-15
    )
    assert row["text"] == "between 34.48 % and 50.84 %"
    assert (row["verdict"], row["target"], row["issued"]) == ("fail", 0.9, N)
    ttft, tpot = row["limits"]
    assert (ttft["metric"], ttft["limit_ms"], ttft["exact"]) == ("ttft", 500.0, False)
    assert (ttft["share_low"], ttft["share_high"]) == (597035 / N, 597301 / N)
    assert ttft["text"] == "between 99.51 % and 99.55 %"
    assert (tpot["share_low"], tpot["share_high"]) == (209821 / N, 305037 / N)
    assert "attainment" not in ttft and "share" not in row  # bounds only, no single value


def test_a_sweep_without_histograms_has_no_histogram_attainment_key(
    client: TestClient, catalog: None
) -> None:
    csv = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p99_ms,output_tok_s\n"
        b"x,H100,8,8,20,100,1000\n"
    )
    sweep_id = upload_id(client, ("x.csv", csv))
    assert "histogram_attainment" not in read_at_slo(client, sweep_id, ttft_ms=500, tpot_ms=40)


def test_the_sweep_page_shows_the_bounds_at_the_default_slo(
    client: TestClient, session: Session, catalog: None
) -> None:
    session.add(
        SloPreset(
            key="chat-interactive",
            name="Chat (interactive)",
            ttft_ms=500,
            tpot_ms=40,
            ttft_percentile="p99",
            tpot_percentile="p50",
            attainment=0.9,
        )
    )
    session.commit()
    sweep_id = upload_id(client, endpoints(), hardware="RUBIN", num_gpus=72)
    page = soup(client.get(f"/sweeps/{sweep_id}"), expect=200)
    section = page.select_one("#histogram-attainment")
    assert section is not None
    cells = [td.get_text(" ", strip=True) for td in section.select("tbody tr td")]
    # The Chat (interactive) preset: TTFT ≤ 500 ms, TPOT ≤ 40 ms, 90 % of requests.
    assert "between 99.51 % and 99.55 %" in cells
    assert "between 34.97 % and 50.84 %" in cells  # TPOT
    assert "between 34.48 % and 50.84 %" in cells  # both at once
    api = client.get(f"/api/sweeps/{sweep_id}").json()
    [row] = api["histogram_attainment"]["points"]
    assert row["text"] == "between 34.48 % and 50.84 %"
    assert api["histogram_attainment"]["slo"] == "Chat (interactive)"
