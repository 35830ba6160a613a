"""Every operation documents the schema of its success answer, and real answers on the seeded
data match the models in app/schemas/answers (undeclared keys refused)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.domain.columns import POINT_COLUMN_NAMES
from app.schemas.answers import (
    catalog,
    check,
    claims,
    compare,
    explore,
    history,
    plan,
    pricing,
    readoff,
    sweeps,
)
from app.schemas.claims import CLAIM_FIELDS
from app.store.models import Hardware, ModelSpec
from app.store.pricing import PROFILE_FIELDS
from app.store.sweeps import SWEEP_FIELDS

JSON = "application/json"


def operations(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
    ]


def resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_every_operation_documents_the_schema_of_its_success_answer(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    ops = operations(spec)
    assert len(ops) == 61  # with GET /api/export/frontier_band.csv, GET /api/readoff/misses
    documented, no_body, json_models, files = [], [], [], []
    for label, op in ops:
        success = {s: r for s, r in op["responses"].items() if s.startswith("2")}
        assert success, label
        for status, response in success.items():
            if status == "204":  # no body, by definition: nothing to describe
                assert "content" not in response, label
                no_body.append(label)
                continue
            content = response["content"]
            for media_type, entry in content.items():
                schema = entry["schema"]
                if media_type == JSON:
                    # A model, every key declared: not an open object or an empty schema.
                    model = resolve(spec, schema["anyOf"][0] if "anyOf" in schema else schema)
                    assert model["type"] == "object", (label, status)
                    assert model["additionalProperties"] is False, (label, status)
                    assert model["properties"], (label, status)
                    json_models.append(label)
                else:  # a file: CSV text or zip bytes, and no JSON beside it
                    assert schema["type"] == "string", (label, media_type)
                    assert list(content) == [media_type], label
                    files.append(label)
        documented.append(label)
    assert len(documented) == len(ops)  # 100 %
    assert (len(set(json_models)), len(set(files)), len(set(no_body))) == (48, 7, 6)


def test_the_answer_models_name_every_stored_column() -> None:
    def fields(model: type[BaseModel]) -> list[str]:
        return [f.alias or name for name, f in model.model_fields.items()]

    assert fields(sweeps.SweepFields) == ["id", "name", *SWEEP_FIELDS, "source_file", "created_at"]
    assert fields(sweeps.StoredPoint) == [
        "id",
        "position",
        *POINT_COLUMN_NAMES,
        "extra",
        "request_samples",
        "ttft_vs_context",  # derived from the samples in one sweep's detail (issue 50)
    ]
    # The catalog's answers are its rows, column for column in table order.
    assert fields(catalog.HardwareOut) == [c.name for c in Hardware.__table__.columns]
    assert fields(catalog.ModelSpecOut) == [c.name for c in ModelSpec.__table__.columns]
    assert fields(pricing.PricingProfileOut) == ["id", *PROFILE_FIELDS, "hourly_cost"]
    assert fields(claims.ClaimOut) == ["id", *CLAIM_FIELDS, "provenance_text", "created_at"]


ALL = list(range(1, 17))
PRICES = "costr@2026-09-08"
CompareAnswer = compare.CompareAnswer
# The large answers, written without re-validation (app.views.answers): each checked here.
ANSWERS: list[tuple[str, dict[str, Any], type[BaseModel]]] = [
    ("/api/sweeps", {"per_page": 500}, sweeps.SweepList),
    ("/api/sweeps/1", {}, sweeps.SweepDetail),
    ("/api/export/sweeps.json", {"sweep": ALL}, sweeps.ExportedSweeps),
    (
        "/api/readoff",
        {"sweep": ALL, "points": "true", "price_set": "costr@2026-09-08"},
        readoff.ReadoffOut,
    ),
    ("/api/readoff", {"sweep": ALL, "mode": "requests", "usd_per_gpu_hour": 2}, readoff.ReadoffOut),
    ("/api/frontier", {"sweep": ALL}, readoff.FrontierOut),
    ("/api/plan", {"sweep": ALL, "tokens_per_day": 1e9, "usd_per_gpu_hour": 2}, plan.PlanOut),
    ("/api/explore", {}, explore.ExploreAnswer),
    (
        "/api/explore",
        {
            "sweep": ALL,
            "picked": 1,
            "sensitivity": "tpot",
            "claims": "all",
            "roofline_model": "llama-3.1-70b",
        },
        explore.ExploreAnswer,
    ),
    ("/api/explore/picker", {"q": "llama"}, explore.PickerAnswer),
    ("/api/compare", {}, compare.CompareAnswer),
    (
        "/api/compare",
        {"sweep": [1, 2, 3], "picked": 1, "sensitivity": "tpot"},
        compare.CompareAnswer,
    ),
    ("/api/history", {}, history.HistoryAnswer),
    ("/api/history", {"model": "llama-3.1-70b", "pricing": [1, 2]}, history.HistoryAnswer),
    ("/api/claims/1/audit", {"points": "true"}, claims.ClaimAudit),
]


def test_the_large_answers_on_the_seeded_data_match_their_models(
    client: TestClient, seeded: None
) -> None:
    for path, params, model in ANSWERS:
        response = client.get(path, params=params)
        assert response.status_code == 200, (path, params, response.text[:300])
        model.model_validate_json(response.content)
    answer = client.post(
        "/api/check",
        json={"candidate": "2", "baseline": "1", "allow_different": True, "ttft_ms": 5000},
    )
    assert answer.status_code == 200, answer.text
    checked = check.CheckAnswer.model_validate_json(answer.content)
    assert checked.verdict == "comparison"
