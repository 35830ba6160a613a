"""The hardware catalog and model specs: list, read, create, replace, delete (writes need the
write token). A delete is refused with 409 while sweeps, prices or claims use the row."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.http.deps import SessionDep, WriteDep
from app.schemas.answers.catalog import (
    CatalogOut,
    HardwareDetail,
    HardwareList,
    HardwareMatch,
    HardwareOut,
    ModelSpecDetail,
    ModelSpecList,
    ModelSpecOut,
)
from app.schemas.answers.typed.catalog import (
    CatalogOutDict,
    HardwareDetailDict,
    HardwareListDict,
    HardwareMatchDict,
    HardwareOutDict,
    ModelSpecDetailDict,
    ModelSpecListDict,
    ModelSpecOutDict,
)
from app.schemas.catalog import HardwareIn, ModelSpecIn
from app.schemas.responses import ERROR_RESPONSES
from app.services.catalogs import entries as svc
from app.store import catalog as q

router = APIRouter(prefix="/api", tags=["catalog"], responses=ERROR_RESPONSES)


@router.get("/catalog", name="api_catalog", response_model=CatalogOut)
def api_catalog(session: SessionDep) -> CatalogOutDict:
    """The catalog page's JSON twin: every GPU and every model spec."""
    return {
        "hardware": [svc.hardware_dict(h) for h in svc.list_hardware(session)],
        "models": [svc.model_dict(m) for m in q.model_specs(session)],
    }


@router.get("/hardware", name="api_hardware_list", response_model=HardwareList)
def api_hardware_list(session: SessionDep) -> HardwareListDict:
    """The hardware catalog: memory, bandwidth, dense TFLOPS, power, aliases."""
    return {"hardware": [svc.hardware_dict(h) for h in svc.list_hardware(session)]}


@router.get("/hardware/match", name="api_hardware_match", response_model=HardwareMatch)
def api_hardware_match(session: SessionDep, name: str) -> HardwareMatchDict:
    """What a GPU name would be stored as: its catalog key, or the nearest keys."""
    return q.match_hardware(session, name).as_dict()


@router.post(
    "/hardware",
    name="api_hardware_create",
    status_code=201,
    dependencies=[WriteDep],
    response_model=HardwareOut,
)
def api_hardware_create(body: HardwareIn, session: SessionDep) -> HardwareOutDict:
    """Add a GPU; its key, name and aliases must not already mean another GPU."""
    row = svc.save_hardware(session, body)
    answer = svc.hardware_dict(row)  # before the commit: a write stands only with its answer
    session.commit()
    return answer


@router.get("/hardware/{key}", name="api_hardware_detail", response_model=HardwareDetail)
def api_hardware_detail(key: str, session: SessionDep) -> HardwareDetailDict:
    """One GPU, with how many sweeps, pricing profiles and claims use it."""
    row = svc.get_hardware(session, key)
    return {**svc.hardware_dict(row), "used_by": svc.hardware_usage(session, row.key)}


@router.put(
    "/hardware/{key}",
    name="api_hardware_update",
    dependencies=[WriteDep],
    response_model=HardwareOut,
)
def api_hardware_update(key: str, body: HardwareIn, session: SessionDep) -> HardwareOutDict:
    """Replace a GPU's values (the key stays)."""
    row = svc.save_hardware(session, body, key)
    answer = svc.hardware_dict(row)  # before the commit: a write stands only with its answer
    session.commit()
    return answer


@router.delete(
    "/hardware/{key}", name="api_hardware_delete", status_code=204, dependencies=[WriteDep]
)
def api_hardware_delete(key: str, session: SessionDep) -> Response:
    """Delete a GPU no sweep, pricing profile or claim uses (409 otherwise)."""
    svc.delete_hardware(session, key)
    session.commit()
    return Response(status_code=204)


@router.get("/models", name="api_models_list", response_model=ModelSpecList)
def api_models_list(session: SessionDep) -> ModelSpecListDict:
    """Model specs for the physics limits."""
    return {"models": [svc.model_dict(m) for m in q.model_specs(session)]}


@router.post(
    "/models",
    name="api_models_create",
    status_code=201,
    dependencies=[WriteDep],
    response_model=ModelSpecOut,
)
def api_models_create(body: ModelSpecIn, session: SessionDep) -> ModelSpecOutDict:
    """Add a model spec.

    Across fields: active_params_b (default total_params_b) at most total_params_b; an MLA
    model gives kv_lora_rank and rope_dim together, any other kv_heads and head_dim; a
    mixture-of-experts model gives experts and top_k together, top_k at most experts.
    """
    row = svc.save_model(session, body)
    answer = svc.model_dict(row)  # before the commit: a write stands only with its answer
    session.commit()
    return answer


@router.get("/models/{key}", name="api_models_detail", response_model=ModelSpecDetail)
def api_models_detail(key: str, session: SessionDep) -> ModelSpecDetailDict:
    """One model spec, with how many sweeps and claims name it."""
    row = svc.get_model(session, key)
    return {**svc.model_dict(row), "used_by": svc.model_usage(session, row.key)}


@router.put(
    "/models/{key}",
    name="api_models_update",
    dependencies=[WriteDep],
    response_model=ModelSpecOut,
)
def api_models_update(key: str, body: ModelSpecIn, session: SessionDep) -> ModelSpecOutDict:
    """Replace a model spec's values (the key stays).

    Across fields: active_params_b (default total_params_b) at most total_params_b; an MLA
    model gives kv_lora_rank and rope_dim together, any other kv_heads and head_dim; a
    mixture-of-experts model gives experts and top_k together, top_k at most experts.
    """
    row = svc.save_model(session, body, key)
    answer = svc.model_dict(row)  # before the commit: a write stands only with its answer
    session.commit()
    return answer


@router.delete("/models/{key}", name="api_models_delete", status_code=204, dependencies=[WriteDep])
def api_models_delete(key: str, session: SessionDep) -> Response:
    """Delete a model spec no sweep or claim names (409 otherwise)."""
    svc.delete_model(session, key)
    session.commit()
    return Response(status_code=204)
