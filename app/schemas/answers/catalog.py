"""The hardware catalog and model specs as the API answers them."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from app.schemas.answers.common import Answer


class HardwareOut(Answer):
    key: str
    name: str
    vendor: str | None
    memory_gb: float | None
    memory_kind: str | None
    mem_bw_tb_s: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None
    fp4_tflops: float | None
    tdp_w: float | None
    allin_kw: float | None
    gpus_per_node: int | None
    source: str | None
    aliases: list[str]


class HardwareUse(Answer):
    """How many rows use the GPU key (a delete is refused while any does)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    sweeps: int
    pricing_profiles: int = Field(alias="pricing profiles")
    claims: int


class HardwareDetail(HardwareOut):
    used_by: HardwareUse


class HardwareList(Answer):
    hardware: list[HardwareOut]


class HardwareMatch(Answer):
    """What a typed GPU name is stored as: its catalog key (and how it matched), or the
    nearest keys and the catalog form to add it."""

    typed: str
    key: str | None
    via: str | None
    nearest: list[str]
    add_url: str | None


class ModelSpecOut(Answer):
    key: str
    name: str
    total_params_b: float
    active_params_b: float
    prefill_active_params_b: float | None  # null: active_params_b in both phases
    decode_active_params_b: float | None
    layers: int
    d_model: int | None
    kv_heads: int | None
    head_dim: int | None
    kv_lora_rank: int | None
    rope_dim: int | None
    experts: int | None
    top_k: int | None
    source: str | None


class ModelSpecUse(Answer):
    sweeps: int
    claims: int


class ModelSpecDetail(ModelSpecOut):
    used_by: ModelSpecUse


class ModelSpecList(Answer):
    models: list[ModelSpecOut]


class CatalogOut(Answer):
    hardware: list[HardwareOut]
    models: list[ModelSpecOut]
