"""Exports of issue 35: readoff.csv's goodput statistic and best run beside it, and the
frontier band CSV, each the same numbers as the JSON answers."""

from __future__ import annotations

import csv
import io
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.domain.frontier_band import NO_VARIATION
from tests.helpers import upload_id
from tests.web.test_bands import RUNS as BAND_RUNS
from tests.web.test_bands import per_request_sweep
from tests.web.test_intervals_api import RUNS, result

ONE_RUN = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    b"single,H100,1,4,10,500\n"
    b"single,H100,1,8,20,900\n"
)


def exported_rows(client: TestClient, path: str, **params: Any) -> list[dict[str, str]]:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.text)))


def cell(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def test_readoff_csv_gives_the_mean_of_runs_with_its_interval_and_the_best_run_beside_it(
    client: TestClient,
) -> None:
    runs = upload_id(client, ("runs.csv", RUNS))
    single = upload_id(client, ("single.csv", ONE_RUN))
    api = result(client, sweep=runs, ttft_ms=500)
    [row] = exported_rows(client, "/api/export/readoff.csv", sweep=runs, ttft_ms=500)
    # Runs 1000, 1200 and 1400 tok/s at concurrency 8: the goodput is their geometric mean,
    # 1,188.78 (the interval from the same runs), the best run 1,400 a column of its own.
    assert row["goodput_tok_s_per_gpu"] == cell(api["goodput_tok_s_per_gpu"])
    assert row["goodput_statistic"] == "geometric mean of 3 runs"
    assert row["best_run_tok_s_per_gpu"] == "1400.0"
    goodput = api["intervals"]["goodput_tok_s_per_gpu"]
    assert (row["ci_method"], row["goodput_ci_low"], row["goodput_ci_high"]) == (
        "t-log", cell(goodput["ci_low"]), cell(goodput["ci_high"])
    )  # fmt: skip
    assert float(row["goodput_ci_low"]) < float(row["goodput_tok_s_per_gpu"]) < 1400
    header = list(row)
    at = header.index("goodput_tok_s_per_gpu")
    assert header[at + 1 : at + 3] == ["goodput_statistic", "best_run_tok_s_per_gpu"]
    # One run per load: the goodput is that run (900 tok/s at concurrency 8), no statistic,
    # no separate best run, and no interval, said as the JSON says it.
    slo = {"tpot_ms": 25, "percentile": "p50"}
    [lone] = exported_rows(client, "/api/export/readoff.csv", sweep=single, **slo)
    assert lone["goodput_tok_s_per_gpu"] == "900.0"
    assert (lone["goodput_statistic"], lone["best_run_tok_s_per_gpu"]) == ("", "")
    why = result(client, sweep=single, **slo)["intervals"]["goodput_tok_s_per_gpu"]["ci_reason"]
    assert lone["ci_reason"] == why and why


def test_the_frontier_band_csv_is_the_bands_of_the_explore_answer_row_for_row(
    client: TestClient,
) -> None:
    reqs = per_request_sweep(client, "reqs", 1)
    runs = upload_id(client, ("runs.csv", BAND_RUNS))
    single = upload_id(client, ("single.csv", ONE_RUN))
    query = {"sweep": [reqs, runs, single], "ci_level": 0.9, "accounting": "gpu"}
    explore = client.get(
        "/api/explore", params={**query, "picked": 1, "preset": "custom", "bands": 1}
    ).json()
    found = exported_rows(client, "/api/export/frontier_band.csv", **query)
    expected = []
    for band in explore["bands"]:
        if band["reason"] is not None and not band["x_tok_s_user"]:
            expected.append((str(band["sweep_id"]), "", "", "", "", band["reason"]))
            continue
        for k, x in enumerate(band["x_tok_s_user"]):
            expected.append((
                str(band["sweep_id"]), cell(x), cell(band["tok_s_per_gpu"][k]),
                cell(band["low_tok_s_per_gpu"][k]), cell(band["high_tok_s_per_gpu"][k]), "",
            ))  # fmt: skip
    assert [
        (r["sweep_id"], r["x_tok_s_user"], r["tok_s_per_gpu"], r["low_tok_s_per_gpu"],
         r["high_tok_s_per_gpu"], r["reason"])
        for r in found
    ] == expected  # fmt: skip
    by_sweep: dict[str, list[dict[str, str]]] = {}
    for r in found:
        by_sweep.setdefault(r["sweep_id"], []).append(r)
    first = by_sweep[str(reqs)][0]
    assert (first["ci_level"], first["method"], first["resamples"], first["seed"]) == (
        "0.9", "bootstrap-requests", "1000", "0"
    )  # fmt: skip
    assert first["throughput_per"] == "GPU" and first["interpolation"] == "linear"
    # Runs: at 50 tok/s/user the mean of 1,000, 1,200 and 1,100 tok/s.
    assert by_sweep[str(runs)][0]["tok_s_per_gpu"] == "1100.0"
    assert by_sweep[str(runs)][0]["method"] == "bootstrap-runs"
    [none] = by_sweep[str(single)]
    assert (none["x_tok_s_user"], none["reason"]) == ("", NO_VARIATION)
    # Seeded: the same query gives the same file.
    again = client.get("/api/export/frontier_band.csv", params=query).text
    assert again == client.get("/api/export/frontier_band.csv", params=query).text
    # The pages link it with bands on, with the page's own query.
    page = BeautifulSoup(
        client.get("/compare", params={**query, "picked": 1, "preset": "custom", "bands": 1}).text,
        "html.parser",
    )
    link = page.select_one("#export-band-csv")
    assert link is not None and link["href"].startswith("/api/export/frontier_band.csv?")
    assert "ci_level=0.9" in link["href"] and "bands=1" in link["href"]
