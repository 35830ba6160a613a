"""The TypedDicts of app.schemas.answers.catalog: written by tools/answer_types.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    pass


class HardwareOutDict(TypedDict):
    """app.schemas.answers.catalog.HardwareOut"""

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


HardwareUseDict = TypedDict(
    "HardwareUseDict", {"sweeps": int, "pricing profiles": int, "claims": int}
)
"""app.schemas.answers.catalog.HardwareUse"""


class HardwareDetailDict(HardwareOutDict):
    """app.schemas.answers.catalog.HardwareDetail"""

    used_by: HardwareUseDict


class HardwareListDict(TypedDict):
    """app.schemas.answers.catalog.HardwareList"""

    hardware: list[HardwareOutDict]


class HardwareMatchDict(TypedDict):
    """app.schemas.answers.catalog.HardwareMatch"""

    typed: str
    key: str | None
    via: str | None
    nearest: list[str]
    add_url: str | None


class ModelSpecOutDict(TypedDict):
    """app.schemas.answers.catalog.ModelSpecOut"""

    key: str
    name: str
    total_params_b: float
    active_params_b: float
    prefill_active_params_b: float | None
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


class ModelSpecUseDict(TypedDict):
    """app.schemas.answers.catalog.ModelSpecUse"""

    sweeps: int
    claims: int


class ModelSpecDetailDict(ModelSpecOutDict):
    """app.schemas.answers.catalog.ModelSpecDetail"""

    used_by: ModelSpecUseDict


class ModelSpecListDict(TypedDict):
    """app.schemas.answers.catalog.ModelSpecList"""

    models: list[ModelSpecOutDict]


class CatalogOutDict(TypedDict):
    """app.schemas.answers.catalog.CatalogOut"""

    hardware: list[HardwareOutDict]
    models: list[ModelSpecOutDict]
