"""Multi-turn runs through the MCP tools (issue 49): `readoff` and `compare` carry each
sweep's sessions {count, attainment, attainment_low, attainment_high, cut} and turns
{ttft_first_ms, ttft_later_ms}, take the `interactivity` choice and name the axis, answer as
the API does, and stay within an assistant's 8,000 characters."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest
from mcp import Client

from tests.mcp.helpers import answer_of, json_equal, on_own_loop, without_figures
from tests.web.test_sessions_api import POINTS, agentic_requests

MOST_CHARACTERS = 8_000
LOW, HIGH = 0.7557039468613879, 0.9019148375589726  # Wilson 95 % of 80 met of 95 judged


def stored_over_mcp(http: httpx.Client) -> dict[str, int]:
    text, _ = agentic_requests()
    files = [
        ("files", ("agents.csv", POINTS.encode())),
        ("files", ("agents.requests.csv", text.encode())),
    ]
    response = http.post("/api/sweeps", files=files)
    assert response.status_code == 201, response.text
    return {s["name"]: s["id"] for s in response.json()["sweeps"]}


def test_readoff_and_compare_tools_carry_sessions_turns_and_the_e2e_axis(
    seeded: None, mcp_url: str, http: httpx.Client
) -> None:
    ids = stored_over_mcp(http)
    slo = {"ttft_ms": 500, "attainment": 0.8, "interactivity": "e2e"}
    readoff_args = {"sweep": [ids["agents"], ids["plain"]], **slo}
    compare_args = {
        "sweep": [ids["agents"], ids["plain"]],
        "preset": "custom",
        "allow_different": True,
        **slo,
    }

    async def drive() -> dict[str, Any]:
        async with Client(f"{mcp_url}/mcp") as client:
            return {
                "readoff": await client.call_tool("readoff", readoff_args),
                "compare": await client.call_tool("compare", compare_args),
            }

    got = on_own_loop(drive)
    # Compare's limit (tests/mcp/test_answer_size.py) holds with both sides' sessions.
    print({k: len(r.content[0].text) for k, r in got.items()})
    assert len(got["compare"].content[0].text) <= MOST_CHARACTERS
    readoff = answer_of(got["readoff"])["answer"]
    assert readoff["slo"]["interactivity"] == "e2e"
    assert readoff["slo"]["interactivity_axis"] == (
        "E2E-normalized interactivity (tok/s/user) = 1000 / p90 of E2EL ÷ OSL"
    )
    agents, plain = readoff["results"]
    sessions = agents["sessions"]
    assert (sessions["count"], sessions["cut"], sessions["attainment"]) == (95, 5, 80 / 95)
    assert sessions["attainment_low"] == pytest.approx(LOW, abs=1e-12)
    assert sessions["attainment_high"] == pytest.approx(HIGH, abs=1e-12)
    _, rows = agentic_requests()
    at16 = [r for r in rows if r[0] == 16 and r[4]]
    first = float(np.percentile([r[1] for r in at16 if r[5] == 0], 90))
    later = float(np.percentile([r[1] for r in at16 if r[5] > 0], 90))
    assert agents["turns"]["ttft_first_ms"] == pytest.approx(first, abs=1e-9)
    assert agents["turns"]["ttft_later_ms"] == pytest.approx(later, abs=1e-9)
    assert plain["sessions"]["count"] is None
    api = http.get("/api/readoff", params=readoff_args).json()
    json_equal(readoff, api, "readoff")

    compare = answer_of(got["compare"])["answer"]
    assert compare["interactivity"] == "e2e"
    assert compare["interactivity_axis"] == readoff["slo"]["interactivity_axis"]
    [pair] = compare["pairs"]  # plain (a) against the first, the agentic sweep (b)
    assert pair["b"]["sessions"] == {
        "count": 95,
        "attainment": pytest.approx(80 / 95, abs=1e-12),
        "attainment_low": pytest.approx(LOW, abs=1e-12),
        "attainment_high": pytest.approx(HIGH, abs=1e-12),
        "cut": 5,
    }
    assert pair["b"]["turns"] == {
        "ttft_first_ms": pytest.approx(first, abs=1e-9),
        "ttft_later_ms": pytest.approx(later, abs=1e-9),
    }
    assert (pair["a"]["sessions"], pair["a"]["turns"]) == (None, None)
    api = http.get("/api/compare", params=compare_args).json()
    json_equal(compare, without_figures("compare", api), "compare")
