"""Compare's "is A really faster?": ratio intervals, "not distinguishable", power estimate."""

from __future__ import annotations

from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import post_files
from tests.helpers import upload_id

HEADER = (
    b"sweep,hardware,num_gpus,concurrency,ttft_p90_ms,tpot_p50_ms,tpot_p90_ms,output_tok_s,"
    b"requests_per_s\n"
)


def runs_csv(name: str, light: float, heavy: tuple[float, ...]) -> bytes:
    """One run at concurrency 4 (TPOT p50 10 ms: 100 tok/s/user) and repeated runs at 8
    (TPOT p50 20 ms: 50 tok/s/user), 1 GPU, all well inside a 500 ms TTFT limit."""
    rows = [f"{name},H100,1,4,100,10,12,{light},1\n".encode()]
    rows += [f"{name},H100,1,8,100,20,25,{y},1\n".encode() for y in heavy]
    return HEADER + b"".join(rows)


def compared_pair(client: TestClient, baseline: int, other: int) -> dict[str, Any]:
    params = {"sweep": [baseline, other], "picked": 1, "preset": "custom", "ttft_ms": 500}
    response = client.get("/api/compare", params=params)
    assert response.status_code == 200, response.text
    [pair] = response.json()["pairs"]
    return dict(pair)


def test_overlapping_runs_are_not_distinguishable_and_the_power_estimate_says_how_many_more(
    client: TestClient,
) -> None:
    b = upload_id(client, ("base.csv", runs_csv("base", 550, (1100, 1300, 1500))))
    a = upload_id(client, ("cand.csv", runs_csv("cand", 500, (1000, 1200, 1400))))
    at_slo = compared_pair(client, b, a)["at_slo"]
    # Goodput: each side's geometric mean of its 3 runs, 1188.784 ÷ 1289.662 = 0.921780×.
    # Each side's t interval on the log scale over those runs: s of ln x is 0.168433 (A) and
    # 0.155232 (B); half = t(0.975, 2) · s / √3 = 0.418410 and 0.385617, so
    # A = 1188.784 · e^(±0.418410) = [782.330189, 1806.409042] and
    # B = 1289.662 · e^(±0.385617) = [877.010172, 1896.474032].
    # se of ln: A 2 · 0.418410 / (2 · 1.959964) = 0.213478, B 0.196747;
    # ratio 0.921780 · e^(∓1.959964 · √(0.213478² + 0.196747²)) = 0.921780 · e^(∓0.569005)
    # = [0.521809, 1.628332]: spans 1×.
    # Power: a t interval over 3 runs is t(0.975, 2) = 4.302653 standard errors wide, so
    # se = 0.213478 · 1.959964 / 4.302653 = 0.097245 (A) and 0.089623 (B), √(Σ se²) = 0.132247;
    # n' runs give a t(0.975, n' − 1) interval: n' = 3 · ((t + 0.841621) · 0.132247 /
    # |ln 0.921780|)², from t = z: 62.08 → 63 runs, t(0.975, 62) = 1.998972: 63.82 → 64,
    # t(0.975, 63) = 1.998341: 63.79 → 64 again: 61 more on each side.
    interval = at_slo["interval"]
    assert round(at_slo["throughput_ratio"], 6) == 0.92178
    assert interval["ci_method"] == "ratio-log-normal"
    assert round(interval["ci_low"], 6) == 0.521809
    assert round(interval["ci_high"], 6) == 1.628332
    assert interval["distinguishable"] is False
    assert (interval["more_a"], interval["more_b"]) == (61, 61)
    assert interval["verdict"] == (
        "not distinguishable with this data: the 95 % interval 0.522×–1.63× spans 1×; "
        "about 61 more runs of cand and 61 more runs of base would separate them (80 % power)"
    )
    # The headline at 75 tok/s/user reads the single run at concurrency 4 on each side.
    [headline] = compared_pair(client, b, a)["headlines"]
    assert headline["x_tok_s_user"] == 75
    assert headline["interval"]["verdict"] == "one run: no interval"
    assert headline["interval"]["distinguishable"] is None


def test_the_page_says_not_distinguishable_beside_the_ratio(client: TestClient) -> None:
    b = upload_id(client, ("base.csv", runs_csv("base", 550, (1100, 1300, 1500))))
    a = upload_id(client, ("cand.csv", runs_csv("cand", 500, (1000, 1200, 1400))))
    page = BeautifulSoup(
        client.get(
            "/compare",
            params={"sweep": [b, a], "picked": 1, "preset": "custom", "ttft_ms": 500},
        ).text,
        "html.parser",
    )
    row = page.select_one("#headlines tr.at-slo")
    assert row is not None
    cell = row.select_one("td.distinction")
    assert cell is not None and cell["data-distinguishable"] == "false"
    assert cell.text.startswith("not distinguishable with this data: the 95 % interval")
    ratio_ci = row.select_one("td.ratio-ci")
    assert ratio_ci is not None and ratio_ci.text == "0.522× – 1.63×"


def test_tight_runs_far_apart_are_distinguishable(client: TestClient) -> None:
    b = upload_id(client, ("base.csv", runs_csv("base", 550, (1100, 1300, 1500))))
    a = upload_id(client, ("fast.csv", runs_csv("fast", 500, (3000, 3010, 3020))))
    interval = compared_pair(client, b, a)["at_slo"]["interval"]
    assert interval["distinguishable"] is True
    assert interval["ci_low"] > 1
    assert interval["verdict"].startswith("distinguishable: the 95 % interval ")
    assert interval["verdict"].endswith("excludes 1× (fast delivers more)")


def test_the_ratio_chart_draws_error_bars_at_the_slo(client: TestClient) -> None:
    b = upload_id(client, ("base.csv", runs_csv("base", 550, (1100, 1300, 1500))))
    a = upload_id(client, ("cand.csv", runs_csv("cand", 500, (1000, 1200, 1400))))
    params = {
        "sweep": [b, a],
        "picked": 1,
        "preset": "custom",
        "ttft_ms": 500,
        "min_tok_s_user": 40,
    }
    body = client.get("/api/compare", params=params).json()
    bars = [t for t in body["figures"]["throughput_ratio"]["data"] if "error_y" in t]
    [trace] = bars
    # The goodput ratio (of the runs' geometric means) and its interval sit where they are
    # read: at both operating points (50 tok/s/user), not at the SLO floor (40).
    k = trace["x"].index(50)
    assert round(trace["y"][k], 6) == 0.92178
    assert round(trace["y"][k] + trace["error_y"]["array"][k], 6) == 1.628332
    assert round(trace["y"][k] - trace["error_y"]["arrayminus"][k], 6) == 0.521809


def test_per_request_sweeps_pair_their_bootstrap_resamples_for_the_ratio(
    client: TestClient,
) -> None:
    from tests.web.test_intervals_api import POINTS, REQUESTS

    ids = []
    for name in (b"ci", b"cj"):
        response = post_files(
            client,
            (f"{name.decode()}.csv", POINTS.replace(b"ci,", name + b",")),
            (f"{name.decode()}.requests.csv", REQUESTS.replace(b"ci,", name + b",")),
        )
        assert response.status_code == 201, response.text
        ids.append(response.json()["sweeps"][0]["id"])
    params = {
        "sweep": ids,
        "picked": 1,
        "preset": "custom",
        "ttft_ms": 500,
        "mode": "requests",
        "attainment": 0.8,
    }
    [pair] = client.get("/api/compare", params=params).json()["pairs"]
    interval = pair["at_slo"]["interval"]
    # The same requests and the same seed: every paired resample ratio is exactly 1.
    assert pair["at_slo"]["throughput_ratio"] == 1.0
    assert (interval["ci_low"], interval["ci_high"]) == (1.0, 1.0)
    assert interval["ci_method"] == "ratio-bootstrap"
    assert interval["verdict"] == (
        "not distinguishable with this data: the 95 % interval 1×–1× spans 1×; "
        "the two values are equal, so no amount of data would separate them"
    )
