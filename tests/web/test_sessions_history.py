"""History of multi-turn runs (issue 49): session attainment and E2E-normalized interactivity
by measured date, and agentic runs kept apart from fixed-length ones of the same system unless
the query allows different scenarios."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from tests.helpers import soup, upload_by_name
from tests.web.test_sessions_api import agentic_requests

HEAD = (
    "sweep,hardware,num_gpus,model,scenario,measured_at,concurrency,tpot_p50_ms,ttft_p90_ms,"
    "output_tok_s,duration_s,requests_per_s\n"
)
POINTS = HEAD + "".join(
    f"{name},H100,8,hist-model,{scenario},{date},{c},{20 + c / 8},300,{100 * c},100,{c}\n"
    for name, scenario, date in (
        ("agents-oct", "agentic-coding", "2026-10-01"),
        ("agents-nov", "agentic-coding", "2026-11-01"),
        ("fixed-oct", "", "2026-10-15"),
    )
    for c in (8, 16)
)
SLO = "preset=custom&ttft_ms=500&attainment=0.8&model=hist-model"


def stored_history(client: TestClient) -> dict[str, int]:
    text, _ = agentic_requests()
    body = text.splitlines()
    rows = [line.replace("agents,", "agents-oct,", 1) for line in body[1:]]
    rows += [line.replace("agents,", "agents-nov,", 1) for line in body[1:]]
    requests = "\n".join([body[0], *rows]) + "\n"
    return upload_by_name(
        client, ("hist.csv", POINTS.encode()), ("hist.requests.csv", requests.encode())
    )


def configurations(client: TestClient, query: str) -> dict[str, Any]:
    body = client.get(f"/api/history?{query}").json()
    return {c["label"]: c for c in body["configurations"]} | {"_body": body}


def test_history_keeps_agentic_runs_apart_and_reads_their_sessions_by_date(
    client: TestClient, seeded: None
) -> None:
    ids = stored_history(client)
    found = configurations(client, SLO)
    body = found.pop("_body")
    assert set(found) == {"8×H100 · hist-model", "8×H100 · hist-model · agentic-coding"}
    agentic = found["8×H100 · hist-model · agentic-coding"]
    assert agentic["config"]["scenario"] == "agentic-coding"
    assert found["8×H100 · hist-model"]["config"]["scenario"] is None
    assert [s["sweep_id"] for s in agentic["sweeps"]] == [ids["agents-oct"], ids["agents-nov"]]
    _, rows = agentic_requests()
    e2e = 1000.0 / float(np.percentile([r[2] / r[3] for r in rows if r[0] == 16 and r[4]], 90))
    for sweep in agentic["sweeps"]:
        sessions = sweep["sessions"]
        assert (sessions["count"], sessions["met"], sessions["cut"]) == (95, 80, 5)
        assert sessions["attainment_low"] == pytest.approx(0.7557039468613879, abs=1e-12)
        assert sweep["e2e_interactivity_tok_s_user"] == pytest.approx(e2e, abs=1e-9)
        assert sweep["turns"]["ttft_later_ms"] is not None
    [fixed] = found["8×H100 · hist-model"]["sweeps"]
    assert fixed["sessions"]["count"] is None and fixed["e2e_interactivity_tok_s_user"] is None
    [line] = body["sessions_figure"]["data"]
    assert line["x"] == ["2026-10-01", "2026-11-01"]
    assert line["y"] == [80 / 95, 80 / 95]
    assert line["error_y"]["arrayminus"] == pytest.approx([80 / 95 - 0.7557039468613879] * 2)
    assert body["e2e_figure"]["data"][0]["y"] == pytest.approx([e2e, e2e], abs=1e-9)


def test_history_mixes_agentic_and_fixed_length_runs_only_when_asked(
    client: TestClient, seeded: None
) -> None:
    stored_history(client)
    found = configurations(client, SLO + "&allow_different=1")
    found.pop("_body")
    [(label, mixed)] = found.items()
    assert label == "8×H100 · hist-model · multi-turn and fixed-length mixed"
    assert mixed["config"]["scenario"] == "mixed"
    assert [s["name"] for s in mixed["sweeps"]] == ["agents-oct", "fixed-oct", "agents-nov"]


def test_the_history_page_shows_sessions_and_e2e_speed_for_multi_turn_runs_only(
    client: TestClient, seeded: None
) -> None:
    stored_history(client)
    page = soup(client.get(f"/history?{SLO}").text)
    assert page.select_one("#history-sessions-figure") is not None
    tables = {
        g.select_one("h2").get_text(" ", strip=True).split(" — ")[0]: g
        for g in page.select(".history-group")
    }
    agentic = tables["8×H100 · hist-model · agentic-coding"]
    cells = [td.get_text(" ", strip=True) for td in agentic.select("td.sessions")]
    assert cells == ["84.2 % [75.6 %, 90.2 %] of 95 sessions, 5 cut"] * 2
    assert tables["8×H100 · hist-model"].select("td.sessions") == []
    assert "Sessions met" not in tables["8×H100 · hist-model"].select_one("thead").get_text()
