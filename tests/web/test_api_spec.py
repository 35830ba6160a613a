"""The API says what it does: one documented error body, 204s documented, 405s with Allow."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.schemas.responses import ErrorBody
from tests.web.test_catalog import GAUDI3

ERROR_REF = "#/components/schemas/ErrorBody"


def api_operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, op)
        for path, item in spec["paths"].items()
        if path.startswith("/api/")
        for method, op in item.items()
    ]


def test_every_api_operation_documents_the_error_body_it_answers_4xx_and_5xx_with(
    client: TestClient,
) -> None:
    spec = client.get("/openapi.json").json()
    operations = api_operations(spec)
    assert len(operations) == 60  # with GET /api/readoff/misses (issue 50)
    for method, path, op in operations:
        for status in ("4XX", "5XX"):
            schema = op["responses"][status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": ERROR_REF}, (method, path, status)
        assert "422" not in op["responses"], (method, path)
    # FastAPI's own 422 body (detail as an array) is no longer promised anywhere.
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    detail = spec["components"]["schemas"]["ErrorBody"]["properties"]["detail"]
    assert detail == {"type": "string", "title": "Detail"}


def test_a_422_body_is_the_documented_error_body(client: TestClient) -> None:
    response = client.get(
        "/api/plan", params={"sweep": 1, "requests_per_s": 1, "tokens_per_day": 1}
    )
    assert response.status_code == 422
    body = ErrorBody.model_validate(response.json())
    assert body.errors and body.detail == response.json()["detail"]


def test_every_api_delete_documents_its_204_and_answers_it(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    deletes = {
        (path, tuple(op["responses"])) for m, path, op in api_operations(spec) if m == "DELETE"
    }
    untagged = {path for path, statuses in deletes if path.endswith("/tags/{tag}")}
    assert untagged == {"/api/sweeps/{sweep_id}/tags/{tag}"}  # answers the tags left: a 200
    assert all(statuses[0] == "204" for path, statuses in deletes if path not in untagged)
    assert len(deletes) == 7
    assert client.post("/api/hardware", json=GAUDI3).status_code == 201
    deleted = client.delete(f"/api/hardware/{GAUDI3['key']}")
    assert (deleted.status_code, deleted.content) == (204, b"")


def test_a_wrong_method_on_an_api_path_answers_405_naming_every_allowed_method(
    client: TestClient,
) -> None:
    cases = {
        ("PATCH", "/api/pricing"): "GET, POST",
        ("POST", "/api/sweeps/1"): "DELETE, GET, PATCH",
        ("PUT", "/api/sweeps/1/tags/fp8"): "DELETE",
        ("DELETE", "/api/catalog"): "GET",
    }
    for (method, path), allow in cases.items():
        response = client.request(method, path)
        assert response.status_code == 405, (method, path)
        assert response.headers["allow"] == allow, (method, path)
        assert response.json() == {"detail": "Method Not Allowed", "errors": []}


def test_rules_that_span_fields_are_stated_in_each_operations_description(
    client: TestClient,
) -> None:
    spec = client.get("/openapi.json").json()
    rules = {
        "give tpot_ms or min_tok_s_user, not both": [
            "GET /api/readoff",
            "GET /api/frontier",
            "GET /api/export/readoff.csv",
            "GET /api/export/frontier_band.csv",
            "GET /api/plan",
        ],
        "exactly one demand: requests_per_s, output_tok_s, tokens_per_day or concurrent_sessions": [
            "GET /api/plan"
        ],
        "a rental profile needs usd_per_gpu_hour": [
            "POST /api/pricing",
            "PUT /api/pricing/{profile_id}",
        ],
        "token_basis is required (output or total); a gpu_scope of gpu has scope_gpus 1": [
            "POST /api/claims",
            "PUT /api/claims/{claim_id}",
        ],
        "mixture-of-experts model gives experts and top_k together": [
            "POST /api/models",
            "PUT /api/models/{key}",
        ],
        "give `tag` or `tags`": [
            "POST /api/sweeps/{sweep_id}/tags",
            "PUT /api/sweeps/{sweep_id}/tags",
        ],
    }
    for rule, labels in rules.items():
        for label in labels:
            method, path = label.split(" ")
            description = " ".join(spec["paths"][path][method.lower()]["description"].split())
            assert rule in description, label
