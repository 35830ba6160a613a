"""A claim gets a verdict: read at its own interactivity against every sweep of its model's
architecture (any model of it, any hardware; only its own hardware judges), said in one
sentence, the same in the audit's JSON and on its page."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.schemas.answers.claims import ClaimAudit
from tests.factories import post_files
from tests.helpers import soup

# tok/s per GPU = output_tok_s ÷ 8; interactivity = 1000 ÷ TPOT p50.
SWEEPS = (
    b"sweep,hardware,num_gpus,model,concurrency,tpot_p50_ms,output_tok_s\n"
    # Llama 3.3 70B on H100: 25, 52.6 and 100 tok/s/user; 700, 210 and 80 tok/s/GPU.
    b"llama33-h100,H100,8,meta-llama/Llama-3.3-70B-Instruct,64,40,5600\n"
    b"llama33-h100,H100,8,meta-llama/Llama-3.3-70B-Instruct,16,19,1680\n"
    b"llama33-h100,H100,8,meta-llama/Llama-3.3-70B-Instruct,2,10,640\n"
    # Llama 3.1 70B (the same architecture) on H100: 180 tok/s/GPU at 62.5 tok/s/user.
    b"llama31-h100,H100,8,llama-3.1-70b,16,16,1440\n"
    b"llama31-h100,H100,8,llama-3.1-70b,64,35,4800\n"
    # Llama 3.3 70B on A100: other hardware, listed, not judging.
    b"llama33-a100,A100,8,Llama-3.3-70B,8,15,2400\n"
    # Llama 2 70B on H100: another architecture, not read.
    b"llama2-h100,H100,8,llama-2-70b,8,10,8000\n"
)
CLAIM = {
    "vendor": "Vendor",
    "hardware": "H100",
    "gpu_scope": "node",
    "scope_gpus": 8,
    "model": "Llama 3.3 70B",
    "value_tok_s": 3000,
    "measures": "per_gpu",
    "token_basis": "output",
    "interactivity_tok_s_user": 50,
}


def _claim(client: TestClient, **changes: Any) -> int:
    response = client.post("/api/claims", json=CLAIM | changes)
    assert response.status_code == 201, response.text
    claim_id: int = response.json()["id"]
    return claim_id


def _verdict(client: TestClient, claim_id: int) -> tuple[dict[str, Any], str]:
    answer = client.get(f"/api/claims/{claim_id}/audit")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    ClaimAudit.model_validate(body)
    page = soup(client.get(f"/claims/{claim_id}").text)
    shown = page.select_one("#claim-verdict-sentence")
    assert shown is not None
    verdict: dict[str, Any] = body["verdict"]
    return verdict, shown.get_text("", strip=True)


def test_a_claim_is_read_at_its_own_interactivity_and_gets_one_sentence(
    client: TestClient, catalog: None
) -> None:
    assert post_files(client, ("sweeps.csv", SWEEPS)).status_code == 201
    ids = {s["name"]: s["id"] for s in client.get("/api/sweeps").json()["sweeps"]}

    inflated, shown = _verdict(client, _claim(client))
    sentence = (
        "does not hold: the best measured at 50 tok/s/user is 210 tok/s/GPU "
        "(llama33-h100, H100), 14.3× below"
    )
    assert (inflated["state"], inflated["sentence"], shown) == ("does_not_hold", sentence, sentence)
    assert inflated["ratio"] == 3000 / 210 and inflated["best_sweep_id"] == ids["llama33-h100"]
    read = {s["name"]: s for s in inflated["sweeps"]}
    assert set(read) == {"llama33-h100", "llama31-h100", "llama33-a100"}  # not Llama 2 70B
    assert read["llama31-h100"]["same_model"] is False  # same architecture, marked as such
    assert read["llama31-h100"]["tok_s_per_gpu"] == 180.0
    assert read["llama31-h100"]["interactivity_tok_s_user"] == 62.5
    assert read["llama33-a100"]["same_hardware"] is False
    assert read["llama33-a100"]["tok_s_per_gpu"] == 300.0  # more, but not the claim's GPU

    holds, shown = _verdict(client, _claim(client, value_tok_s=150))
    sentence = (
        "holds: the best measured at 50 tok/s/user is 210 tok/s/GPU (llama33-h100, H100), "
        "1.4× the claim"
    )
    assert (holds["state"], holds["sentence"], shown) == ("holds", sentence, sentence)

    too_fast, shown = _verdict(client, _claim(client, interactivity_tok_s_user=120))
    sentence = "cannot say: no H100 sweep reaches 120 tok/s/user"
    assert (too_fast["state"], too_fast["sentence"], shown) == ("cannot_say", sentence, sentence)
    assert "no point reaches 120 tok/s/user (its fastest: 100)" in [
        s["reason"] for s in too_fast["sweeps"]
    ]

    a100_only = _verdict(client, _claim(client, interactivity_tok_s_user=60, hardware="A100"))[0]
    assert a100_only["sentence"] == (
        "does not hold: the best measured at 60 tok/s/user is 300 tok/s/GPU "
        "(llama33-a100, A100), 10× below"
    )
    nowhere = _verdict(client, _claim(client, hardware="B200"))[0]
    assert nowhere["sentence"] == (
        "cannot say: no sweep of this model architecture on B200 is stored (on other hardware "
        "the best is 300 tok/s/GPU: llama33-a100, A100)"
    )
    total = _verdict(client, _claim(client, token_basis="total", isl=1000, osl=1000))[0]
    assert total["sentence"] == "cannot say: no H100 sweep has throughput on the claim's basis"
    assert {s["reason"] for s in total["sweeps"]} == {"no total throughput (total_tok_s)"}
    unsaid = _verdict(client, _claim(client, interactivity_tok_s_user=None))[0]
    assert unsaid["sentence"] == (
        "cannot say: the claim names no interactivity (tok/s/user) to read the sweeps at"
    )


def test_the_audit_page_offers_every_sweep_of_the_architecture_marked(
    client: TestClient, catalog: None
) -> None:
    assert post_files(client, ("sweeps.csv", SWEEPS)).status_code == 201
    ids = {s["name"]: s["id"] for s in client.get("/api/sweeps").json()["sweeps"]}
    claim_id = _claim(client)
    body = client.get(f"/api/claims/{claim_id}/audit").json()
    # The claim's hardware and architecture, Llama 3.1 70B included, are compared at the SLO.
    assert body["sweeps"]["matching"] == sorted([ids["llama33-h100"], ids["llama31-h100"]])
    page = soup(client.get(f"/claims/{claim_id}").text)
    rows = {r["data-sweep-id"]: r for r in page.select("#verdict-sweeps tbody tr")}
    a100 = rows[str(ids["llama33-a100"])]
    assert "other-hardware" in a100["class"]
    assert "other hardware: not judged" in a100.select_one(".hardware").get_text(" ", strip=True)
    llama31 = rows[str(ids["llama31-h100"])]
    assert "same architecture" in llama31.select_one(".model").get_text(" ", strip=True)
    assert llama31.select_one(".best").get_text(strip=True) == "180"
    offered = {int(str(i["value"])) for i in page.select("#at-slo input[name=sweep]")}
    assert {ids["llama33-a100"], ids["llama31-h100"]} <= offered
    assert page.select_one("#inflation-note") is not None
