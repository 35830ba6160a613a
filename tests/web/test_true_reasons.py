"""Issue 30 §5: every "unknown" or "no" names its real cause, on Explore, the read-off JSON and
CSV, and the CLI, on the real SGLang online sweep (five request rates, no total throughput)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.conftest import FIXTURES

ONLINE = FIXTURES / "sglang" / "datacrunch_llama_3_3_70b_online_output.jsonl"
# p50 TTFT at rates 1, 2, 4, 8 is 85.7, 87.6, 106.1 and 191.4 ms; at rate 16 it is 614.2 ms.
SLO = {"ttft_ms": 200, "ttft_percentile": "p50"}
TOTAL_REASON = (
    "4 of 5 points meet the SLO, but their total throughput (input + output tokens/s) is not "
    "measured: goodput on the total basis is unknown (another basis may have it)"
)


def online_sweep(client: TestClient) -> int:
    response = client.post(
        "/api/sweeps",
        files=[("files", (ONLINE.name, ONLINE.read_bytes(), "application/octet-stream"))],
        data={"hardware": "H100", "num_gpus": "8"},
    )
    assert response.status_code == 201, response.text
    [first] = [s for s in response.json()["sweeps"] if s["points"] == 5]
    return int(first["id"])


def test_the_total_basis_without_total_throughput_is_unknown_for_that_reason(
    client: TestClient,
) -> None:
    sweep = online_sweep(client)
    [result] = client.get("/api/readoff", params={"sweep": sweep, **SLO, "basis": "total"}).json()[
        "results"
    ]
    assert (result["status"], result["meets_slo"]) == ("unknown", None)
    assert result["reason"] == TOTAL_REASON
    assert "fails" not in result["reason"]
    priced = client.get(
        "/api/readoff", params={"sweep": sweep, **SLO, "basis": "total", "usd_per_gpu_hour": 2}
    ).json()["results"][0]
    [cost] = priced["costs"]
    assert (cost["usd_per_mtok"], cost["reason"]) == (None, f"goodput unknown: {TOTAL_REASON}")
    # On the output basis the same SLO has a goodput: rate 8's 3,515.0 tok/s over 8 GPUs.
    [output] = client.get("/api/readoff", params={"sweep": sweep, **SLO}).json()["results"]
    assert output["status"] == "pass"
    assert output["goodput_tok_s_per_gpu"] == pytest.approx(3515.0190112201713 / 8)

    exported = client.get(
        "/api/export/readoff.csv", params={"sweep": sweep, **SLO, "basis": "total"}
    )
    [row] = csv.DictReader(io.StringIO(exported.text))
    assert (row["status"], row["reason"]) == ("unknown", TOTAL_REASON)

    page = BeautifulSoup(
        client.get("/", params={"sweep": sweep, **SLO, "basis": "total", "preset": "custom"}).text,
        "html.parser",
    )
    [cell] = page.select("#readoff-table tbody td.verdict")
    assert cell["data-status"] == "unknown"
    assert cell.select_one(".verdict-reason").text == TOTAL_REASON


def test_with_no_point_passing_the_reason_is_still_the_lightest_failing_load(
    client: TestClient,
) -> None:
    sweep = online_sweep(client)
    params = {"sweep": sweep, "ttft_ms": 80, "ttft_percentile": "p50", "basis": "total"}
    [result] = client.get("/api/readoff", params=params).json()["results"]
    assert result["status"] == "fail"
    assert (
        result["reason"] == "no point meets the SLO: lightest load fails p50 TTFT 85.7 ms > 80 ms"
    )


def test_the_cli_read_off_gives_the_same_reason(
    cli: Callable[..., int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli("import", ONLINE, "--hardware", "H100", "--gpus", 8) == 0
    listed = capsys.readouterr().out
    sweep = next(
        line.split()[2].rstrip(":") for line in listed.splitlines() if "(5 points)" in line
    )
    options = ("--ttft-ms", 200, "--ttft-percentile", "p50", "--basis", "total")
    assert cli("readoff", sweep, *options, "--format", "json") == 0
    [result] = json.loads(capsys.readouterr().out)["results"]
    assert (result["status"], result["reason"]) == ("unknown", TOTAL_REASON)
    assert cli("readoff", sweep, *options) == 0
    [row] = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert row["reason"] == TOTAL_REASON


def test_per_request_goodput_on_the_total_basis_without_input_lengths_is_unknown_saying_so(
    client: TestClient,
) -> None:
    """Oracle O9's requests without their input_len column: the total basis would count the
    good requests' input tokens as 0; it is unknown instead, and the output basis is not."""
    from tests.web.test_readoff_api import O9_POINTS, O9_REQUESTS

    lines = [line.rsplit(b",", 2) for line in O9_REQUESTS.strip().split(b"\n")]
    without_input = b"\n".join(head + b"," + ok for head, _, ok in lines) + b"\n"
    assert without_input.startswith(b"sweep,concurrency,ttft_ms,e2el_ms,output_len,ok\n")
    response = client.post(
        "/api/sweeps",
        files=[
            ("files", ("o9.csv", O9_POINTS, "text/csv")),
            ("files", ("o9.requests.csv", without_input, "text/csv")),
        ],
    )
    assert response.status_code == 201, response.text
    sweep = response.json()["sweeps"][0]["id"]
    params = {"sweep": sweep, "ttft_ms": 200, "mode": "requests", "attainment": 0.5}
    [total] = client.get("/api/readoff", params={**params, "basis": "total"}).json()["results"]
    assert (total["status"], total["goodput_tok_s_per_gpu"]) == ("unknown", None)
    assert total["reason"] == (
        "1 point unknown: 5 good requests without an input token count: no total goodput "
        "(the output basis has one)"
    )
    # TTFT ≤ 200 ms: the requests at 120, 180, 100, 190 and 150 ms are good, with 100 + 100
    # + 100 + 1 + 51 = 352 output tokens over 4 s on 1 GPU.
    [output] = client.get("/api/readoff", params=params).json()["results"]
    assert (output["meets_slo"], output["goodput_tok_s_per_gpu"]) == (True, 88.0)
