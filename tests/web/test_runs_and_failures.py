"""Issue 45, items 1 and 2, on real vLLM files stored in SQLite and Postgres: a load whose two
runs disagree on the SLO is borderline everywhere (never "yes", no goodput there, ranked below a
settled pass, and `check` does not pass it); failed requests are misses in percentile mode and
goodput counts successful requests only ("3 of 10 failed")."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from tests.helpers import upload_ids
from tests.ingest.test_vllm import RATE, obj_vllm, save_detailed, with_empty_streams
from tests.web.test_answer_strip import page_and_json, strip_rows, text

CHAT = {"picked": 1, "preset": "custom", "ttft_ms": 500, "percentile": "p99"}
FORM = {"hardware": "H100", "num_gpus": "1"}
P99_RUN_0, P99_RUN_1 = 762.0, 57.6  # max_num_seqs=4's two runs at concurrency 16
BORDERLINE = "1 of 2 runs meets the SLO at concurrency 16: borderline, not a pass"


def bench_sweep_run(name: str, run: int, seqs: int, p99_ttft_ms: float | None = None) -> Any:
    """One `vllm bench sweep serve` run=N.json at max_concurrency 16, from a real vLLM result;
    with `p99_ttft_ms`, every TTFT statistic scaled so the p99 is that (an ordered set)."""
    data = obj_vllm(name) | {"run_number": run, "max_num_seqs": seqs, "tag": "chat"}
    data |= {"max_concurrency": 16, "request_rate": "inf"}
    if p99_ttft_ms is not None:
        scale = p99_ttft_ms / data["p99_ttft_ms"]
        for key in [k for k in data if k.endswith("_ttft_ms")]:
            data[key] *= scale
    return data


def two_run_folder() -> list[tuple[str, bytes]]:
    """max_num_seqs=4: run 0 p99 TTFT 762 ms, run 1 57.6 ms (the faster, 469.6 tok/s); its
    sibling max_num_seqs=8: two runs at 296 and 315 ms, both within a 500 ms limit."""
    runs = {
        4: [
            bench_sweep_run(RATE[4.0], 0, 4, P99_RUN_0),
            bench_sweep_run(RATE[8.0], 1, 4, P99_RUN_1),
        ],
        8: [bench_sweep_run(RATE[1.0], 0, 8), bench_sweep_run(RATE[2.0], 1, 8)],
    }
    return [
        (f"exp/SERVE-max_num_seqs={seqs}-BENCH-max_concurrency=16/run={r['run_number']}.json",
         json.dumps(r, indent=4).encode())
        for seqs, pair in runs.items()
        for r in pair
    ]  # fmt: skip


def runs_geomean(*values: float) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def readoff_by_sweep(
    client: TestClient, ids: list[int], **params: Any
) -> dict[int, dict[str, Any]]:
    asked = {"sweep": ids, "points": "true"} | CHAT | params
    response = client.get("/api/readoff", params=asked)
    assert response.status_code == 200, response.text
    return {r["sweep_id"]: r for r in response.json()["results"]}


def test_two_runs_that_disagree_at_a_load_make_it_borderline_with_no_goodput_there(
    client: TestClient,
) -> None:
    unsettled, settled = upload_ids(client, *two_run_folder(), **FORM)
    results = readoff_by_sweep(client, [unsettled, settled])
    mixed = results[unsettled]
    assert (mixed["status"], mixed["meets_slo"]) == ("borderline", False)
    assert mixed["goodput_tok_s_per_gpu"] is None and mixed["operating_point"] is None
    assert mixed["borderline_reason"] == BORDERLINE
    assert mixed["reason"] == BORDERLINE
    run_0, run_1 = mixed["points"]
    assert (run_0["status"], run_0["runs_meeting_slo"], run_0["runs_at_load"]) == (
        "borderline",
        1,
        2,
    )
    assert run_0["reason"] == (
        "1 of 2 runs meets the SLO at this load; this run: p99 TTFT 762 ms > 500 ms"
    )
    assert run_1["reason"] == (
        "1 of 2 runs meets the SLO at this load; this run: p99 TTFT 57.6 ms ≤ 500 ms"
    )
    # The sibling's two runs both meet it: a settled pass, its goodput the runs' statistic.
    both = results[settled]
    assert (both["status"], both["meets_slo"]) == ("pass", True)
    assert both["goodput_tok_s_per_gpu"] == pytest.approx(
        runs_geomean(120.42068482753697, 183.4818442217204), rel=1e-12
    )
    assert [p["runs_meeting_slo"] for p in both["points"]] == [None, None]


def test_the_strip_table_compare_plan_history_and_export_all_say_1_of_2_runs(
    client: TestClient,
) -> None:
    unsettled, settled = upload_ids(client, *two_run_folder(), **FORM)
    page, body = page_and_json(client, {"sweep": [unsettled, settled]} | CHAT)
    # Ranking: the settled pass first, though the unsettled one's best run is faster.
    assert [int(r["data-sweep"]) for r in strip_rows(page)] == [settled, unsettled]
    assert body["answer"]["order"] == [settled, unsettled]
    row = page.select_one(f'#answer-strip tr[data-sweep="{unsettled}"]')
    assert isinstance(row, Tag) and row["data-status"] == "borderline"
    assert text(row.select_one("td.verdict")) == f"borderline {BORDERLINE}"
    assert text(row.select_one("td.goodput .value")) == "–"
    table = page.select_one(f'#readoff-table tr[data-sweep="{unsettled}"] td.verdict')
    assert isinstance(table, Tag) and table["data-status"] == "borderline"
    assert text(table.select_one(".borderline-reason")) == BORDERLINE
    # Compare: no "A delivers 1.06× B's goodput", but why.
    compare = client.get("/compare", params={"sweep": [unsettled, settled]} | CHAT)
    at_slo = BeautifulSoup(compare.text, "html.parser").select_one("tr.at-slo")
    assert at_slo is not None and "delivers" not in text(at_slo)
    assert f"B: {BORDERLINE}" in text(at_slo)  # the first sweep is the baseline, B
    # Plan: not sized on an unsettled load.
    plan = client.get(
        "/api/plan", params={"sweep": [unsettled, settled], "requests_per_s": 1} | CHAT
    )
    assert plan.status_code == 200, plan.text
    by_id = {r["sweep_id"]: r for r in plan.json()["results"]}
    assert by_id[unsettled]["status"] == "fail" and by_id[unsettled]["reason"] == BORDERLINE
    assert by_id[settled]["status"] == "pass"
    plan_page = client.get(
        "/plan", params={"sweep": [unsettled, settled], "requests_per_s": 1} | CHAT
    )
    cell = BeautifulSoup(plan_page.text, "html.parser").select_one(
        f'tr.plan-row[data-sweep="{unsettled}"] td.status'
    )
    assert cell is not None and text(cell).startswith(f"borderline {BORDERLINE}")
    # History: the same verdict beside the date.
    history = client.get("/history", params={"hardware": "H100"} | CHAT)
    verdict = BeautifulSoup(history.text, "html.parser").select_one(
        f'.history-table tr[data-sweep="{unsettled}"] td.verdict'
    )
    assert verdict is not None and verdict["data-status"] == "borderline"
    assert BORDERLINE in text(verdict)
    # The read-off export: status and reason columns.
    csv = client.get("/api/export/readoff.csv", params={"sweep": [unsettled]} | CHAT).text
    assert ",borderline," in csv and BORDERLINE in csv


def test_check_fails_a_candidate_borderline_by_its_runs_and_never_passes_it(
    client: TestClient,
) -> None:
    unsettled, settled = upload_ids(client, *two_run_folder(), **FORM)
    slo = {"ttft_ms": 500, "percentile": "p99"}
    body = {"candidate": unsettled, "baseline": settled} | slo
    response = client.post("/api/check", json=body)
    assert response.status_code == 200, response.text
    doc = response.json()
    assert doc["verdict"] == "regression"
    [runs] = [f for f in doc["findings"] if f["label"] == "runs agree on the SLO"]
    assert runs["regression"] is True
    assert runs["note"].startswith(f"the candidate's SLO verdict is borderline: {BORDERLINE}")
    assert BORDERLINE in doc["headline"]
    # Against itself (neither side meets the SLO): unknown, not a pass, and it says why.
    itself = client.post("/api/check", json={"candidate": unsettled, "baseline": unsettled} | slo)
    assert itself.status_code == 422, itself.text
    assert f"the candidate's SLO verdict is borderline: {BORDERLINE}" in itself.text
    # The settled sibling checked against itself passes.
    body = {"candidate": settled, "baseline": settled} | slo
    assert client.post("/api/check", json=body).json()["verdict"] == "pass"


def test_paretoscope_check_exits_1_with_a_junit_failure_on_a_borderline_candidate(
    cli: Callable[..., int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for name, data in two_run_folder():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        paths.append(path)
    assert cli("import", *paths, "--hardware", "H100", "--gpus", 1) == 0
    capsys.readouterr()
    slo = ("--ttft-ms", 500, "--percentile", "p99")
    assert cli("check", 1, "--baseline", 2, *slo, "--format", "junit") == 1
    junit = capsys.readouterr().out
    assert 'failures="1"' in junit or 'failures="2"' in junit
    assert "1 of 2 runs meets the SLO at concurrency 16" in junit
    assert cli("check", 2, "--baseline", 2, *slo) == 0
    assert cli("check", 1, "--baseline", 1, *slo) == 2  # neither meets it: unknown, not a pass


# The 2024 vLLM case: 10 requests in 1.068 s, 3 of them empty streams counted as completed.
EMPTY_AT = (2, 5, 8)
DURATION_S = 1.068


def ten_requests_three_empty() -> bytes:
    """An older `benchmark_serving.py --save-detailed` result cut to 10 requests over 1.068 s
    (its request throughput 10 ÷ 1.068 = 9.36 req/s, the empty streams among the completed),
    3 of which came back as empty streams."""
    data = save_detailed(RATE[1.0])
    for key in ("input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors"):
        data[key] = data[key][:10]
    total_in, total_out = sum(data["input_lens"]), sum(data["output_lens"])
    data.update(
        num_prompts=10,
        completed=10,
        duration=DURATION_S,
        total_input_tokens=total_in,
        total_output_tokens=total_out,
        request_throughput=10 / DURATION_S,
        output_throughput=total_out / DURATION_S,
        total_token_throughput=(total_in + total_out) / DURATION_S,
    )
    return json.dumps(with_empty_streams(data, EMPTY_AT)).encode()


def test_three_failed_of_ten_cannot_meet_a_p99_limit_and_say_so(client: TestClient) -> None:
    [sweep] = upload_ids(client, ("old.json", ten_requests_three_empty()), **FORM)
    [result] = readoff_by_sweep(client, [sweep]).values()
    assert (result["status"], result["meets_slo"], result["goodput_requests_per_s"]) == (
        "fail",
        False,
        None,
    )
    assert result["failed_requests"] == {"failed": 3, "issued": 10, "text": "3 of 10 failed"}
    assert result["reason"] == (
        "no point meets the SLO: lightest load fails p99 TTFT cannot be met: 3 of 10 failed "
        "(30 % of requests; a failed request misses every limit, and a p99 limit allows at "
        "most 1 %)"
    )
    [point] = result["points"]
    [check] = point["checks"]
    assert check["status"] == "fail" and check["value_ms"] < 500  # the file's own p99 passes


def test_goodput_at_a_p50_limit_counts_the_seven_successful_requests_only(
    client: TestClient,
) -> None:
    [sweep] = upload_ids(client, ("old.json", ten_requests_three_empty()), **FORM)
    # 30 % failed is within the 50 % a p50 limit allows: it passes on its latencies.
    [result] = readoff_by_sweep(client, [sweep], percentile="p50").values()
    assert result["status"] == "pass"
    assert result["goodput_requests_per_s"] == 7 / DURATION_S  # not 10 ÷ 1.068 = 9.36
    assert result["failed_requests"]["text"] == "3 of 10 failed"
    page, _ = page_and_json(client, {"sweep": [sweep]} | CHAT | {"percentile": "p50"})
    [row] = strip_rows(page)
    assert text(row.select_one("td.verdict .failed-requests")) == "3 of 10 failed"
    table = page.select_one(f'#readoff-table tr[data-sweep="{sweep}"]')
    assert table is not None
    assert text(table.select_one("td.verdict .failed-requests")) == "3 of 10 failed"
    # Per-request mode counted them as misses already: 7 of 10 good, 70 % < 90 %.
    [per_request] = readoff_by_sweep(client, [sweep], mode="requests").values()
    assert per_request["status"] == "fail"
    assert per_request["failed_requests"]["text"] == "3 of 10 failed"


def test_the_metrics_page_states_the_failure_rule_and_the_runs_rule(client: TestClient) -> None:
    page = BeautifulSoup(client.get("/metrics").text, "html.parser")
    failures = page.find(id="slo-failures")
    assert failures is not None
    assert "exceeds 1 − p cannot meet a p-th percentile limit" in text(failures)
    assert "3 of 10 requests failed (30 %): a p99 limit allows at most 1 %" in text(failures)
    runs = page.find(id="slo-runs")
    assert runs is not None and "1 of 2 runs meets the SLO at concurrency 4" in text(runs)
