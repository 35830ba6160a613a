"""The MCP server (issue 38) driven by the SDK's own client, over streamable HTTP and over stdio:
every tool answers exactly what the JSON API answers for the same query, with its provenance,
writes nothing, and refuses hostile arguments with the API's error text, never crashing."""

from __future__ import annotations

import json
import sys
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import __version__
from app.mcp.provenance import root_of
from app.mcp.tools import TOOLS
from app.settings import PROJECT_ROOT, Settings
from app.store.models import Sweep, SweepCheck
from tests.factories import count, post_files
from tests.mcp.helpers import (
    DASHBOARD,
    answer_of,
    json_equal,
    on_own_loop,
    refused,
    without_figures,
)
from tests.scaled import scaled

LIMITS = {"ttft_ms": 400, "ttft_percentile": "p99", "tpot_ms": 20, "tpot_percentile": "p50"}
PRICE = {"usd_per_gpu_hour": 2.5}
HUGE = 10**40


def upload_main_and_slower(http: httpx.Client | TestClient) -> tuple[int, int]:
    """A real vLLM sweep (four rates) as `main`, tagged baseline:main, and `slower` at 0.8×."""
    ids = []
    for label, tags, factor in (("main", "baseline:main", 1.0), ("slower", "", 0.8)):
        response = post_files(
            http,
            *scaled(label, throughput=factor),
            hardware="RTX4090",
            num_gpus=1,
            sweep=label,
            tags=tags,
        )
        assert response.status_code == 201, response.text
        ids.append(int(response.json()["sweeps"][0]["id"]))
    return ids[0], ids[1]


def sweeps_behind(session: Session, *ids: int) -> list[dict[str, Any]]:
    rows = {s.id: s for s in session.scalars(select(Sweep).where(Sweep.id.in_(ids)))}
    return [{"id": i, "name": rows[i].name, "content_hash": rows[i].content_hash} for i in ids]


@pytest.mark.postgres_twin  # on both databases, as docs/testing.md says
def test_every_tool_over_http_answers_as_the_api_with_provenance_and_writes_nothing(
    mcp_url: str, session: Session, catalog: None, http: httpx.Client
) -> None:
    base, slower = upload_main_and_slower(http)
    rental = {"name": "rent", "kind": "rental", "hardware": "RTX4090", "usd_per_gpu_hour": 0.7}
    created = http.post("/api/pricing", json=rental)
    assert created.status_code == 201, created.text
    profile = created.json()["id"]
    pair = {"sweep": [base, slower], **LIMITS}
    cases: list[tuple[str, dict[str, Any], str, list[int]]] = [
        ("list_sweeps", {"q": "slower"}, "/api/sweeps?q=slower", [slower]),
        ("list_sweeps", {"per_page": 1}, "/api/sweeps?per_page=1", [slower]),
        ("get_sweep", {"sweep_id": base}, f"/api/sweeps/{base}", [base]),
        (
            "readoff",
            {**pair, **PRICE, "pricing": [profile], "points": True},
            "/api/readoff",
            [base, slower],
        ),
        ("compare", {**pair, **PRICE}, "/api/compare", [base, slower]),
        ("plan", {**pair, **PRICE, "requests_per_s": 3}, "/api/plan", [base, slower]),
        ("compare", {**pair, "figures": True}, "/api/compare", [base, slower]),
        ("plan", {**pair, "requests_per_s": 3, "figures": True}, "/api/plan", [base, slower]),
        ("list_prices", {"hardware": "RTX4090"}, "/api/pricing?hardware=RTX4090", []),
        ("explain_metric", {"id": "cost"}, "/api/metrics?id=cost", []),
        ("explain_metric", {}, "/api/metrics", []),
    ]
    checked = {"candidate": str(slower), "baseline": "baseline:main", **LIMITS, **PRICE}

    async def drive() -> list[Any]:
        async with Client(f"{mcp_url}/mcp") as client:
            listed = await client.list_tools()
            answers = [await client.call_tool(name, args) for name, args, _, _ in cases]
            return [listed, *answers, await client.call_tool("check", checked)]

    listed, *results, checked_result = on_own_loop(drive)
    # The API's query model, plus `figures` where the answer has charts.
    schemas = {t.name: t.input_schema for t in listed.tools}
    for tool in TOOLS:
        schema = tool.model.model_json_schema()
        if tool.name in ("compare", "plan"):
            assert schemas[tool.name]["properties"].pop("figures")["default"] is False
        assert schemas[tool.name] == schema, tool.name
    assert all(t.annotations.read_only_hint for t in listed.tools)
    for (name, args, api, ids), result in zip(cases, results, strict=True):
        got = answer_of(result)
        asked = {k: v for k, v in args.items() if k != "figures"}
        wanted = http.get(api, params=asked if "?" not in api else None).json()
        # The API's body, byte for byte; without the figures unless asked for.
        json_equal(
            got["answer"], wanted if "figures" in args else without_figures(name, wanted), name
        )
        prov = got["provenance"]
        assert (prov["tool"], prov["app_version"], prov["read_only"]) == (name, __version__, True)
        assert prov["sweeps"] == sweeps_behind(session, *ids), name
        assert prov["dashboard_url"].startswith(DASHBOARD + "/"), name
        if name in ("readoff", "compare", "plan") and "figures" not in args:
            assert prov["slo"]["ttft_ms"] == 400 and prov["slo"]["tpot_percentile"] == "p50"
            assert prov["prices"]["usd_per_gpu_hour"] == 2.5
            assert prov["method"]["basis"] == "output"
    # The dashboard view named is the same view: its page opens at that address.
    views = [answer_of(r)["provenance"]["dashboard_url"] for r in results[2:6]]
    for view in views:
        assert http.get(view.removeprefix(DASHBOARD)).status_code == 200, view

    # check: the API's verdict without the check it stores; the MCP call stores none.
    before = count(session, SweepCheck)
    stored = http.post("/api/check", json=checked).json()
    assert count(session, SweepCheck) == before + 1
    got = answer_of(checked_result)
    assert stored.pop("check_id") > 0 and "check_id" not in got["answer"]
    json_equal(got["answer"], stored, "check")
    assert got["answer"]["verdict"] == "regression"
    assert got["provenance"]["sweeps"] == sweeps_behind(session, slower, base)
    assert got["provenance"]["dashboard_url"] == stored["compare_url"]
    assert count(session, SweepCheck) == before + 1


def test_hostile_arguments_over_http_get_the_api_error_text_and_the_server_goes_on(
    mcp_url: str, http: httpx.Client
) -> None:
    deep: Any = 1.0
    for _ in range(150):
        deep = [deep]
    cases: list[tuple[str, dict[str, Any], httpx.Response]] = [
        ("readoff", {"sweep": [HUGE]}, http.get("/api/readoff", params={"sweep": HUGE})),
        (
            "readoff",
            {"sweep": [1], "tpot_ms": 5, "min_tok_s_user": 5},
            http.get("/api/readoff", params={"sweep": 1, "tpot_ms": 5, "min_tok_s_user": 5}),
        ),
        ("get_sweep", {"sweep_id": 2**63 + 7}, http.get(f"/api/sweeps/{2**63 + 7}")),
        ("get_sweep", {"sweep_id": 2**31 - 1}, http.get(f"/api/sweeps/{2**31 - 1}")),
        ("list_sweeps", {"q": "a\x00b"}, http.get("/api/sweeps", params={"q": "a\x00b"})),
        ("compare", {"sweep": ["x"]}, http.get("/api/compare", params={"sweep": "x"})),
        ("plan", {"sweep": [1]}, http.get("/api/plan", params={"sweep": 1})),
        (
            "list_prices",
            {"hardware": "H" * 51},
            http.get("/api/pricing", params={"hardware": "H" * 51}),
        ),
        ("explain_metric", {"id": "nope"}, http.get("/api/metrics", params={"id": "nope"})),
        (
            "check",
            {"candidate": "a\x00", "baseline": "b"},
            http.post("/api/check", json={"candidate": "a\x00", "baseline": "b"}),
        ),
        (
            "check",
            {"candidate": "1", "baseline": "2"},
            http.post("/api/check", json={"candidate": "1", "baseline": "2"}),
        ),
    ]

    async def drive() -> list[Any]:
        async with Client(f"{mcp_url}/mcp") as client:
            results = [await client.call_tool(name, args) for name, args, _ in cases]
            results.append(await client.call_tool("readoff", {"sweep": [1], "ttft_ms": deep}))
            results.append(await client.call_tool("no_such_tool", {}))
            with pytest.raises(MCPError):
                await client.read_resource("paretoscope://sweeps/99999999999")
            results.append(await client.call_tool("explain_metric", {"id": "cost"}))
            return results

    *results, too_deep, unknown, after = on_own_loop(drive)
    for (name, _, api), result in zip(cases, results, strict=True):
        assert 400 <= api.status_code < 500, name
        error = refused(result)
        assert error["status"] == api.status_code, name
        assert (error["detail"], error["errors"]) == (api.json()["detail"], api.json()["errors"])
    assert refused(too_deep)["errors"][0]["field"].startswith("ttft_ms")
    assert "no tool 'no_such_tool'" in refused(unknown)["detail"]
    assert not after.is_error
    # JSON nested past the parser's limit is a parse error, and the server answers on.
    raw = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":' + "[" * 100_000
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    response = http.post("/mcp", content=raw + "]" * 100_000 + "}}", headers=headers)
    assert response.status_code == 400 and response.json()["error"]["code"] == -32700
    # The same Host allow-list and cross-site refusal as every route.
    assert (
        http.post("/mcp", content=b"{}", headers={**headers, "host": "evil.example"}).status_code
        == 400
    )
    cross = {**headers, "origin": "http://evil.example"}
    assert http.post("/mcp", content=b"{}", headers=cross).status_code == 403
    assert http.get("/healthz").status_code == 200


def test_mcp_is_not_served_over_http_unless_enabled(client: TestClient) -> None:
    assert client.post("/mcp", json={}).status_code == 404


# One process, on SQLite only: the HTTP tests above run every tool on both databases through the
# same server code; a process start costs ~2 s of the suite's time.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_stdio_server_answers_as_the_api_with_resources_a_prompt_and_refusals(
    client: TestClient, database_url: str, session: Session, tmp_path: Any
) -> None:
    base, slower = upload_main_and_slower(client)
    env = {
        "PARETOSCOPE_DATABASE_URL": database_url,
        "PARETOSCOPE_BASE_URL": DASHBOARD,
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "app.cli", "mcp"], env=env, cwd=tmp_path
    )
    readoff = {"sweep": [base, slower], **LIMITS, **PRICE}
    checked = {"candidate": str(slower), "baseline": "baseline:main", **LIMITS, **PRICE}

    async def drive() -> dict[str, Any]:
        async with Client(params) as mcp:
            return {
                "readoff": await mcp.call_tool("readoff", readoff),
                "sweep": await mcp.call_tool("get_sweep", {"sweep_id": slower}),
                "huge": await mcp.call_tool("readoff", {"sweep": [HUGE]}),
                "nul": await mcp.call_tool("list_sweeps", {"engine": "vllm\x00"}),
                "resources": await mcp.list_resources(),
                "templates": await mcp.list_resource_templates(),
                "metrics": await mcp.read_resource("paretoscope://metrics"),
                "resource": await mcp.read_resource(f"paretoscope://sweeps/{base}"),
                "prompts": await mcp.list_prompts(),
                "prompt": await mcp.get_prompt("price_sweep_at_slo", {"sweep": str(base)}),
                "after": await mcp.call_tool("explain_metric", {"id": "slo-percentile"}),
                # Every other tool too, each once: the same process, answers as the API's.
                "compare": await mcp.call_tool("compare", readoff),
                "plan": await mcp.call_tool("plan", {**readoff, "requests_per_s": 3}),
                "list_sweeps": await mcp.call_tool("list_sweeps", {"q": "slower"}),
                "list_prices": await mcp.call_tool("list_prices", {"hardware": "RTX4090"}),
                "check": await mcp.call_tool("check", checked),
            }

    got = on_own_loop(drive)
    answer = answer_of(got["readoff"])
    json_equal(answer["answer"], client.get("/api/readoff", params=readoff).json(), "readoff")
    assert answer["provenance"]["sweeps"] == sweeps_behind(session, base, slower)
    assert answer["provenance"]["dashboard_url"].startswith(f"{DASHBOARD}/?sweep={base}")
    json_equal(
        answer_of(got["sweep"])["answer"], client.get(f"/api/sweeps/{slower}").json(), "sweep"
    )
    api = client.get("/api/readoff", params={"sweep": HUGE}).json()
    assert refused(got["huge"])["detail"] == api["detail"]
    assert refused(got["nul"])["detail"] == "engine: contains a NUL byte"
    uris = [r.uri for r in got["resources"].resources]
    assert uris == [
        "paretoscope://metrics",
        f"paretoscope://sweeps/{slower}",
        f"paretoscope://sweeps/{base}",
    ]
    assert got["templates"].resource_templates[0].uri_template == "paretoscope://sweeps/{sweep_id}"
    metrics = json.loads(got["metrics"].contents[0].text)
    assert metrics["answer"] == client.get("/api/metrics").json()
    resource = json.loads(got["resource"].contents[0].text)
    json_equal(resource["answer"], client.get(f"/api/sweeps/{base}").json(), "resource")
    assert resource["provenance"]["sweeps"] == sweeps_behind(session, base)
    assert [p.name for p in got["prompts"].prompts] == ["price_sweep_at_slo"]
    text = got["prompt"].messages[0].content.text
    assert f"sweep {base}" in text and "Ask me for my limits" in text and "readoff" in text
    assert answer_of(got["after"])["answer"]["definitions"][0]["id"] == "slo-percentile"
    apis = {
        "compare": client.get("/api/compare", params=readoff),
        "plan": client.get("/api/plan", params={**readoff, "requests_per_s": 3}),
        "list_sweeps": client.get("/api/sweeps", params={"q": "slower"}),
        "list_prices": client.get("/api/pricing", params={"hardware": "RTX4090"}),
    }
    for name, api in apis.items():
        json_equal(answer_of(got[name])["answer"], without_figures(name, api.json()), name)
    stored = client.post("/api/check", json=checked).json()
    assert stored.pop("check_id") > 0
    # The same view, linked under the address each was told (this client's app has no base).
    stored = json.loads(json.dumps(stored).replace("http://testserver/", f"{DASHBOARD}/"))
    json_equal(answer_of(got["check"])["answer"], stored, "check")


def test_dashboard_links_follow_the_base_url_else_the_address_called_else_the_server() -> None:
    class Called:
        base_url = "http://perf.example:8080/"

    unset: dict[str, Any] = {"base_url": None, "public_url": None}
    named = Settings(**{**unset, "base_url": "https://dash.example/"})
    assert root_of(named, Called()) == "https://dash.example"
    assert root_of(Settings(**unset, host="0.0.0.0"), Called()) == "http://perf.example:8080"
    public = Settings(**{**unset, "public_url": "https://perf.example"})
    assert root_of(public) == "https://perf.example"
    assert root_of(Settings(**unset, host="0.0.0.0", port=9000)) == "http://localhost:9000"
    assert root_of(Settings(**unset, host="::1", port=9000)) == "http://[::1]:9000"
