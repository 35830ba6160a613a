"""/api/hardware, /api/models and /catalog: the catalogs are added to and edited with validation,
writes need the write token, and a row in use is not deleted."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.store.models import Hardware, ModelSpec
from tests.factories import post_files
from tests.helpers import soup

GAUDI3 = {
    "key": "GAUDI3",
    "name": "Intel Gaudi 3",
    "vendor": "Intel",
    "memory_gb": 128,
    "memory_kind": "HBM2e",
    "mem_bw_tb_s": 3.7,
    "bf16_tflops": 1835,
    "fp8_tflops": 1835,
    "tdp_w": 900,
    "aliases": ["HL-325L", "Intel Gaudi3 OAM"],
    "source": "Intel Gaudi 3 white paper",
}
MAVERICK = {
    "key": "llama-4-maverick",
    "name": "Llama 4 Maverick",
    "total_params_b": 400,
    "active_params_b": 17,
    "layers": 48,
    "d_model": 5120,
    "kv_heads": 8,
    "head_dim": 128,
    "experts": 128,
    "top_k": 1,
    "source": "config.json of meta-llama/Llama-4-Maverick-17B-128E-Instruct",
}


def test_the_seeded_catalog_has_h100_pcie_as_its_own_gpu_with_its_datasheet_figures(
    client: TestClient, catalog: None
) -> None:
    pcie = client.get("/api/hardware/H100PCIE").json()
    figures = {k: pcie[k] for k in ("memory_gb", "mem_bw_tb_s", "bf16_tflops", "fp8_tflops")}
    assert figures == {
        "memory_gb": 80.0,
        "mem_bw_tb_s": 2.0,
        "bf16_tflops": 756.0,
        "fp8_tflops": 1513.0,
    }
    assert (pcie["tdp_w"], pcie["memory_kind"], pcie["allin_kw"]) == (350.0, "HBM2e", None)
    assert "datasheet" in pcie["source"]
    sxm = client.get("/api/hardware/h100").json()
    assert (sxm["key"], sxm["mem_bw_tb_s"], sxm["tdp_w"]) == ("H100", 3.35, 700.0)
    assert "H100 80GB HBM3" in sxm["aliases"]
    keys = [h["key"] for h in client.get("/api/hardware").json()["hardware"]]
    assert {"H100", "H100PCIE", "L40S", "RTX4090", "A100"} <= set(keys)


def test_a_gpu_is_added_read_replaced_and_deleted_through_the_api(
    client: TestClient, session: Session, catalog: None
) -> None:
    created = client.post("/api/hardware", json=GAUDI3)
    assert created.status_code == 201, created.text
    assert created.json()["aliases"] == ["HL-325L", "Intel Gaudi3 OAM"]
    # Its aliases match from now on.
    match = client.get("/api/hardware/match", params={"name": "intel gaudi3 oam"}).json()
    assert (match["key"], match["via"]) == ("GAUDI3", "alias")
    replaced = client.put("/api/hardware/GAUDI3", json={**GAUDI3, "tdp_w": 1200})
    assert replaced.status_code == 200, replaced.text
    assert client.get("/api/hardware/gaudi3").json()["tdp_w"] == 1200.0
    assert client.delete("/api/hardware/GAUDI3").status_code == 204
    assert client.get("/api/hardware/GAUDI3").status_code == 404
    session.expire_all()
    assert session.get(Hardware, "GAUDI3") is None


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"key": "has space"}, "key", "String should match pattern"),
        ({"mem_bw_tb_s": -1}, "mem_bw_tb_s", "greater than 0"),
        ({"tdp_w": 0}, "tdp_w", "greater than 0"),
        ({"name": ""}, "name", "at least 1 character"),
        ({"colour": "red"}, "colour", "Extra inputs are not permitted"),
        # Postgres cannot store a NUL byte in text (schemathesis found the 500)
        ({"name": "Gaudi\x003"}, "name", "contains a NUL byte"),
        ({"source": "\x00"}, "source", "contains a NUL byte"),
        ({"aliases": ["HL-325L", "x\x00"]}, "aliases", "contains a NUL byte"),
    ],
)
def test_a_bad_gpu_is_refused_naming_the_field(
    client: TestClient, catalog: None, change: dict[str, Any], field: str, message: str
) -> None:
    response = client.post("/api/hardware", json={**GAUDI3, **change})
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["field"] == field and message in error["message"]


def test_a_gpu_whose_names_already_mean_another_is_refused(
    client: TestClient, catalog: None
) -> None:
    again = client.post("/api/hardware", json={**GAUDI3, "key": "h100"})
    assert again.status_code == 422
    assert (
        again.json()["errors"][0]["message"] == "'H100' is already in the catalog (edit it instead)"
    )
    alias = client.post("/api/hardware", json={**GAUDI3, "aliases": ["NVIDIA H100 80GB HBM3"]})
    assert alias.status_code == 422
    assert alias.json()["errors"] == [
        {
            "field": "aliases",
            "message": "'NVIDIA H100 80GB HBM3' already means H100 (its alias); pick another",
        }
    ]
    renamed = client.put("/api/hardware/H100", json={**GAUDI3, "key": "H999"})
    assert renamed.status_code == 422 and renamed.json()["errors"][0]["field"] == "key"


def test_a_gpu_in_use_is_not_deleted_and_the_answer_says_by_what(
    client: TestClient, catalog: None
) -> None:
    upload = post_files(
        client,
        (
            "a.csv",
            b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\na,L40S,1,1,9,90\n",
        ),
    )
    assert upload.status_code == 201
    profile = {"name": "l40s", "kind": "rental", "hardware": "L40S", "usd_per_gpu_hour": 1}
    assert client.post("/api/pricing", json=profile).status_code == 201
    refused = client.delete("/api/hardware/L40S")
    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        "L40S is used by 1 sweep, 1 pricing profile: change their hardware first, then delete it"
    )
    assert client.get("/api/hardware/L40S").json()["used_by"] == {
        "sweeps": 1,
        "pricing profiles": 1,
        "claims": 0,
    }


def test_writes_need_the_write_token_when_one_is_set(make_client: Any, catalog: None) -> None:
    client = make_client(write_token="s3cret")
    assert client.post("/api/hardware", json=GAUDI3).status_code == 401
    assert client.put("/api/hardware/H100", json={**GAUDI3, "key": "H100"}).status_code == 401
    assert client.delete("/api/hardware/H100").status_code == 401
    assert client.post("/api/models", json=MAVERICK).status_code == 401
    assert client.delete("/api/models/llama-3.1-8b").status_code == 401
    page = client.post("/catalog/hardware", data={"key": "X1", "name": "X1"})
    assert page.status_code == 401
    auth = {"Authorization": "Bearer s3cret"}
    assert client.post("/api/hardware", json=GAUDI3, headers=auth).status_code == 201


def test_a_model_spec_is_added_and_turns_on_a_claims_physics(
    client: TestClient, catalog: None
) -> None:
    claim = {
        "vendor": "NVIDIA",
        "hardware": "B200",
        "gpu_scope": "node",
        "model": "Llama 4 Maverick",
        "precision": "fp8",
        "value_tok_s": 1000,
        "measures": "per_user",
        "token_basis": "output",
    }
    claim_id = client.post("/api/claims", json=claim).json()["id"]
    before = client.get(f"/api/claims/{claim_id}/audit").json()["physics"]
    assert before["missing"] == ["a model spec for 'Llama 4 Maverick' (add it on the Catalog page)"]
    page = soup(client.get(f"/claims/{claim_id}").text)
    link = page.select_one("#physics-add-spec")
    assert link is not None and link["href"] == "/catalog#model-form"
    created = client.post("/api/models", json=MAVERICK)
    assert created.status_code == 201, created.text
    after = client.get(f"/api/claims/{claim_id}/audit").json()["physics"]
    assert after["missing"] == []
    assert after["verdict"] in (
        "physically possible",
        "impossible",
        "possible only with speculative decoding",
    )
    # The spec is named by the claim now: deleting it is refused.
    refused = client.delete("/api/models/llama-4-maverick")
    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        "llama-4-maverick is the model of 1 claim: its physics limit would vanish"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"active_params_b": 500}, "active_params_b cannot exceed total_params_b"),
        ({"kv_heads": None}, "the KV cache size needs kv_heads and head_dim"),
        ({"top_k": None}, "a mixture-of-experts model needs both experts and top_k"),
        ({"top_k": 200}, "top_k cannot exceed experts"),
        ({"kv_lora_rank": 512}, "an MLA model needs both kv_lora_rank and rope_dim"),
    ],
)
def test_an_inconsistent_model_spec_is_refused(
    client: TestClient, catalog: None, change: dict[str, Any], message: str
) -> None:
    response = client.post("/api/models", json={**MAVERICK, **change})
    assert response.status_code == 422
    assert message in response.json()["detail"]


def test_a_model_spec_with_a_nul_byte_is_refused_naming_the_field(
    client: TestClient, catalog: None
) -> None:
    response = client.post("/api/models", json={**MAVERICK, "source": "config\x00.json"})
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["field"], error["message"]) == ("source", "Value error, contains a NUL byte")


def test_a_model_spec_is_replaced_and_a_clashing_name_refused(
    client: TestClient, session: Session, catalog: None
) -> None:
    clash = client.post("/api/models", json={**MAVERICK, "key": "l70", "name": "Llama 3.1 70B"})
    assert clash.status_code == 422
    assert clash.json()["errors"][0]["message"] == "'l70' or its name already means 'llama-3.1-70b'"
    spec = client.get("/api/models/llama-3.1-8b").json()
    spec.pop("used_by")
    replaced = client.put("/api/models/llama-3.1-8b", json={**spec, "layers": 33})
    assert replaced.status_code == 200, replaced.text
    session.expire_all()
    assert session.get(ModelSpec, "llama-3.1-8b").layers == 33  # type: ignore[union-attr]
    assert client.delete("/api/models/llama-3.1-8b").status_code == 204


def test_the_catalog_page_lists_both_catalogs_and_its_json_twin_matches(
    client: TestClient, catalog: None
) -> None:
    page = soup(client.get("/catalog").text)
    assert page.select_one("nav a[href='/catalog']") is not None
    rows = page.select("#hardware-table tbody tr")
    twin = client.get("/api/catalog").json()
    assert len(rows) == len(twin["hardware"]) == 20
    pcie = page.select_one("#hardware-H100PCIE")
    assert pcie is not None
    cells = [td.get_text(strip=True) for td in pcie.select("td")]
    assert cells[:7] == ["H100PCIE", "NVIDIA H100 PCIe", "NVIDIA", "80", "HBM2e", "2", "756"]
    assert len(page.select("#models-table tbody tr")) == len(twin["models"]) == 17


def test_the_catalog_page_adds_edits_and_refuses_with_the_field_named(
    client: TestClient, session: Session, catalog: None
) -> None:
    form = {k: str(v) for k, v in GAUDI3.items() if k != "aliases"}
    form["aliases"] = "HL-325L\nIntel Gaudi3 OAM"
    added = client.post("/catalog/hardware", data=form, follow_redirects=False)
    assert added.status_code == 303 and added.headers["location"] == "/catalog#hardware-GAUDI3"
    session.expire_all()
    assert session.get(Hardware, "GAUDI3").aliases == ["HL-325L", "Intel Gaudi3 OAM"]  # type: ignore[union-attr]

    edit = soup(client.get("/catalog?edit_hardware=GAUDI3").text)
    key_input = edit.select_one("#hardware-form input[name=key]")
    assert key_input is not None and key_input.has_attr("readonly")
    assert edit.select_one("#hardware-form textarea[name=aliases]").get_text() == (
        "HL-325L\nIntel Gaudi3 OAM"
    )
    bad = client.post("/catalog/hardware/GAUDI3", data={**form, "mem_bw_tb_s": "fast"})
    assert bad.status_code == 422
    errors = [li.get_text() for li in soup(bad.text).select("#hardware-form .alert-error li")]
    assert errors == [
        "mem_bw_tb_s: Input should be a valid number, unable to parse string as a number"
    ]

    spec = {k: str(v) for k, v in MAVERICK.items()}
    assert client.post("/catalog/models", data=spec, follow_redirects=False).status_code == 303
    refused = client.post("/catalog/models", data={**spec, "key": "m2", "top_k": "999"})
    assert refused.status_code == 422
    assert [li.get_text() for li in soup(refused.text).select("#model-form .alert-error li")] == [
        "top_k cannot exceed experts"
    ]
    assert client.post("/catalog/hardware/GAUDI3/delete", follow_redirects=False).status_code == 303
    sweep = b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\na,H100,1,1,9,90\n"
    assert post_files(client, ("a.csv", sweep)).status_code == 201
    in_use = client.post("/catalog/hardware/H100/delete")
    assert in_use.status_code == 409
    shown = [li.get_text() for li in soup(in_use.text).select("#hardware-form .alert-error li")]
    assert shown == ["H100 is used by 1 sweep: change their hardware first, then delete it"]
