"""A claim's harness provenance (issue 51): who measured its number, an independent harness or
the vendor's own setup, through the API, the form, the audit and its open questions."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.provenance import claim_provenance_text
from app.store.models import VendorClaim
from tests.helpers import soup

CLAIM = {
    "vendor": "NVIDIA",
    "hardware": "H200",
    "model": "Llama 3.1 70B",
    "precision": "fp8",
    "value_tok_s": 3000,
    "measures": "per_gpu",
    "token_basis": "output",
}
HARNESS_QUESTION = (
    "Which harness measured it: an independent one (MLPerf, InferenceX) or the vendor's own setup?"
)


def test_a_claims_provenance_is_written_as_harness_and_who_ran_it() -> None:
    assert claim_provenance_text("MLPerf Inference v5.1", "independent") == (
        "MLPerf Inference v5.1 · independent harness"
    )
    assert claim_provenance_text(None, "vendor") == "vendor's own setup"
    assert claim_provenance_text("NVIDIA lab", None) == "NVIDIA lab · provenance not stated"
    assert claim_provenance_text(None, None) == "provenance not stated"


def test_the_api_stores_a_claims_harness_and_provenance_and_the_audit_shows_them(
    client: TestClient, catalog: None
) -> None:
    body = {**CLAIM, "harness": "MLPerf Inference v5.1", "provenance": "independent"}
    response = client.post("/api/claims", json=body)
    assert response.status_code == 201, response.text
    claim_id = response.json()["id"]
    stored = client.get(f"/api/claims/{claim_id}").json()
    assert (stored["harness"], stored["provenance"]) == ("MLPerf Inference v5.1", "independent")
    assert stored["provenance_text"] == "MLPerf Inference v5.1 · independent harness"
    audit = client.get(f"/api/claims/{claim_id}/audit").json()
    assert audit["claim"]["provenance_text"] == "MLPerf Inference v5.1 · independent harness"
    assert HARNESS_QUESTION not in audit["open_questions"]
    page = soup(client.get(f"/claims/{claim_id}"), expect=200)
    shown = page.select_one("#claim-provenance dd")
    assert shown is not None
    assert shown.get_text(strip=True) == "MLPerf Inference v5.1 · independent harness"


def test_a_claim_that_does_not_say_who_measured_it_is_asked(
    client: TestClient, catalog: None
) -> None:
    claim_id = client.post("/api/claims", json=CLAIM).json()["id"]
    audit = client.get(f"/api/claims/{claim_id}/audit").json()
    assert (audit["claim"]["harness"], audit["claim"]["provenance"]) == (None, None)
    assert audit["claim"]["provenance_text"] == "provenance not stated"
    assert HARNESS_QUESTION in audit["open_questions"]


def test_an_unknown_provenance_is_refused_naming_the_field(
    client: TestClient, session: Session, catalog: None
) -> None:
    response = client.post("/api/claims", json={**CLAIM, "provenance": "marketing"})
    assert response.status_code == 422
    assert "provenance" in response.text
    assert session.query(VendorClaim).count() == 0


def test_the_form_saves_the_vendors_own_setup_and_shows_it_when_edited(
    client: TestClient, session: Session, catalog: None
) -> None:
    form = {**CLAIM, "harness": "NVIDIA lab (TensorRT-LLM)", "provenance": "vendor"}
    response = client.post("/claims", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    claim_id = int(response.headers["location"].rsplit("/", 1)[1])
    stored = session.get(VendorClaim, claim_id)
    assert stored is not None
    assert (stored.harness, stored.provenance) == ("NVIDIA lab (TensorRT-LLM)", "vendor")
    edit = soup(client.get(f"/claims?edit={claim_id}"), expect=200)
    harness = edit.select_one("#claim-form input[name=harness]")
    chosen = edit.select_one("#claim-form select[name=provenance] option[selected]")
    assert harness is not None and harness["value"] == "NVIDIA lab (TensorRT-LLM)"
    assert chosen is not None and chosen["value"] == "vendor"
    # Cleared on the form: not stated again.
    cleared = {**form, "harness": "", "provenance": ""}
    assert client.post(f"/claims/{claim_id}", data=cleared).status_code in (200, 303)
    session.expire_all()
    again = session.get(VendorClaim, claim_id)
    assert again is not None and (again.harness, again.provenance) == (None, None)
