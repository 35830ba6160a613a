"""Issue 30 §5: a percentile the file stores answers before samples, at every percentile, and a
metric's percentiles never fall as the percentile rises, on every real fixture as stored.

The values checked are those a read-off compares: the stored statistic (columns p50/p90/p95/p99
and the others the file keeps, e.g. guidellm's p75 and p99.9), else the request samples'
percentile, unless that contradicts a stored one (then the stored one bounds it and the value
is unknown, see app.domain.verdict.Bound).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.point import METRICS, PointMetrics
from app.domain.sample_percentiles import sample_percentiles
from app.domain.verdict import PERCENTILE_CHOICES, percentile_percent, value_ms
from app.store import points as point_queries
from tests.conftest import FIXTURES
from tests.ingest.test_all_fixtures import FIELDS, FOLDERS, multipart
from tests.ingest.test_guidellm_window import window_report

# Every percentile the forms offer, every stored one of the fixtures, and some between.
ASKED = sorted({*PERCENTILE_CHOICES, "p60", "p80", "p85", "p97.5", "p99.5"}, key=percentile_percent)


def stored_sweeps(client: TestClient, session: Session, files: list[Any]) -> list[Any]:
    response = client.post("/api/sweeps", files=files, data=FIELDS)
    assert response.status_code == 201, response.text
    ids = [int(s["id"]) for s in response.json()["sweeps"]]
    return point_queries.sweeps_with_points(session, ids)


def used_values(session: Session, sweeps: list[Any]) -> dict[tuple[int, str], list[Any]]:
    """Per (point id, metric): (percentile, value the read-off compares) over ASKED."""
    samples = point_queries.sweeps_samples(session, sweeps)
    out: dict[tuple[int, str], list[Any]] = {}
    for sweep in sweeps:
        frame = samples.get(int(sweep.meta.id))
        wanted = [(m, p) for m in METRICS for p in ASKED]
        by_point = sample_percentiles(frame, wanted) if frame is not None else {}
        for row in sweep.rows:
            point = PointMetrics.from_row({**row, "num_gpus": sweep.meta.num_gpus})
            for metric in METRICS:
                values = [
                    (p, value_ms(point, metric, p, by_point.get(point.point_id))) for p in ASKED
                ]
                out[(point.point_id, metric)] = values
    return out


def falls(values: list[tuple[str, float | None]]) -> list[str]:
    known = [(p, v) for p, v in values if v is not None]
    pairs = zip(known, known[1:], strict=False)
    return [f"{a} {va} > {b} {vb}" for (a, va), (b, vb) in pairs if va > vb]


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_fixtures_percentiles_never_fall_as_the_percentile_rises(
    client: TestClient, session: Session, folder: str
) -> None:
    sweeps = stored_sweeps(client, session, multipart(folder))
    values = used_values(session, sweeps)
    assert values
    broken = {key: falls(v) for key, v in values.items() if falls(v)}
    assert broken == {}
    # Each point and metric the file measured has at least its stored percentiles.
    assert any(v is not None for series in values.values() for _, v in series)


def test_guidellm_p75_and_p99_9_are_the_files_own_after_storing(
    client: TestClient, session: Session
) -> None:
    [sweep] = stored_sweeps(client, session, multipart("guidellm"))
    values = used_values(session, [sweep])
    doc = json.loads(
        (FIXTURES / "guidellm" / "llm-d-benchmark_guidellm_report_v2.json").read_bytes()
    )
    first = doc["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]["percentiles"]
    point_id = int(sweep.rows[0]["point_id"])
    ttft = dict(values[(point_id, "ttft")])
    assert (ttft["p75"], ttft["p99.9"]) == (first["p75"], first["p999"])
    assert (ttft["p75"], ttft["p99.9"]) == (11.686325073242188, 11.686325073242188)
    # p80 is neither stored nor sampled (the report lists no requests): unknown.
    assert ttft["p80"] is None


def readoff_check(client: TestClient, sweep: int, **params: Any) -> dict[str, Any]:
    body = client.get("/api/readoff", params={"sweep": sweep, "points": True, **params}).json()
    result: dict[str, Any] = body["results"][0]
    return result


def test_a_stored_p99_9_answers_before_the_samples_so_p99_9_is_never_laxer_than_p99(
    client: TestClient,
) -> None:
    """The issue's case: guidellm stores p99 2,600 ms and p99.9 2,700 ms; its 25 samples (24 at
    150 ms, one at 2,500) would give p99.9 = 150 + 0.976 × 2,350 = 2,443.6 ms."""
    doc = window_report()
    stats = doc["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]
    stats["percentiles"].update(p99=2600.0, p999=2700.0)
    stats["max"] = 2700.0  # a max below the p99.9 would be refused as impossible
    latency = doc["benchmarks"][0]["metrics"]["request_latency"]["successful"]
    latency["percentiles"].update(p99=120.0, p999=120.0)  # seconds: every request took 120 s
    latency["max"] = 120.0
    response = client.post(
        "/api/sweeps",
        files=[("files", ("benchmarks.json", json.dumps(doc).encode(), "application/json"))],
        data={"hardware": "H100", "num_gpus": "1"},
    )
    assert response.status_code == 201, response.text
    sweep = response.json()["sweeps"][0]["id"]
    p99 = readoff_check(client, sweep, ttft_ms=2550, ttft_percentile="p99")["points"][0]
    tail = readoff_check(client, sweep, ttft_ms=2550, ttft_percentile="p99.9")["points"][0]
    assert (p99["status"], tail["status"]) == ("fail", "fail")
    [check] = tail["checks"]
    assert (check["value_ms"], check["source"]) == (2700.0, "stored")
    # p99.5 is stored nowhere: its 25 samples give 150 + 0.88 × 2,350 = 2,218 ms, below the
    # stored p99, so the stored p99 bounds it: p99.5 ≥ 2,600 ms > 2,550 ms fails.
    [mid] = readoff_check(client, sweep, ttft_ms=2550, ttft_percentile="p99.5")["points"][0][
        "checks"
    ]
    assert (mid["status"], mid["value_ms"], mid["source"]) == ("fail", None, "bound")
    assert mid["bound"] == {
        "stored_percentile": "p99",
        "stored_ms": 2600.0,
        "samples_ms": pytest.approx(2218.0),
        "side": "at_least",
    }


def test_samples_that_contradict_a_stored_percentile_give_a_bound_or_unknown_never_a_mix(
    client: TestClient,
) -> None:
    """LLMPerf's anyscale summary with its p99 (and max) TTFT raised to 3 s: its 150 request samples
    then give a p99.9 below the stored p99. The stored p99 says p99.9 ≥ 3,000 ms."""
    names = ("summary_anyscale_70b.json", "individual_anyscale_70b.json")
    summary = json.loads((FIXTURES / "llmperf" / names[0]).read_bytes())
    raised = copy.deepcopy(summary)
    raised["results_ttft_s_quantiles_p99"] = 3.0
    raised["results_ttft_s_max"] = 3.0  # a p99 above the file's own max is refused (issue 46)
    files = [
        ("files", (names[0], json.dumps(raised).encode(), "application/json")),
        ("files", (names[1], (FIXTURES / "llmperf" / names[1]).read_bytes(), "application/json")),
    ]
    response = client.post("/api/sweeps", files=files, data={"hardware": "A100", "num_gpus": "4"})
    assert response.status_code == 201, response.text
    sweep = response.json()["sweeps"][0]["id"]
    # A limit the bound breaks: a certain fail, said with both numbers.
    failed = readoff_check(client, sweep, ttft_ms=2000, ttft_percentile="p99.9")
    [check] = failed["points"][0]["checks"]
    assert (failed["status"], check["status"], check["source"]) == ("fail", "fail", "bound")
    # numpy.percentile(ttfts, 99.9) of the 150 requests: 577.69 ms.
    assert check["bound"]["samples_ms"] == pytest.approx(577.6931527560212)
    assert failed["points"][0]["reason"] == (
        "p99.9 TTFT ≥ 3,000 ms (the file's p99) > 2,000 ms; the request samples give 578 ms, "
        "below the file's own p99 of 3,000 ms, so they are not used"
    )
    # A limit the bound meets: unknown, with the reason, never a pass from the samples.
    unknown = readoff_check(client, sweep, ttft_ms=5000, ttft_percentile="p99.9")
    assert (unknown["status"], unknown["meets_slo"]) == ("unknown", None)
    assert unknown["points"][0]["reason"].endswith(
        "; the file's p99 only says p99.9 TTFT ≥ 3,000 ms"
    )
    assert "1 point unknown: p99.9 TTFT unknown: the request samples give" in unknown["reason"]
    # The looser p99 is the file's own: it passes that limit.
    assert readoff_check(client, sweep, ttft_ms=5000, ttft_percentile="p99")["status"] == "pass"


@pytest.mark.parametrize(
    ("folder", "ttft_p75_ms", "tpot_p75_ms"),
    [
        ("genai-perf", 2096.0840515, 7.746878),
        ("aiperf", 83.93441349999999, 18.20660692957395),
    ],
)
def test_the_p75_genai_perf_and_aiperf_store_answers_a_p75_read_off(
    client: TestClient, session: Session, folder: str, ttft_p75_ms: float, tpot_p75_ms: float
) -> None:
    [sweep] = stored_sweeps(client, session, multipart(folder))
    params = {"sweep": sweep.meta.id, "ttft_ms": 5000, "percentile": "p75", "points": True}
    [result] = client.get("/api/readoff", params=params).json()["results"]
    [check] = result["points"][0]["checks"]
    assert (check["value_ms"], check["source"]) == (ttft_p75_ms, "stored")
    point_id = int(sweep.rows[0]["point_id"])
    tpot = dict(used_values(session, [sweep])[(point_id, "tpot")])
    assert tpot["p75"] == tpot_p75_ms


def test_a_canonical_files_own_p99_9_column_answers_a_p99_9_read_off(client: TestClient) -> None:
    data = (
        b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,ttft_p99_ms,ttft_p99.9_ms,output_tok_s\n"
        b"c,H100,1,8,20,400,650,1000\n"
    )
    response = client.post("/api/sweeps", files=[("files", ("c.csv", data, "text/csv"))])
    assert response.status_code == 201, response.text
    sweep = response.json()["sweeps"][0]["id"]
    [check] = readoff_check(client, sweep, ttft_ms=600, ttft_percentile="p99.9")["points"][0][
        "checks"
    ]
    assert (check["value_ms"], check["source"], check["status"]) == (650.0, "stored", "fail")
