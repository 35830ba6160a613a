"""Their figure beside ours for what a tool states over several runs or weighted by tokens
(issue 51): AIPerf's multi-run `aggregate` (statistics of run-level values: the per-run rule)
and `collated` (every run's requests pooled: the pooled rule), and guidellm's TPOT, its
inter-token latency weighted by tokens. Differences beyond rounding no rule explains are
flagged.

The AIPerf runs are the real wellflat export (../shared/fixtures/aiperf/SOURCES.md) as run 1
and the same export with its TTFT, ITL and request-latency statistics × 1.1 as run 2; the
aggregate and collated files are built here in the shapes ai-dynamo/aiperf documents
("independent schema versions": `metrics.<key>` {mean, std, min, max, …, unit} with
`metadata.aggregation_type` "confidence"; `metrics.<tag>.combined` {mean, p50, p90, p95, p99,
count} with "detailed")."""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import pytest
from fastapi.testclient import TestClient

from app.domain.stated_figures import (
    PER_RUN_RULE,
    PERCENTILE_RULE,
    POOLED_RULE,
    TOKEN_WEIGHTED_RULE,
)
from app.ingest import IngestError
from app.services.sweeps.stated_figures import point_figures
from app.store.point_blocks import StoredPoint
from tests.conftest import FIXTURES
from tests.factories import post_files
from tests.helpers import parse

RUN = FIXTURES / "aiperf" / "wellflat_k8s-dev_profile_export_aiperf.json"
ROOT = "artifacts/gpt-oss-20b-concurrency1"
SCALED = ("time_to_first_token", "inter_token_latency", "request_latency")


def aiperf_runs() -> list[tuple[str, bytes]]:
    first = json.loads(RUN.read_bytes())
    second = json.loads(RUN.read_bytes())
    for key in SCALED:
        second[key] = {k: v * 1.1 if isinstance(v, float) else v for k, v in second[key].items()}
    return [
        (f"{ROOT}/profile_runs/run_0001/profile_export_aiperf.json", json.dumps(first).encode()),
        (f"{ROOT}/profile_runs/run_0002/profile_export_aiperf.json", json.dumps(second).encode()),
    ]


def ttft(stat: str) -> tuple[float, float]:
    value = float(json.loads(RUN.read_bytes())["time_to_first_token"][stat])
    return value, value * 1.1


def aggregate() -> tuple[str, bytes]:
    p99 = sum(ttft("p99")) / 2
    doc = {
        "schema_version": "1.0",
        "aiperf_version": "0.6.0",
        "metadata": {"aggregation_type": "confidence", "num_successful_runs": 2},
        "metrics": {
            # 4 decimals, as AIPerf rounds: agrees with the runs' own mean.
            "ttft_p99_ms": {"mean": round(p99, 4), "min": ttft("p99")[0], "unit": "ms"},
            # A mean over runs no mean of the runs' p50s gives: flagged.
            "time_to_first_token_p50": {"mean": 90.0, "unit": "ms"},
        },
    }
    return f"{ROOT}/aggregate/profile_export_aiperf_aggregate.json", json.dumps(doc).encode()


def collated() -> tuple[str, bytes]:
    low, high = ttft("p99")
    doc = {
        "schema_version": "1.0.0",
        "metadata": {"aggregation_type": "detailed", "num_successful_runs": 2},
        "metrics": {
            "time_to_first_token": {
                # The pool's p99 inside the runs' range: explained; its p50 far outside: flagged.
                "combined": {"p99": low + 0.25 * (high - low), "p50": 95.0, "count": 20},
            }
        },
    }
    return f"{ROOT}/aggregate/profile_export_aiperf_collated.json", json.dumps(doc).encode()


def stated_rows(client: TestClient, *files: tuple[str, bytes]) -> list[dict[str, Any]]:
    response = post_files(client, *files, hardware="H100", num_gpus=1)
    assert response.status_code in (200, 201), response.text
    first = min(s["id"] for s in response.json()["sweeps"])
    rows: list[dict[str, Any]] = client.get(f"/api/sweeps/{first}").json()["stated_figures"]
    return rows


def figure_of(rows: list[dict[str, Any]], figure: str) -> dict[str, Any]:
    [row] = [r for r in rows if r["figure"] == figure]
    return row


def test_aiperfs_aggregate_is_the_mean_of_the_runs_own_figures(client: TestClient) -> None:
    rows = stated_rows(client, *aiperf_runs(), aggregate())
    low, high = ttft("p99")
    p99 = figure_of(rows, "TTFT p99 (aggregate: mean of 2 runs)")
    assert p99["theirs"] == round((low + high) / 2, 4)
    assert p99["ours"] == pytest.approx((low + high) / 2, rel=1e-12)
    assert (p99["status"], p99["rule"]) == ("agrees", PER_RUN_RULE)
    p50 = figure_of(rows, "TTFT p50 (aggregate: mean of 2 runs)")
    assert p50["ours"] == pytest.approx(sum(ttft("p50")) / 2, rel=1e-12)
    assert (p50["status"], p50["rule"]) == ("flagged", PER_RUN_RULE)


def test_aiperfs_collated_figure_pools_the_runs_and_lies_within_their_range(
    client: TestClient,
) -> None:
    rows = stated_rows(client, *aiperf_runs(), collated())
    low, high = ttft("p99")
    p99 = figure_of(rows, "TTFT p99 (collated: pooled over 2 runs)")
    assert p99["theirs"] == pytest.approx(low + 0.25 * (high - low), rel=1e-12)
    assert p99["ours"] == pytest.approx((low + high) / 2, rel=1e-12)
    assert (p99["status"], p99["rule"]) == ("explained", POOLED_RULE)
    assert p99["difference_pct"] == pytest.approx(
        ((low + high) / 2 - p99["theirs"]) / p99["theirs"] * 100, rel=1e-9
    )
    p50 = figure_of(rows, "TTFT p50 (collated: pooled over 2 runs)")
    assert (p50["status"], p50["theirs"]) == ("flagged", 95.0)


def test_an_aggregate_without_its_runs_is_refused_naming_the_file() -> None:
    with pytest.raises(IngestError, match="profile_export_aiperf.json"):
        parse(aggregate(), hardware="H100", num_gpus=1)
    # A run of another artifact directory is not one of its runs.
    other = ("other/profile_runs/run_0001/profile_export_aiperf.json", RUN.read_bytes())
    with pytest.raises(IngestError, match="states statistics of its runs"):
        parse(aggregate(), other, hardware="H100", num_gpus=1)


def _point(extra: dict[str, Any], tpot_p50_ms: float) -> StoredPoint:
    return StoredPoint(1, 1, 0, concurrency=4, tpot_p50_ms=tpot_p50_ms, extra=extra)


# Three requests, TTFT 100 ms: TPOT 10 ms over 2 tokens, 25 ms over 11, 15 ms over 3. Counted
# once each, the median TPOT is 15 ms; counted once per token after the first (weights 1, 10,
# 2 of 13), the first value reaching half the weight is 25 ms.
SAMPLES = pl.DataFrame(
    {
        "point_id": [1, 1, 1],
        "ttft_ms": [100.0, 100.0, 100.0],
        "e2el_ms": [110.0, 350.0, 130.0],
        "output_len": [2, 11, 3],
        "input_len": [10, 10, 10],
        "ok": [True, True, True],
    }
)
GUIDELLM_EXTRA = {
    "tpot_source": "guidellm inter_token_latency_ms",
    "guidellm_time_per_output_token_ms": {},
}


def test_guidellms_tpot_is_token_weighted_inter_token_latency() -> None:
    [row] = point_figures(_point(GUIDELLM_EXTRA, 25.0), SAMPLES)
    assert (row.figure, row.theirs, row.ours) == ("TPOT p50", 25.0, 15.0)
    assert (row.status, row.rule) == ("explained", TOKEN_WEIGHTED_RULE)


def test_another_tools_tpot_keeps_the_percentile_rule() -> None:
    [row] = point_figures(_point({}, 25.0), SAMPLES)
    assert (row.figure, row.status, row.rule) == ("TPOT p50", "explained", PERCENTILE_RULE)
