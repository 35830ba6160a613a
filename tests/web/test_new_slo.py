"""An SLO not seen before (issue 34 §4): Explore redoes only what depends on the SLO, from what
the process kept of the sweeps' points, and shows exactly what a fresh process shows. Axes and
outlier edges are fitted in C where the values are plain numbers, value by value otherwise:
both ways give the same figure."""

from __future__ import annotations

import copy
from typing import Any

from fastapi.testclient import TestClient

from app.charts import outliers, ranges
from app.charts.pareto import AXIS_UNITS, pareto_figure
from app.store import points as point_queries
from app.web import page_cache
from tests.helpers import upload_by_name
from tests.web.test_charts_read_true import with_mock

# Three H100 sweeps on 8 GPUs (y = output tok/s / 8, x = 1000 / p50 TPOT): "slow" is a third
# as fast per user as "fast", "far" ten times faster (an outlier on x), and the last point of
# "fast" has no p90 TTFT (its SLO status is unknown).
SWEEPS = (
    b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,output_tok_s\n"
    b"fast,H100,8,llama-3.1-70b,1,10,12,100,800\n"
    b"fast,H100,8,llama-3.1-70b,8,20,25,150,2400\n"
    b"fast,H100,8,llama-3.1-70b,32,40,50,,4000\n"
    b"slow,H100,8,llama-3.1-70b,1,30,36,200,600\n"
    b"slow,H100,8,llama-3.1-70b,8,60,75,400,1600\n"
    b"slow,H100,8,llama-3.1-70b,32,90,110,900,3200\n"
    b"far,H100,8,llama-3.1-70b,1,1,1.2,50,700\n"
    b"far,H100,8,llama-3.1-70b,8,2,2.5,80,2000\n"
    b"far,H100,8,llama-3.1-70b,32,4,5,120,3600\n"
)


def explore_json(client: TestClient, ids: dict[str, int], ttft_ms: float) -> dict[str, Any]:
    query = [("sweep", ids[name]) for name in ("fast", "slow", "far")]
    response = client.get(
        "/api/explore", params=[*query, ("picked", 1), ("ttft_ms", ttft_ms), ("tpot_ms", 45)]
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def goodput_by_name(answer: dict[str, Any]) -> dict[str, float | None]:
    return {r["name"]: r["goodput_tok_s_per_gpu"] for r in answer["results"]}


def test_a_new_slo_after_others_shows_what_a_fresh_process_shows(client: TestClient) -> None:
    ids = upload_by_name(client, ("sweeps.csv", SWEEPS))
    for seen in (1000, 500, 250):  # the process keeps these sweeps' points and figures
        explore_json(client, ids, seen)
    warm = explore_json(client, ids, 160)
    # At p90 TTFT ≤ 160 ms and p90 TPOT ≤ 45 ms: fast passes at 8 (2,400 / 8 GPUs), slow only
    # at 1 (TTFT 200 fails: none), far at 32 (TTFT 120, 3,600 / 8).
    assert goodput_by_name(warm) == {"fast": 300.0, "slow": None, "far": 450.0}
    point_queries.clear_caches()  # as a restart: no point, memo or page kept
    page_cache.clear_all()
    fresh = explore_json(client, ids, 160)
    assert fresh == warm
    assert fresh["figure"]["layout"]["xaxis"]["range"] == warm["figure"]["layout"]["xaxis"]["range"]


def test_the_figure_of_a_new_slo_changes_only_where_the_slo_shows(client: TestClient) -> None:
    ids = upload_by_name(client, ("sweeps.csv", SWEEPS))
    loose, tight = explore_json(client, ids, 1000), explore_json(client, ids, 160)
    stars = {
        t["name"]: (t["x"], t["y"])
        for t in tight["figure"]["data"]
        if str(t.get("name", "")).endswith("goodput at SLO")
    }
    assert stars == {
        "fast · goodput at SLO": ([50.0], [300.0]),
        "far · goodput at SLO": ([250.0], [450.0]),
    }

    def unjudged(answer: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            t
            for t in answer["figure"]["data"]
            if isinstance(t.get("meta"), dict)
            and not str(t.get("name", "")).endswith("goodput at SLO")
        ]

    assert unjudged(loose) == unjudged(tight)  # frontiers, dominated points, outlier edges


def with_gaps(traces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The traces with a missing value added to each x and y: no plain numbers any more."""
    gapped = copy.deepcopy(traces)
    for trace in gapped:
        if "x" in trace and "y" in trace:
            trace["x"] = [*trace["x"], None]
            trace["y"] = [*trace["y"], "n/a"]
    return gapped


def test_axes_and_outlier_edges_fitted_in_c_equal_those_fitted_value_by_value() -> None:
    results, params = with_mock(5)
    traces = pareto_figure(results, params)["data"]
    sweeps = [t for t in traces if isinstance(t.get("meta"), dict) and "edge" not in t["meta"]]
    for log in (False, True):
        fast = ranges.fit_box(sweeps, log_x=log, log_y=log, also_x=[20.0])
        slow = ranges.fit_box(with_gaps(sweeps), log_x=log, log_y=log, also_x=[20.0])
        assert fast == slow
        assert fast is not None
        bulk = outliers.bulk_box(sweeps, fast, [20.0])
        assert bulk == outliers.bulk_box(with_gaps(sweeps), fast, [20.0])
        assert bulk is not None
        edges = outliers.edge_traces(sweeps, bulk, AXIS_UNITS)
        assert edges == outliers.edge_traces(with_gaps(sweeps), bulk, AXIS_UNITS)
        [edge] = edges
        assert "4 points beyond the axes:<br>275–1,100 tok/s/user" in edge["text"][0]
    linear = ranges.fit_box(sweeps, log_x=False, log_y=False)
    assert linear is not None
    assert (linear.x0, linear.x1, linear.y0, linear.y1) == (0.0, 1100 * 1.08, 0.0, 2000 * 1.08)
