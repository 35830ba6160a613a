"""POST /api/check, the JSON twin of `paretoscope check`, and History's regression marks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.gate_ratio import ONE_RUN_GATE
from app.store.models import SweepCheck
from tests.factories import count
from tests.scaled import GOODPUT, scaled

SLO = {"ttft_ms": 400, "ttft_percentile": "p99", "tpot_ms": 20, "tpot_percentile": "p50"}


def upload_scaled(
    client: TestClient, tmp_path: Any, label: str, tags: str = "", **scale: float
) -> int:
    files = [("files", (name, body, "application/json")) for name, body in scaled(label, **scale)]
    data = {"hardware": "RTX4090", "num_gpus": "1", "sweep": label, "tags": tags}
    response = client.post("/api/sweeps", files=files, data=data)
    assert response.status_code == 201, response.text
    sweep_id: int = response.json()["sweeps"][0]["id"]
    return sweep_id


def check(client: TestClient, candidate: str, **options: Any) -> Any:
    body = {"candidate": candidate, "baseline": "baseline:main", **SLO, **options}
    return client.post("/api/check", json=body)


def test_the_api_gives_the_verdict_with_what_moved_and_stores_the_check(
    client: TestClient, tmp_path: Any, session: Session
) -> None:
    upload_scaled(client, tmp_path, "main", "baseline:main")
    upload_scaled(client, tmp_path, "slower", "nightly", throughput=0.8)
    upload_scaled(client, tmp_path, "faster", throughput=1.25)
    slow = check(client, "nightly", usd_per_gpu_hour=0.5)
    assert slow.status_code == 200, slow.text
    doc = slow.json()
    assert doc["verdict"] == "regression"
    assert doc["regressions"] == ["goodput", "$0.5/GPU-hour"]
    # One run a load: no ratio interval, and the verdict says the tolerance alone decided it.
    assert doc["headline"] == (
        "regression: goodput -20 %, $/Mtok ($0.5/GPU-hour) +25 % (tolerance alone; one run "
        "cannot separate noise: record 3 or more runs per load)"
    )
    goodput = doc["findings"][1]
    assert (goodput["baseline"], goodput["candidate"]) == (GOODPUT, pytest.approx(GOODPUT * 0.8))
    assert goodput["change"] == pytest.approx(-0.2)
    assert goodput["ratio"] == {
        "value": pytest.approx(0.8),
        "ci_low": None,
        "ci_high": None,
        "ci_level": 0.98,
        "ci_method": None,
        "ci_reason": ONE_RUN_GATE,
        "paired": False,
        "n_baseline": 1,
        "n_candidate": 1,
    }
    assert goodput["baseline_interval"] is None  # percentile mode, one run per load: none
    assert doc["candidate"]["operating_point"]["request_rate"] == 4.0
    assert doc["compare_url"].startswith("http://testserver/compare?sweep=1&sweep=2&picked=1")
    assert doc["summary"].startswith("### Paretoscope check: **regression**\n")
    fast = check(client, "faster", usd_per_gpu_hour=0.5).json()
    assert (fast["verdict"], fast["headline"]) == (
        "pass",
        f"pass: no regression beyond 5 % (goodput +25 %; {ONE_RUN_GATE})",
    )
    stored = [(c.id, c.candidate_ref, c.verdict) for c in session.query(SweepCheck)]
    assert stored == [
        (doc["check_id"], "nightly", "regression"),
        (fast["check_id"], "faster", "pass"),
    ]


def test_usage_and_data_errors_are_422_naming_the_field(
    client: TestClient, tmp_path: Any, session: Session
) -> None:
    upload_scaled(client, tmp_path, "main", "baseline:main")
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"candidate": "ghost"}, "candidate", "no sweep has the id, tag or name 'ghost'"),
        ({"candidate": 1, "baseline": 7}, "baseline", "no sweep 7"),
        # a digit to str.isdigit() that int() refuses: a name, not an id (was a 500)
        ({"candidate": 1, "baseline": "³"}, "baseline", "no sweep has the id, tag or name '³'"),
        ({"candidate": "1", "tolerance": 2}, "tolerance", "less than or equal to 1"),
        ({"candidate": "1", "tolerence": 0.1}, "tolerence", "Extra inputs are not permitted"),
        (
            {"candidate": "1", "tpot_ms": 20, "tpot_percentile": "p90"},
            "baseline",
            "cannot be checked at this SLO: its status is unknown",
        ),
    ]
    for options, field, message in cases:
        response = check(client, **options)  # type: ignore[arg-type]
        assert response.status_code == 422, options
        [error] = response.json()["errors"]
        assert field in error["field"]
        assert message in error["message"]
    assert count(session, SweepCheck) == 0


def test_a_check_needs_the_write_token_when_one_is_set(
    make_client: Callable[..., TestClient], tmp_path: Any
) -> None:
    client = make_client(write_token="s3cret")
    client.headers["Authorization"] = "Bearer s3cret"
    upload_scaled(client, tmp_path, "main", "baseline:main")
    assert check(client, "1").status_code == 200
    del client.headers["Authorization"]
    assert check(client, "1").status_code == 401


def test_history_marks_each_regression_a_check_found(client: TestClient, tmp_path: Any) -> None:
    upload_scaled(client, tmp_path, "main", "baseline:main")
    upload_scaled(client, tmp_path, "slower", throughput=0.8)
    upload_scaled(client, tmp_path, "faster", throughput=1.25)
    assert check(client, "slower").json()["verdict"] == "regression"
    assert check(client, "faster").json()["verdict"] == "pass"
    params = {"picked": 1, "preset": "custom", "hardware": "RTX4090", **SLO}
    body = client.get("/api/history", params=params).json()
    [config] = body["configurations"]
    marks = {s["name"]: s["regressions"] for s in config["sweeps"]}
    assert marks["main"] == [] and marks["faster"] == []
    [mark] = marks["slower"]
    assert (mark["check_id"], mark["baseline_sweep_id"], mark["baseline_ref"]) == (
        1,
        1,
        "baseline:main",
    )
    assert mark["headline"] == f"regression: goodput -20 % ({ONE_RUN_GATE})"
    cross = body["figure"]["data"][-1]
    assert cross["name"] == "regression found by a check"
    assert (cross["x"], cross["y"]) == (["2026-07-07"], [pytest.approx(GOODPUT * 0.8)])
    page = BeautifulSoup(client.get("/history", params=params).text, "html.parser")
    flagged = page.select("tr.regressed")
    assert [tr["data-sweep"] for tr in flagged] == ["2"]
    note = flagged[0].select_one(".regression-note")
    assert note is not None
    assert " ".join(note.text.split()).endswith(
        f"against baseline:main (sweep 1) found a regression: goodput -20 % ({ONE_RUN_GATE})"
    )


def test_a_per_request_check_carries_intervals_for_goodput_and_cost(client: TestClient) -> None:
    from bench.common import synthetic_requests_csv, synthetic_sweeps_csv

    for name, seed in (("base", 1), ("cand", 2)):
        points = synthetic_sweeps_csv(1, 8, seed=1).replace(b"bench-0", name.encode())
        requests = synthetic_requests_csv(1, 8, 200, seed=seed).replace(b"bench-0", name.encode())
        files = [
            ("files", (f"{name}.csv", points, "text/csv")),
            ("files", (f"{name}.requests.csv", requests, "text/csv")),
        ]
        response = client.post("/api/sweeps", files=files, data={"tags": f"t-{name}"})
        assert response.status_code == 201, response.text
    body = {
        "candidate": "t-cand",
        "baseline": "t-base",
        "mode": "requests",
        "ttft_ms": 300,
        "tpot_ms": 40,
        "attainment": 0.9,
        "usd_per_gpu_hour": 2,
    }
    doc = client.post("/api/check", json=body).json()
    by_figure = {f["figure"]: f for f in doc["findings"]}
    for figure in ("goodput_tok_s_per_gpu", "usd_per_mtok"):
        for side in ("baseline", "candidate"):
            iv = by_figure[figure][f"{side}_interval"]
            assert iv is not None and iv["ci_method"] == "bootstrap", (figure, side)
            assert iv["ci_low"] < by_figure[figure][side] < iv["ci_high"]
    cost_row = next(line for line in doc["summary"].splitlines() if line.startswith("| $/Mtok"))
    assert cost_row.count("95 % CI $") == 2
    # The gate judges one interval, of the ratio: other prompts, so the requests are unpaired.
    ratio = by_figure["goodput_tok_s_per_gpu"]["ratio"]
    goodputs = by_figure["goodput_tok_s_per_gpu"]
    assert ratio["value"] == pytest.approx(goodputs["candidate"] / goodputs["baseline"])
    assert (ratio["ci_method"], ratio["paired"]) == ("ratio-bootstrap", False)
    assert ratio["ci_low"] < ratio["value"] < ratio["ci_high"]


def varied_input_lengths(requests: bytes) -> bytes:
    """The synthetic requests with an input length that varies request by request."""
    head, *rows = requests.decode().splitlines()
    out = [head] + [
        row.replace(",1024,", f",{100 + (i * 37) % 900},") for i, row in enumerate(rows)
    ]
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize(
    ("varied", "seed", "paired"),
    [
        (True, 1, True),  # the same input lengths, varying, in the same order
        (False, 1, True),  # every input 1,024 tokens, the same output lengths in order
        (False, 2, False),  # every input 1,024 tokens, other outputs: other prompts
    ],
)
def test_a_candidate_that_replayed_the_baselines_prompts_is_judged_on_paired_requests(
    client: TestClient, varied: bool, seed: int, paired: bool
) -> None:
    from bench.common import synthetic_requests_csv, synthetic_sweeps_csv

    for name, drawn in (("base", 1), ("cand", seed)):
        points = synthetic_sweeps_csv(1, 8, seed=1).replace(b"bench-0", name.encode())
        requests = synthetic_requests_csv(1, 8, 200, seed=drawn).replace(b"bench-0", name.encode())
        requests = varied_input_lengths(requests) if varied else requests
        files = [
            ("files", (f"{name}.csv", points, "text/csv")),
            ("files", (f"{name}.requests.csv", requests, "text/csv")),
        ]
        response = client.post("/api/sweeps", files=files, data={"tags": f"t-{name}"})
        assert response.status_code == 201, response.text
    body = {"candidate": "t-cand", "baseline": "t-base", "mode": "requests", "ttft_ms": 300,
            "tpot_ms": 40, "attainment": 0.9}  # fmt: skip
    doc = client.post("/api/check", json=body).json()
    [goodput] = [f for f in doc["findings"] if f["figure"] == "goodput_tok_s_per_gpu"]
    ratio = goodput["ratio"]
    assert ratio["paired"] is paired
    if paired:
        # The same prompts in the same order, the same requests: every paired resample says 1×.
        assert ratio["ci_low"] == ratio["ci_high"] == pytest.approx(1.0)
        assert "paired requests" in goodput["note"]
    else:
        # Other prompts: each side resampled on its own draw, an interval with width.
        assert ratio["ci_low"] < ratio["value"] < ratio["ci_high"]


# --- like with like -----------------------------------------------------------------------


def upload_as(client: TestClient, label: str, hardware: str, tags: str = "", **scale: float) -> int:
    files = [("files", (name, body, "application/json")) for name, body in scaled(label, **scale)]
    data = {"hardware": hardware, "num_gpus": "1", "sweep": label, "tags": tags}
    response = client.post("/api/sweeps", files=files, data=data)
    assert response.status_code == 201, response.text
    sweep_id: int = response.json()["sweeps"][0]["id"]
    return sweep_id


def test_the_api_calls_another_gpu_a_comparison_and_refuses_another_model_unless_allowed(
    client: TestClient, session: Session
) -> None:
    upload_as(client, "h100", "H100", "baseline:main")
    upload_as(client, "h200", "H200", "nightly", throughput=0.896)
    doc = check(client, "nightly", usd_per_gpu_hour=2).json()
    assert (doc["verdict"], doc["regressions"]) == ("comparison", [])
    assert doc["headline"] == (
        "comparison (hardware differs: H200 vs H100): goodput -10.4 %, $/Mtok ($2/GPU-hour) +11.6 %"
    )
    assert doc["differences"] == [
        {
            "field": "hardware",
            "label": "hardware",
            "kind": "system",
            "values": ["H200", "H100"],
            "differs": True,
            "text": "hardware differs: H200 vs H100",
        }
    ]
    assert client.patch("/api/sweeps/2", json={"model": "llama-3.1-8b"}).is_success
    refused = check(client, "nightly")
    assert refused.status_code == 422
    [error] = refused.json()["errors"]
    assert error["field"] == "allow_different"
    assert error["message"] == (
        "sweep 2 (h200) and sweep 1 (h100) do not measure the same work (model differs: "
        "llama-3.1-8b vs Qwen2.5-Coder-7B-Instruct; hardware differs: H200 vs H100): a change "
        "between them is not a regression; set allow_different to compare them"
    )
    allowed = check(client, "nightly", allow_different=True).json()
    assert allowed["verdict"] == "comparison"
    assert [d["field"] for d in allowed["differences"]] == ["model", "hardware"]
    assert [c.verdict for c in session.query(SweepCheck)] == ["comparison", "comparison"]


def test_history_marks_a_regression_only_within_one_configuration(
    client: TestClient, session: Session
) -> None:
    from app.store import checks as check_store

    upload_as(client, "h100", "H100", "baseline:main")  # 1
    upload_as(client, "h100-slower", "H100", throughput=0.8)  # 2
    upload_as(client, "h200", "H200", throughput=0.896)  # 3
    assert check(client, "h100-slower").json()["verdict"] == "regression"  # check 1
    assert check(client, "h200").json()["verdict"] == "comparison"  # check 2
    # A check stored before like-with-like called the H200 a regression of the H100.
    record = check_store.CheckRecord(
        candidate_id=3,
        baseline_id=1,
        candidate_ref="h200",
        baseline_ref="baseline:main",
        options={},
        verdict="regression",
        headline="regression: goodput -10.4 %",
        summary="",
    )
    check_store.save_check(session, record)
    session.commit()
    params = {"picked": 1, "preset": "custom", **SLO}
    body = client.get("/api/history", params=params).json()
    sweeps = {s["name"]: s for c in body["configurations"] for s in c["sweeps"]}
    assert [m["check_id"] for m in sweeps["h100-slower"]["regressions"]] == [1]
    assert sweeps["h100-slower"]["regressions"][0]["same_configuration"] is True
    assert sweeps["h200"]["regressions"] == []
    assert [(m["check_id"], m["headline"]) for m in sweeps["h200"]["comparisons"]] == [
        (2, "comparison (hardware differs: H200 vs H100): goodput -10.4 %"),
        (3, "regression: goodput -10.4 %"),
    ]
    assert [d["text"] for d in sweeps["h200"]["comparisons"][1]["differences"]] == [
        "hardware differs: H200 vs H100"
    ]
    cross = body["figure"]["data"][-1]
    assert cross["name"] == "regression found by a check"
    assert cross["x"] == ["2026-07-07"] and len(cross["text"]) == 1
    page = BeautifulSoup(client.get("/history", params=params).text, "html.parser")
    assert [tr["data-sweep"] for tr in page.select("tr.regressed")] == ["2"]
    notes = page.select('tr[data-sweep="3"] .comparison-note')
    assert [n["data-check"] for n in notes] == ["2", "3"]
    text = " ".join(notes[1].text.split())
    assert text.startswith("Check #3 (")  # and the date it ran
    assert text.endswith(
        "against baseline:main (sweep 1) compared two configurations, not a regression: "
        "hardware differs: H200 vs H100"
    )
    assert page.select('tr[data-sweep="3"] .regression-note') == []


def test_a_frontier_check_with_no_shared_range_is_unknown_not_a_pass(
    client: TestClient, tmp_path: Any, session: Session
) -> None:
    upload_scaled(client, tmp_path, "main", "baseline:main")
    upload_scaled(client, tmp_path, "crawl", tpot=3.0)  # interactivity wholly below main's
    response = check(client, "crawl", scope="frontier")
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["field"] == "scope"
    assert error["message"] == (
        "unknown: no shared interactivity range: nothing to compare between sweep 2 (crawl) "
        "and sweep 1 (main)"
    )
    assert count(session, SweepCheck) == 0
