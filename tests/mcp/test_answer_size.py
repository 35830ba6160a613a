"""MCP answers an assistant can hold (issue 47): the charts' data only when asked for, so that
a compare of two seeded sweeps fits in 8,000 characters, and every term on the Metrics page —
goodput first — explained by its id or its plain name."""

from __future__ import annotations

from typing import Any

import httpx
from mcp import Client

from tests.helpers import soup
from tests.mcp.helpers import answer_of, json_equal, on_own_loop, refused, without_figures

MOST_CHARACTERS = 8_000
LIMITS = {"ttft_ms": 500, "tpot_ms": 40, "usd_per_gpu_hour": 2.5}


def test_compare_of_two_seeded_sweeps_fits_in_8000_characters_and_figures_come_only_when_asked(
    seeded: None, mcp_url: str, http: httpx.Client
) -> None:
    ids = sorted(
        s["id"] for s in http.get("/api/sweeps", params={"per_page": 500}).json()["sweeps"]
    )
    assert len(ids) >= 10
    # Compare's opening pair, and every seeded sweep against the first and against the last.
    pairs = [[ids[0], other] for other in ids[1:]] + [[ids[-1], ids[0]]]

    async def drive() -> dict[str, Any]:
        async with Client(f"{mcp_url}/mcp") as client:
            return {
                "default": await client.call_tool("compare", {}),
                "pairs": [await client.call_tool("compare", {"sweep": p}) for p in pairs],
                "figures": await client.call_tool("compare", {"sweep": ids[:2], "figures": True}),
                "plan": await client.call_tool("plan", {"sweep": ids[:2], "requests_per_s": 3}),
                "plan_figures": await client.call_tool(
                    "plan", {"sweep": ids[:2], "requests_per_s": 3, **LIMITS, "figures": True}
                ),
                "no_figures": await client.call_tool(
                    "compare", {"sweep": ids[:2], "figures": False}
                ),
                "bad": await client.call_tool("compare", {"sweep": ids[:2], "figures": "yes"}),
            }

    got = on_own_loop(drive)
    asked = [{}, *({"sweep": p} for p in pairs), {"sweep": ids[:2]}]
    for args, result in zip(asked, [got["default"], *got["pairs"], got["no_figures"]], strict=True):
        text = result.content[0].text
        assert len(text) <= MOST_CHARACTERS, answer_of(result)["answer"]["query"]
        body = answer_of(result)
        assert "figures" not in body["answer"]
        assert body["answer"]["pairs"] and all("curve" not in p for p in body["answer"]["pairs"])
        assert body["answer"]["pairs"][0]["headlines"] is not None
        assert all("figure" not in b for b in body["answer"].get("public_record") or [])
        assert body["provenance"]["figures"].startswith("left out (figures, pairs[].curve")
        # Everything else is the API's body for the same view.
        api = http.get("/api/compare", params=args).json()
        json_equal(body["answer"], without_figures("compare", api), "compare")
    # Asked for, the figures are the API's: Plotly specs and each pair's sampled curve.
    full = answer_of(got["figures"])
    assert len(got["figures"].content[0].text) > MOST_CHARACTERS
    assert (
        full["provenance"]["figures"] == "included (figures, pairs[].curve, public_record[].figure)"
    )
    assert full["provenance"]["arguments"]["figures"] is True
    assert set(full["answer"]["figures"]) == {
        "frontier",
        "throughput_ratio",
        "cost_ratio",
        "sensitivity",
    }
    assert full["answer"]["figures"]["frontier"]["data"]
    assert full["answer"]["pairs"][0]["curve"]
    json_equal(full["answer"], http.get("/api/compare", params={"sweep": ids[:2]}).json())
    # Plan: its cost chart likewise.
    plan = answer_of(got["plan"])["answer"]
    assert "figure" not in plan and plan["results"]
    planned = answer_of(got["plan_figures"])["answer"]
    api = http.get("/api/plan", params={"sweep": ids[:2], "requests_per_s": 3, **LIMITS}).json()
    assert planned["figure"]["data"]
    json_equal(planned, api, "plan")
    error = refused(got["bad"])
    assert (error["status"], error["errors"]) == (
        422,
        [{"field": "figures", "message": "give true or false"}],
    )


def test_explain_metric_answers_every_metrics_term_by_id_and_plain_name_goodput_first(
    mcp_url: str, http: httpx.Client
) -> None:
    page = soup(http.get("/metrics").text)
    terms = [(s["id"], s.h2.text) for s in page.select("section.definition")]
    assert terms[0] == ("goodput", "Goodput at an SLO")
    assert len(terms) == len(http.get("/api/metrics").json()["definitions"])
    asked = [
        word
        for term_id, title in terms
        for word in (term_id, title, title.upper(), f"  {title.lower()} ")
    ]
    plain = ["goodput", "Goodput", "GOODPUT", "Pareto frontier", "interactivity", "slo percentile"]

    async def drive() -> list[Any]:
        async with Client(f"{mcp_url}/mcp") as client:
            calls = [*asked, *plain, "nope"]
            return [await client.call_tool("explain_metric", {"id": w}) for w in calls]

    *answers, unknown = on_own_loop(drive)
    wanted = [term_id for term_id, _ in terms for _ in range(4)] + [
        "goodput",
        "goodput",
        "goodput",
        "pareto",
        "interactivity",
        "slo-percentile",
    ]
    got = [answer_of(a)["answer"]["definitions"] for a in answers]
    assert [[d["id"] for d in found] for found in got] == [[w] for w in wanted]
    goodput = answer_of(answers[0])
    assert "highest throughput per GPU" in goodput["answer"]["definitions"][0]["text"]
    assert goodput["provenance"]["dashboard_url"].endswith("/metrics#goodput")
    # The JSON API answers the same for a plain name.
    assert http.get("/api/metrics", params={"id": "Goodput"}).json() == goodput["answer"]
    # Anything else: an error listing every term, by id and name.
    error = refused(unknown)
    assert error["status"] == 404
    assert error["detail"].startswith("no metric 'nope'; the terms, by id or name in any case")
    for term_id, title in terms:
        assert f"{term_id}: {title}" in error["detail"]
    assert error["detail"] == http.get("/api/metrics", params={"id": "nope"}).json()["detail"]
