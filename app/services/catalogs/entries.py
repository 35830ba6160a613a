"""The hardware catalog and model specs: validated writes, guarded deletes, and GPU names
matched to catalog keys wherever a sweep gets its hardware (upload, CLI, API, edits).

Delete rules: a GPU is refused (409) while a sweep, pricing profile or claim uses its key,
since they would lose their price, power and physics limit silently; a model spec is
refused while a sweep's or claim's model matches it (its physics limit would vanish).
Renaming a key is not offered: add the new row, move the users, delete the old one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.ingest import ParsedSweep
from app.schemas.answers.typed.catalog import (
    HardwareOutDict,
    HardwareUseDict,
    ModelSpecOutDict,
    ModelSpecUseDict,
)
from app.schemas.catalog import HardwareIn, ModelSpecIn
from app.services.errors import Conflict, Invalid
from app.store import catalog, catalog_cache
from app.store.catalog import HardwareMatch
from app.store.models import Hardware, ModelSpec, PricingProfile, Sweep, VendorClaim
from app.store.sweeps import NotFound

# -- matching -------------------------------------------------------------------------------


def match_parsed(session: Session, parsed: list[ParsedSweep]) -> list[HardwareMatch | None]:
    """Replace each sweep's hardware by its catalog key where one matches; one match per sweep.

    Runs before the content hash, so the same file uploaded as "NVIDIA H200" or "H200"
    is one sweep. A name that matches nothing is left as typed.
    """
    rows = catalog_cache.current(session).hardware  # kept while the catalog is unchanged
    out: list[HardwareMatch | None] = []
    known: dict[str, HardwareMatch] = {}  # a file of 3,000 sweeps names a few GPUs
    for item in parsed:
        typed = item.meta.get("hardware")
        if typed in (None, ""):
            out.append(None)
            continue
        match = known.get(str(typed))
        if match is None:
            match = known[str(typed)] = catalog.match_hardware_in(rows, str(typed))
        if match.key is not None:
            item.meta["hardware"] = match.key
        out.append(match)
    return out


def match_warnings(matches: list[HardwareMatch | None]) -> list[str]:
    """One line per distinct typed name that was changed or left unmatched."""
    lines: dict[str, None] = {}
    for match in dict.fromkeys(m for m in matches if m):  # each distinct match once
        line = match.warning()
        if line:
            lines[line] = None
    return list(lines)


def match_changes(session: Session, changes: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Sweep edits with the hardware matched to a key; the warnings say what happened."""
    if not changes.get("hardware"):
        return changes, []
    match = catalog.match_hardware(session, str(changes["hardware"]))
    if match.key is not None:
        changes = {**changes, "hardware": match.key}
    warning = match.warning()
    return changes, [warning] if warning else []


def known_hardware(session: Session, typed: str, field: str = "hardware") -> str:
    """The catalog key for `typed`, or a 422 naming the nearest keys (claims and prices need
    a catalog GPU: their checks use its memory, bandwidth and power)."""
    match = catalog.match_hardware(session, typed)
    if match.key is None:
        near = ", ".join(match.nearest) or ", ".join(catalog.hardware_keys(session)) or "none"
        raise Invalid(
            field,
            f"{typed!r} is not in the hardware catalog (nearest: {near}); "
            f"add it at {catalog.add_hardware_url(typed)}",
        )
    return match.key


# -- hardware -------------------------------------------------------------------------------


def hardware_dict(row: Hardware) -> HardwareOutDict:
    """The row as answered, its columns in table order (as test_api_answers holds the model)."""
    return {
        "key": row.key,
        "name": row.name,
        "vendor": row.vendor,
        "memory_gb": row.memory_gb,
        "memory_kind": row.memory_kind,
        "mem_bw_tb_s": row.mem_bw_tb_s,
        "bf16_tflops": row.bf16_tflops,
        "fp8_tflops": row.fp8_tflops,
        "fp4_tflops": row.fp4_tflops,
        "tdp_w": row.tdp_w,
        "allin_kw": row.allin_kw,
        "gpus_per_node": row.gpus_per_node,
        "source": row.source,
        "aliases": list(row.aliases or []),
    }


def list_hardware(session: Session) -> list[Hardware]:
    query = select(Hardware).order_by(Hardware.vendor, Hardware.key)
    return list(session.scalars(query).all())


def get_hardware(session: Session, key: str) -> Hardware:
    row = catalog.hardware_by_key(session, key)
    if row is None:
        raise NotFound(f"hardware {key!r} is not in the catalog")
    return row


def save_hardware(session: Session, body: HardwareIn, key: str | None = None) -> Hardware:
    """Create (key None) or replace the row `key`; names must not collide with another GPU's."""
    if key is None:
        existing = catalog.hardware_by_key(session, body.key)
        if existing is not None:
            raise Invalid("key", f"{existing.key!r} is already in the catalog (edit it instead)")
        row = Hardware(key=body.key)
    else:
        row = get_hardware(session, key)
        if body.key.lower() != row.key.lower():
            raise Invalid("key", f"the key cannot change here ({row.key!r} stays {row.key!r})")
    _check_names(session, body, own_key=None if key is None else row.key)
    for name, value in body.model_dump().items():
        if name != "key":
            setattr(row, name, value)
    if key is None:
        session.add(row)
    session.flush()
    return row


def _check_names(session: Session, body: HardwareIn, own_key: str | None) -> None:
    """Each name of the new row must not already mean another GPU, or matching would guess."""
    others = [r for r in session.scalars(select(Hardware)).all() if r.key != own_key]
    for field, names in (("key", [body.key]), ("name", [body.name]), ("aliases", body.aliases)):
        for name in names:
            match = catalog.match_hardware_in(others, name)
            if match.key is not None:
                raise Invalid(
                    field, f"{name!r} already means {match.key} (its {match.via}); pick another"
                )


def hardware_usage(session: Session, key: str) -> HardwareUseDict:
    """How many sweeps, pricing profiles and claims use this GPU key (case-insensitive)."""
    wanted = key.lower()

    def using(model: type[Sweep] | type[PricingProfile] | type[VendorClaim]) -> int:
        column = model.hardware
        query = select(func.count()).select_from(model).where(func.lower(column) == wanted)
        return session.scalar(query) or 0

    return {
        "sweeps": using(Sweep),
        "pricing profiles": using(PricingProfile),
        "claims": using(VendorClaim),
    }


def delete_hardware(session: Session, key: str) -> None:
    row = get_hardware(session, key)
    used = {k: n for k, n in hardware_usage(session, row.key).items() if n}
    if used:
        what = _counted(used)
        raise Conflict(f"{row.key} is used by {what}: change their hardware first, then delete it")
    session.delete(row)
    session.flush()


# -- model specs ----------------------------------------------------------------------------


def model_dict(row: ModelSpec) -> ModelSpecOutDict:
    """The row as answered, its columns in table order (as test_api_answers holds the model)."""
    return {
        "key": row.key,
        "name": row.name,
        "total_params_b": row.total_params_b,
        "active_params_b": row.active_params_b,
        "prefill_active_params_b": row.prefill_active_params_b,
        "decode_active_params_b": row.decode_active_params_b,
        "layers": row.layers,
        "d_model": row.d_model,
        "kv_heads": row.kv_heads,
        "head_dim": row.head_dim,
        "kv_lora_rank": row.kv_lora_rank,
        "rope_dim": row.rope_dim,
        "experts": row.experts,
        "top_k": row.top_k,
        "source": row.source,
    }


def get_model(session: Session, key: str) -> ModelSpec:
    row = session.scalar(select(ModelSpec).where(func.lower(ModelSpec.key) == key.lower()))
    if row is None:
        raise NotFound(f"model spec {key!r} is not in the catalog")
    return row


def save_model(session: Session, body: ModelSpecIn, key: str | None = None) -> ModelSpec:
    """Create (key None) or replace the spec `key`."""
    clash = catalog.match_model_spec(session, body.key) or catalog.match_model_spec(
        session, body.name
    )
    if key is None:
        if clash is not None:
            raise Invalid("key", f"{body.key!r} or its name already means {clash.key!r}")
        row = ModelSpec(key=body.key)
        session.add(row)
    else:
        row = get_model(session, key)
        if body.key.lower() != row.key.lower():
            raise Invalid("key", f"the key cannot change here ({row.key!r} stays {row.key!r})")
        if clash is not None and clash.key != row.key:
            raise Invalid("name", f"{body.name!r} already means {clash.key!r}")
    for name, value in body.model_dump().items():
        if name != "key":
            setattr(row, name, value)
    session.flush()
    return row


def model_usage(session: Session, key: str) -> ModelSpecUseDict:
    """Sweeps and claims whose model names this spec (ignoring case and punctuation)."""
    spec = get_model(session, key)
    names = {catalog.squash(spec.key), catalog.squash(spec.name)}

    def using(model: type[Sweep] | type[VendorClaim]) -> int:
        column = model.model
        rows = session.execute(
            select(column, func.count()).where(column.is_not(None)).group_by(column)
        ).all()
        return sum(n for text, n in rows if catalog.squash(text) in names)

    return {"sweeps": using(Sweep), "claims": using(VendorClaim)}


def delete_model(session: Session, key: str) -> None:
    row = get_model(session, key)
    used = {k: n for k, n in model_usage(session, row.key).items() if n}
    if used:
        what = _counted(used)
        raise Conflict(f"{row.key} is the model of {what}: its physics limit would vanish")
    session.delete(row)
    session.flush()


def _counted(used: Mapping[str, object]) -> str:
    """{"sweeps": 1, "claims": 2} → "1 sweep, 2 claims"."""
    return ", ".join(f"{n} {k if n != 1 else k.removesuffix('s')}" for k, n in used.items())
