"""Harness provenance: which harness made a sweep's numbers, independent or the vendor's own,
on Compare and in the claim audit (issue 51)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.factories import post_files
from tests.helpers import soup

# One vendor sweep and one the user ran, with the harness named in the file's own columns.
VENDOR_AND_OWN = (
    b"sweep,hardware,num_gpus,model,harness,harness_version,provenance,concurrency,"
    b"tpot_p50_ms,tpot_p90_ms,ttft_p90_ms,output_tok_s\n"
    b"Vendor,H200,1,Llama 3.1 70B,vendor script,,vendor,64,50,60,200,5000\n"
    b"Vendor,H200,1,Llama 3.1 70B,vendor script,,vendor,16,25,30,150,4000\n"
    b"Own,H200,1,Llama 3.1 70B,vllm bench serve,0.11.0,independent,64,40,48,200,2500\n"
    b"Own,H200,1,Llama 3.1 70B,vllm bench serve,0.11.0,independent,16,25,30,150,2000\n"
)
VENDOR_TEXT = "vendor script · vendor's own setup"
OWN_TEXT = "vllm bench serve 0.11.0 · independent harness"


def provenance_ids(client: TestClient) -> list[int]:
    response = post_files(client, ("runs.csv", VENDOR_AND_OWN))
    assert response.status_code == 201, response.text
    return [s["id"] for s in response.json()["sweeps"]]


def test_compare_names_who_made_each_sides_numbers(client: TestClient) -> None:
    vendor, own = provenance_ids(client)
    params = {"picked": 1, "preset": "custom", "sweep": [vendor, own]}
    answer = client.get("/api/compare", params=params)
    assert answer.status_code == 200, answer.text
    [pair] = answer.json()["pairs"]
    sides = {pair[k]["sweep_id"]: pair[k]["provenance"] for k in ("a", "b")}
    assert sides == {vendor: VENDOR_TEXT, own: OWN_TEXT}
    page = soup(client.get("/compare", params=params), expect=200)
    line = page.select_one(".provenance")
    assert line is not None
    a, b = sides[pair["a"]["sweep_id"]], sides[pair["b"]["sweep_id"]]
    assert line.get_text(" ", strip=True) == f"Numbers from: {a} vs {b}"


def test_the_claim_audit_says_whether_each_compared_sweep_is_independent(
    client: TestClient, catalog: None
) -> None:
    vendor, own = provenance_ids(client)
    claim = client.post(
        "/api/claims",
        json={
            "vendor": "Worked example",
            "hardware": "H200",
            "model": "Llama 3.1 70B",
            "value_tok_s": 3000,
            "measures": "per_gpu",
            "token_basis": "output",
        },
    )
    assert claim.status_code == 201, claim.text
    claim_id = claim.json()["id"]
    params = {"sweep": [vendor, own], "tpot_ms": 60, "ttft_ms": 300}
    body = client.get(f"/api/claims/{claim_id}/audit", params=params).json()
    shown = {c["sweep_id"]: c["provenance"] for c in body["at_slo"]["comparisons"]}
    assert shown == {vendor: VENDOR_TEXT, own: OWN_TEXT}
    page = soup(client.get(f"/claims/{claim_id}", params=params), expect=200)
    cells = [c.get_text(strip=True) for c in page.select("#slo-table .provenance")]
    assert cells == [VENDOR_TEXT, OWN_TEXT]


def test_a_provenance_that_is_neither_independent_nor_vendor_is_refused(
    client: TestClient,
) -> None:
    response = post_files(client, ("runs.csv", VENDOR_AND_OWN), provenance="mine")
    assert response.status_code == 422
    assert "provenance" in response.text and "independent" in response.text


def test_a_canonical_row_with_an_unknown_provenance_is_refused_naming_row_and_field(
    client: TestClient,
) -> None:
    bad = VENDOR_AND_OWN.replace(b",independent,64,", b",mine,64,")
    response = post_files(client, ("runs.csv", bad))
    assert response.status_code == 422
    assert "'mine' is not one of ('independent', 'vendor')" in response.text
    assert '"provenance"' in response.text or "provenance" in response.text


def test_the_sweep_page_edits_provenance_with_a_choice_and_the_api_refuses_others(
    client: TestClient,
) -> None:
    vendor, _ = provenance_ids(client)
    page = soup(client.get(f"/sweeps/{vendor}"), expect=200)
    options = [o["value"] for o in page.select("select[name=provenance] option")]
    assert options == ["", "independent", "vendor"]
    changed = client.patch(f"/api/sweeps/{vendor}", json={"provenance": "independent"})
    assert changed.status_code == 200, changed.text
    assert client.get(f"/api/sweeps/{vendor}").json()["provenance"] == "independent"
    refused = client.patch(f"/api/sweeps/{vendor}", json={"provenance": "trust me"})
    assert refused.status_code == 422 and "provenance" in refused.text


def test_an_importer_that_reads_its_tools_version_records_it_as_the_harness_version(
    client: TestClient,
) -> None:
    from tests.conftest import FIXTURES

    report = FIXTURES / "guidellm" / "llm-d-benchmark_guidellm_report_v2.json"
    response = post_files(client, (report.name, report.read_bytes()), hardware="H100", num_gpus=1)
    assert response.status_code == 201, response.text
    stored = client.get(f"/api/sweeps/{response.json()['sweeps'][0]['id']}").json()
    assert (stored["harness"], stored["harness_version"], stored["provenance"]) == (
        "guidellm",
        "0.8.0.dev18",
        "independent",
    )
