"""Claims: the API and pages, the audit of the O6 claims, the SLO section, Explore markers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.schemas.claims import ClaimIn
from app.services.seed import seed
from app.store.models import Hardware, VendorClaim
from tests.factories import post_files
from tests.helpers import soup

O6_PER_USER = {
    "vendor": "Worked example",
    "hardware": "H200",
    "model": "Llama 3.1 70B",
    "precision": "FP8",
    "value_tok_s": 3000,
    "measures": "per_user",
    "token_basis": "output",
}
O6_AGGREGATE = {**O6_PER_USER, "measures": "system", "batch": 64}
# Oracle O11 on 8 H200 with a 70B model: at p90 TPOT ≤ 35 ms and TTFT ≤ 300 ms the goodput is
# 25,600 / 8 = 3,200 tok/s per GPU at concurrency 16.
H200_SWEEP = (
    b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,output_tok_s,"
    b"requests_per_s\n"
    b"o11-h200,H200,8,llama-3.1-70b,8,18,20,150,16000,2.0\n"
    b"o11-h200,H200,8,llama-3.1-70b,16,25,28,180,25600,3.2\n"
    b"o11-h200,H200,8,llama-3.1-70b,32,38,42,260,38400,4.8\n"
    b"o11-h200,H200,8,llama-3.1-70b,64,60,70,600,48000,6.0\n"
)
OTHER_SWEEPS = (
    b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s\n"
    b"h100-70b,H100,8,llama-3.1-70b,8,25,2400\n"
    b"h200-8b,H200,1,llama-3.1-8b,8,10,800\n"
)
SLO = {"ttft_ms": 300, "tpot_ms": 35, "usd_per_gpu_hour": 2.0}


def claims_in(session: Session) -> int:
    session.expire_all()
    return session.scalar(select(func.count()).select_from(VendorClaim)) or 0


def create(client: TestClient, body: dict[str, Any], **headers: str) -> int:
    response = client.post("/api/claims", json=body, headers=headers)
    assert response.status_code == 201, response.text
    claim_id: int = response.json()["id"]
    return claim_id


def audit(client: TestClient, claim_id: int, **params: Any) -> dict[str, Any]:
    response = client.get(f"/api/claims/{claim_id}/audit", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def text_of(page: BeautifulSoup, selector: str) -> str:
    element = page.select_one(selector)
    assert element is not None, selector
    return str(element.get_text(" ", strip=True))


def test_the_o6_per_user_claim_audits_as_impossible_with_68_24_and_210_tb_s(
    client: TestClient, catalog: None
) -> None:
    claim = create(client, O6_PER_USER)
    physics = audit(client, claim, params_b=70)["physics"]
    assert physics["verdict"] == "impossible"
    assert round(physics["ceiling_tok_s_user"], 2) == 68.24
    assert round(physics["required_bandwidth_tb_s"], 1) == 210.0
    assert round(physics["required_accepted_length"]) == 44
    assert physics["summary"].startswith("impossible without ~44× speculative acceptance")
    page = soup(client.get(f"/claims/{claim}", params={"params_b": 70}).text)
    assert text_of(page, "#ceiling-user") == "68.2 tok/s/user"
    assert text_of(page, "#needed-bandwidth") == "210 TB/s"
    assert text_of(page, "#physics-verdict").startswith("impossible without ~44× speculative")
    rows = {
        tr.select("td")[0].text: tr.select("td")[2].text
        for tr in page.select("#physics-steps tbody tr")
    }
    assert rows["Bytes read per step"] == "70.3355"
    assert rows["Memory time per step"] == "14.6532"
    # With the catalog's 70.55B parameters the ceiling is a little lower.
    assert round(audit(client, claim)["physics"]["ceiling_tok_s_user"], 2) == 67.71


def test_the_o6_aggregate_claim_is_possible_under_3358_3_at_batch_64(
    client: TestClient, catalog: None
) -> None:
    claim = create(client, O6_AGGREGATE)
    physics = audit(client, claim, params_b=70)["physics"]
    assert physics["verdict"] == "physically possible"
    assert round(physics["ceiling_tok_s"], 1) == 3358.3
    assert physics["ceiling_batch"] == 64
    page = soup(client.get(f"/claims/{claim}", params={"params_b": 70}).text)
    assert text_of(page, "#ceiling-aggregate") == "3,358 tok/s"
    assert text_of(page, "#b-max") == "169"


def test_b_max_is_83_at_a_2048_token_context_with_90_percent_of_hbm(
    client: TestClient, catalog: None
) -> None:
    claim = create(client, {**O6_AGGREGATE, "isl": 1536, "osl": 512})
    physics = audit(client, claim)["physics"]
    assert physics["context"]["capacity_tokens"] == 2048
    assert physics["b_max"] == 83


def test_the_audit_slo_section_agrees_with_the_readoff_api_for_the_same_sweeps(
    client: TestClient, catalog: None
) -> None:
    [sweep] = [s["id"] for s in post_files(client, ("o11.csv", H200_SWEEP)).json()["sweeps"]]
    others = [s["id"] for s in post_files(client, ("x.csv", OTHER_SWEEPS)).json()["sweeps"]]
    claim = create(client, {**O6_PER_USER, "measures": "per_gpu", "value_tok_s": 6400})
    body = audit(client, claim, **SLO)
    assert body["sweeps"] == {"matching": [sweep], "compared": [sweep], "chosen": False}
    readoff = client.get("/api/readoff", params={"sweep": sweep, "basis": "output", **SLO})
    assert body["at_slo"]["readoff"] == readoff.json()
    [row] = body["at_slo"]["comparisons"]
    assert row["goodput_tok_s_per_gpu"] == 3200.0
    assert row["headline_inflation"] == 2.0
    [cost] = row["costs"]
    assert cost["goodput_usd_per_mtok"] == pytest.approx(2.0 / (3200 * 3600 / 1e6))
    assert cost["claim_usd_per_mtok"] == pytest.approx(2.0 / (6400 * 3600 / 1e6))
    page = soup(client.get(f"/claims/{claim}", params=SLO).text)
    assert text_of(page, "#slo-table td.goodput") == "3,200"
    assert text_of(page, "#slo-table td.inflation") == "2 ×"
    assert text_of(page, "#slo-table td.cost") == "$0.09 · $0.17"
    link = page.select_one("#readoff-link")
    assert link is not None
    assert client.get(str(link["href"])).json() == readoff.json()
    chosen = audit(client, claim, sweep=others, **SLO)
    assert chosen["sweeps"]["compared"] == others
    assert (
        chosen["at_slo"]["readoff"]
        == client.get("/api/readoff", params={"sweep": others, "basis": "output", **SLO}).json()
    )


def test_a_total_token_claim_against_a_sweep_without_total_throughput_says_why(
    client: TestClient, catalog: None
) -> None:
    post_files(client, ("o11.csv", H200_SWEEP))
    claim = create(client, {**O6_PER_USER, "measures": "per_gpu", "token_basis": "total"})
    [row] = audit(client, claim, **SLO)["at_slo"]["comparisons"]
    assert row["basis"] == "total"
    assert row["headline_inflation"] is None
    assert row["reason"].startswith("the sweep has no total throughput (total_tok_s)")
    [row] = audit(client, claim, basis="output", **SLO)["at_slo"]["comparisons"]
    assert row["reason"].startswith("the claim counts total tokens and gives no ISL/OSL")


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"value_tok_s": -5}, "value_tok_s", "greater than 0"),
        ({"hardware": "TPU9"}, "hardware", "'TPU9' is not in the hardware catalog"),
        ({"token_basis": None}, "token_basis", "say whether the number counts output tokens"),
        ({"measures": "per_node"}, "measures", "per_user"),
        ({"batch": 0}, "batch", "greater than or equal to 1"),
    ],
)
def test_bad_claim_input_gets_a_clear_error_naming_the_field_and_stores_nothing(
    client: TestClient,
    session: Session,
    catalog: None,
    change: dict[str, Any],
    field: str,
    message: str,
) -> None:
    body = {k: v for k, v in {**O6_PER_USER, **change}.items() if v is not None}
    response = client.post("/api/claims", json=body)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [e["field"] for e in errors] == [field]
    assert message in errors[0]["message"]
    assert claims_in(session) == 0


def test_the_form_refuses_bad_input_listing_each_field_and_stores_nothing(
    client: TestClient, session: Session, catalog: None
) -> None:
    form = {**O6_PER_USER, "value_tok_s": "-1", "token_basis": "", "batch": "0"}
    response = client.post("/claims", data=form)
    assert response.status_code == 422
    items = [li.text for li in soup(response.text).select("#claim-form .alert li")]
    assert items == [
        "value_tok_s: Input should be greater than 0",
        "token_basis: say whether the number counts output tokens or input + output tokens"
        " (output | total)",
        "batch: Input should be greater than or equal to 1",
    ]
    assert claims_in(session) == 0
    unknown = client.post("/claims", data={**O6_PER_USER, "hardware": "TPU9"})
    assert unknown.status_code == 422
    assert "'TPU9' is not in the hardware catalog" in text_of(soup(unknown.text), ".alert")
    assert claims_in(session) == 0


def test_a_claim_from_the_form_is_stored_and_opens_its_audit(
    client: TestClient, session: Session, catalog: None
) -> None:
    form = {**O6_PER_USER, "hardware": "h200", "isl": ""}
    response = client.post("/claims", data=form, follow_redirects=False)
    assert response.status_code == 303
    claim_id = int(response.headers["location"].rsplit("/", 1)[1])
    stored = session.get(VendorClaim, claim_id)
    assert stored is not None
    assert (stored.hardware, stored.scope_gpus, stored.isl) == ("H200", 1, None)
    page = soup(client.get(f"/claims/{claim_id}").text)
    assert text_of(page, "#claim-title") == "Worked example: 3,000 tok/s per user"
    questions = [li.text for li in page.select("#open-questions li")]
    assert any(q.startswith("Which input and output lengths") for q in questions)
    assert page.select_one("#placement [data-figure=claim-figure]") is not None


def test_claims_crud_through_the_api(client: TestClient, catalog: None) -> None:
    claim = create(client, {**O6_AGGREGATE, "gpu_scope": "node"})
    detail = client.get(f"/api/claims/{claim}").json()
    assert (detail["gpu_scope"], detail["scope_gpus"], detail["batch"]) == ("node", 8, 64)
    listed = client.get("/api/claims").json()["claims"]
    assert [(c["id"], c["verdict"]) for c in listed] == [(claim, "physically possible")]
    updated = client.put(f"/api/claims/{claim}", json={**O6_AGGREGATE, "value_tok_s": 9000})
    assert updated.status_code == 200
    assert updated.json()["value_tok_s"] == 9000
    assert client.delete(f"/api/claims/{claim}").status_code == 204
    assert client.get(f"/api/claims/{claim}").status_code == 404
    assert client.get(f"/claims/{claim}").status_code == 404


def test_a_per_gpu_scope_with_several_gpus_is_refused(client: TestClient, catalog: None) -> None:
    response = client.post("/api/claims", json={**O6_PER_USER, "scope_gpus": 8})
    assert response.status_code == 422
    assert "a per-GPU scope has 1 GPU" in response.json()["detail"]


def test_the_write_token_is_enforced_on_post_put_and_delete(
    make_client: Callable[..., TestClient], session: Session, catalog: None
) -> None:
    client = make_client(write_token="s3cret")
    assert client.post("/api/claims", json=O6_PER_USER).status_code == 401
    assert claims_in(session) == 0
    claim = create(client, O6_PER_USER, Authorization="Bearer s3cret")
    assert client.put(f"/api/claims/{claim}", json=O6_AGGREGATE).status_code == 401
    assert client.delete(f"/api/claims/{claim}").status_code == 401
    assert client.post("/claims", data=O6_PER_USER).status_code == 401
    assert client.post(f"/claims/{claim}/delete").status_code == 401
    assert claims_in(session) == 1
    assert client.get(f"/api/claims/{claim}").json()["measures"] == "per_user"


def test_seeded_claims_are_listed_with_source_date_and_verdict(
    client: TestClient, session: Session, seeded: None
) -> None:
    page = soup(client.get("/claims").text)
    rows = page.select("#claims-table tbody tr")
    assert len(rows) == claims_in(session) == 9
    verdicts = [text_of(tr, ".verdict") for tr in rows]
    assert verdicts == [
        "cannot check",
        "cannot check",
        "physically possible",
        "physically possible",
        "impossible",
        "physically possible",
        "physically possible",  # MLPerf v6.1 VR-NVL72 DeepSeek-R1 Server: 1,175,890 tok/s
        "possible only with speculative decoding",  # 50,000 tok/s/user on a GB300 NVL72 rack
        "physically possible",  # the same on Vera Rubin NVL72: 2.4x the bandwidth
    ]
    real = [c for c in session.scalars(select(VendorClaim)) if c.vendor == "NVIDIA"]
    assert all(c.source_url and c.source_url.startswith("https://") for c in real)
    assert all(c.claimed_at is not None for c in real)
    seed(session)
    session.commit()
    assert claims_in(session) == 9


def test_the_claims_page_and_api_read_the_catalog_once_however_many_claims(
    client: TestClient, session: Session, seeded: None, statements: list[str]
) -> None:
    def run() -> dict[str, int]:
        counts = {}
        for path in ("/claims", "/api/claims"):
            client.get(path)  # the first after a change reads the catalog again
            statements.clear()
            assert client.get(path).status_code == 200
            counts[path] = len(statements)
        return counts

    few = run()
    before = client.get("/api/claims").json()["claims"]
    copies: dict[int, str] = {}  # copy's id: its original's verdict
    for claim in before:
        fields = {k: v for k, v in claim.items() if k in ClaimIn.model_fields and v is not None}
        for _ in range(5):
            copies[create(client, fields)] = claim["verdict"]
    after = {c["id"]: c["verdict"] for c in client.get("/api/claims").json()["claims"]}
    assert len(after) == 54
    assert {i: after[i] for i in copies} == copies  # each copy judged as its original
    assert {c["id"]: after[c["id"]] for c in before} == {c["id"]: c["verdict"] for c in before}
    assert sorted(set(copies.values())) == [
        "cannot check",
        "impossible",
        "physically possible",
        "possible only with speculative decoding",
    ]
    assert run() == few  # no query per claim


def test_a_hardware_edit_changes_the_listed_verdict_on_the_next_request(
    client: TestClient, session: Session, catalog: None
) -> None:
    create(client, O6_PER_USER)
    assert [c["verdict"] for c in client.get("/api/claims").json()["claims"]] == ["impossible"]
    # O6: 3,000 tok/s per user needs ~210 TB/s; give the H200 300 (another writer's change).
    session.execute(update(Hardware).where(Hardware.key == "H200").values(mem_bw_tb_s=300))
    session.commit()
    listed = client.get("/api/claims").json()["claims"]
    assert [c["verdict"] for c in listed] == ["physically possible"]
    page = soup(client.get("/claims").text)
    assert [text_of(tr, ".verdict") for tr in page.select("#claims-table tbody tr")] == [
        "physically possible"
    ]


def test_an_empty_claims_page_says_what_to_do(client: TestClient) -> None:
    empty = text_of(soup(client.get("/claims").text), ".empty")
    assert "No claims yet" in empty and "paretoscope seed" in empty


def test_claims_show_as_markers_on_explore_and_worked_examples_only_when_asked_for(
    client: TestClient, seeded: None
) -> None:
    def claim_traces(**params: Any) -> list[dict[str, Any]]:
        figure = client.get("/api/explore", params=params).json()["figure"]
        return [t for t in figure["data"] if t.get("meta") == "claim"]

    # The seeded sweeps' GPUs and models match only the two worked examples, which are off
    # by default: they are teaching material, not anyone's claim.
    assert claim_traces() == []
    assert len(claim_traces(claims="all")) == 5
    everything = claim_traces(claims="examples")
    assert len(everything) == 9
    examples = [t for t in everything if "Worked example (metrics" in t["name"]]
    # 3,000 tok/s per user lies far beyond the seeded sweeps: an edge marker whose hover gives
    # the claimed value; 3,000 tok/s per GPU is within the B200 sweep's range: a line.
    assert [t["name"] for t in examples] == [
        "Claim · Worked example (metrics-and-costs O6), not a vendor · 3,000 tok/s per user"
        " ▸ beyond the axis",
        "Claim · Worked example (metrics-and-costs O6), not a vendor · 3,000 tok/s for the system",
    ]
    per_user, aggregate = examples
    assert per_user["mode"] == "markers" and "3,000 tok/s/user</b>" in per_user["text"][0]
    assert aggregate["mode"] == "lines" and aggregate["y"] == [3000.0, 3000.0]
    assert "physics: impossible" in per_user["text"][0]
    assert claim_traces(claims="none") == []


def test_explores_physics_limits_and_claim_markers_run_no_query_of_their_own(
    client: TestClient, seeded: None, statements: list[str]
) -> None:
    def drawn(ttft_ms: int, **params: Any) -> tuple[int, list[str]]:
        """Statements run for Explore's JSON twin, and the kinds of trace it draws."""
        client.get("/api/explore", params={"ttft_ms": ttft_ms - 1})  # the catalog read once
        statements.clear()
        figure = client.get("/api/explore", params={"ttft_ms": ttft_ms, **params}).json()
        kinds = [t["meta"] for t in figure["figure"]["data"] if isinstance(t["meta"], str)]
        return len(statements), sorted(set(kinds))

    plain, none = drawn(401, claims="none")
    assert none == []
    marked, kinds = drawn(402, roofline_model="llama-3.1-70b", claims="examples")
    assert kinds == ["claim", "edge", "kv-bound", "roofline"]
    assert marked == plain


def test_a_vendor_claim_on_the_shown_gpu_and_model_is_marked_by_default(
    client: TestClient, seeded: None
) -> None:
    real = {**O6_AGGREGATE, "vendor": "Acme", "value_tok_s": 2500}
    created = client.post("/api/claims", json=real)
    assert created.status_code == 201, created.text
    figure = client.get("/api/explore").json()["figure"]
    names = [t["name"] for t in figure["data"] if t.get("meta") == "claim"]
    assert names == ["Claim · Acme · 2,500 tok/s for the system"]


def test_a_claim_with_both_axes_is_a_diamond_on_the_audit_chart(
    client: TestClient, catalog: None
) -> None:
    claim = create(client, {**O6_AGGREGATE, "interactivity_tok_s_user": 40})
    traces = audit(client, claim)["figure"]["data"]
    [marker] = [t for t in traces if t.get("meta") == "claim"]
    assert (marker["mode"], marker["x"], marker["y"]) == ("markers", [40.0], [3000.0])
    assert marker["marker"]["symbol"] == "diamond"
    [curve] = [t for t in traces if t.get("meta") == "roofline"]
    assert curve["name"] == "Physics limit · H200 × 1 · llama-3.1-70b fp8 · ctx 1,024"


def test_the_audit_uses_explores_default_slo_preset_unless_told_otherwise(
    client: TestClient, seeded: None
) -> None:
    def slo(**params: Any) -> tuple[str | None, str]:
        at = audit(client, 2, **params)["at_slo"]
        return at["preset"], at["readoff"]["slo"]["description"]

    assert slo() == ("chat-interactive", "p99 TTFT ≤ 500 ms, p50 TPOT ≤ 40 ms")
    assert slo(preset="reasoning") == ("reasoning", "p99 TTFT ≤ 1,500 ms, p50 TPOT ≤ 15 ms")
    assert slo(preset="custom", ttft_ms=300, tpot_ms=20, ttft_percentile="p99.9") == (
        None,
        "p99.9 TTFT ≤ 300 ms, p90 TPOT ≤ 20 ms",
    )
    assert slo(preset="none", ttft_ms=300) == (None, "no limits")
    assert slo(preset="custom") == (None, "no limits")
    assert slo(ttft_ms=300) == (None, "p90 TTFT ≤ 300 ms")
    page = soup(client.get("/claims/2").text)
    field = page.select_one("#at-slo input[name=ttft_ms]")
    assert field is not None and field["value"] == "500"
    assert "(preset chat-interactive)" in text_of(page, "#at-slo h2")
