"""Hardware and model-spec lookups for the roofline, matched the forgiving way people type them."""

from __future__ import annotations

import re

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.domain.roofline import HardwareSpec, ModelArch
from app.store.models import Hardware, ModelSpec, SloPreset


def squash(text: str | None) -> str:
    """Lower case letters and digits only: "Llama 3.1 70B" and "llama-3.1-70b" both squash alike."""
    return re.sub(r"[^a-z0-9]", "", (text or "").lower())


def hardware_by_key(session: Session, key: str | None) -> Hardware | None:
    """The catalog row whose key equals `key` ignoring case."""
    if not key or not key.strip():
        return None
    wanted = key.strip().lower()
    return session.scalar(select(Hardware).where(func.lower(Hardware.key) == wanted))


def hardware_keys(session: Session) -> list[str]:
    return list(session.scalars(select(Hardware.key).order_by(Hardware.key)).all())


def slo_presets(session: Session) -> list[SloPreset]:
    return list(session.scalars(select(SloPreset).order_by(SloPreset.key)).all())


def model_specs(session: Session) -> list[ModelSpec]:
    return list(session.scalars(select(ModelSpec).order_by(ModelSpec.key)).all())


def match_model_spec(session: Session, text: str | None) -> ModelSpec | None:
    """The spec whose key or name equals `text` ignoring case, spaces and punctuation."""
    wanted = squash(text)
    if not wanted:
        return None
    for spec in model_specs(session):
        if wanted in (squash(spec.key), squash(spec.name)):
            return spec
    return None


def models_match(a: str | None, b: str | None) -> bool:
    """Whether two model names mean the same model: one squashed name contains the other."""
    x, y = squash(a), squash(b)
    return bool(x and y) and (x in y or y in x)


def hardware_spec(row: Hardware) -> HardwareSpec | None:
    """Roofline inputs of a GPU; None without bandwidth or memory (nothing to compute)."""
    if not row.mem_bw_tb_s or not row.memory_gb:
        return None
    return HardwareSpec(
        mem_bw_tb_s=row.mem_bw_tb_s,
        memory_gb=row.memory_gb,
        bf16_tflops=row.bf16_tflops,
        fp8_tflops=row.fp8_tflops,
        fp4_tflops=row.fp4_tflops,
    )


def model_arch(spec: ModelSpec, params_b: float | None = None) -> ModelArch:
    """Roofline inputs of a model; `params_b` replaces the total count (active scales with it)."""
    total = spec.total_params_b
    active = spec.active_params_b or total
    if params_b is not None:
        active = active * params_b / total
        total = params_b
    return ModelArch(
        total_params_b=total,
        active_params_b=min(active, total),
        layers=spec.layers,
        kv_heads=spec.kv_heads,
        head_dim=spec.head_dim,
        d_model=spec.d_model,
        kv_lora_rank=spec.kv_lora_rank,
        rope_dim=spec.rope_dim,
        experts=spec.experts,
        top_k=spec.top_k,
    )
