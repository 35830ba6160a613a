"""Hardware and model-spec lookups for the roofline, matched the forgiving way people type them."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.domain.roofline import HardwareSpec, ModelArch
from app.schemas.answers.typed.catalog import HardwareMatchDict
from app.store.models import Hardware, ModelSpec, SloPreset


def squash(text: str | None) -> str:
    """Lower case letters and digits only: "Llama 3.1 70B" and "llama-3.1-70b" both squash alike."""
    return re.sub(r"[^a-z0-9]", "", (text or "").lower())


def hardware_by_key(session: Session, key: str | None) -> Hardware | None:
    """The catalog row whose key equals `key` ignoring case, else the row the name matches
    (a stored name kept as typed, or a query's `hardware=NVIDIA H200`): see `match_hardware`."""
    if not key or not key.strip():
        return None
    wanted = key.strip().lower()
    row = session.scalar(select(Hardware).where(func.lower(Hardware.key) == wanted))
    return row if row is not None else hardware_in(hardware_rows(session), key)


def hardware_in(rows: Sequence[Hardware], key: str | None) -> Hardware | None:
    """`hardware_by_key` among rows already read (every hardware row, by key), no query."""
    if not key or not key.strip():
        return None
    wanted = key.strip().lower()
    found = next((row for row in rows if row.key.lower() == wanted), None)
    if found is None:
        matched = match_hardware_in(rows, key).key
        found = next((row for row in rows if row.key == matched), None)
    return found


def hardware_rows(session: Session) -> list[Hardware]:
    return list(session.scalars(select(Hardware).order_by(Hardware.key)).all())


def hardware_keys(session: Session) -> list[str]:
    return list(session.scalars(select(Hardware.key).order_by(Hardware.key)).all())


# Words tools put before the part name ("NVIDIA GeForce RTX 4090", "AMD Instinct MI300X").
VENDOR_WORDS: tuple[str, ...] = ("nvidia", "amd", "instinct", "geforce", "tesla", "apple")


def stem(text: str | None) -> str:
    """`squash`, then without leading vendor words: "NVIDIA H200" and "h200" stem alike."""
    out = squash(text)
    changed = True
    while changed:
        changed = False
        for word in VENDOR_WORDS:
            if out.startswith(word) and len(out) > len(word):
                out, changed = out[len(word) :], True
    return out


@dataclass(frozen=True)
class HardwareMatch:
    """What a typed GPU name became: a catalog key (and how it matched), or the nearest keys."""

    typed: str
    key: str | None = None
    via: str = ""  # "key", "name" or "alias"; empty when nothing matched
    nearest: tuple[str, ...] = field(default_factory=tuple)

    @property
    def changed(self) -> bool:
        return self.key is not None and self.key != self.typed

    def warning(self) -> str | None:
        """One line for the uploader; None when the name already was a catalog key."""
        if self.key is None:
            near = ", ".join(self.nearest) if self.nearest else "none close"
            return (
                f"Hardware {self.typed!r} is not in the hardware catalog, so it was kept as "
                f"typed (no catalog price, power or physics limit). Nearest keys: {near}. "
                f"Add it to the catalog: {add_hardware_url(self.typed)}"
            )
        if self.changed:
            return f"Hardware {self.typed!r} → {self.key} (matched by catalog {self.via})."
        return None

    def as_dict(self) -> HardwareMatchDict:
        return {
            "typed": self.typed,
            "key": self.key,
            "via": self.via or None,
            "nearest": list(self.nearest),
            "add_url": None if self.key else add_hardware_url(self.typed),
        }


def add_hardware_url(name: str) -> str:
    """The catalog page's new-hardware form, prefilled with the typed name."""
    from urllib.parse import urlencode

    return "/catalog?" + urlencode({"new_hardware": name}) + "#hardware-form"


def _names(row: Hardware) -> Iterable[tuple[str, str]]:
    yield squash(row.key), "key"
    yield squash(row.name), "name"
    yield stem(row.name), "name"
    for alias in row.aliases or []:
        yield squash(alias), "alias"
        yield stem(alias), "alias"


def match_hardware_in(rows: Iterable[Hardware], text: str | None) -> HardwareMatch:
    """Match ignoring case, spaces and punctuation, by key, catalog name or alias.

    No fuzzy guessing: "H100 NVL" is a different part from "H100", so a name matches only
    when it equals one of a row's names; otherwise the nearest keys are suggested.
    """
    typed = (text or "").strip()
    index: dict[str, tuple[str, str]] = {}
    names = [(name, row.key, via) for row in rows for name, via in _names(row) if name]
    # Keys first, then catalog names, then aliases: a key always means its own row.
    for rank in ("key", "name", "alias"):
        for name, key, via in names:
            if via == rank:
                index.setdefault(name, (key, via))
    for wanted in (squash(typed), stem(typed)):
        if wanted and wanted in index:
            key, via = index[wanted]
            return HardwareMatch(typed, key, via)
    # Nearest: keys the typed name starts with ("H100 NVL" → H100), then the closest spellings
    # of keys and catalog names (aliases left out: they repeat a key with noise around it).
    wanted = stem(typed)
    keys = sorted({key for key, _ in index.values()}, key=len, reverse=True)
    containing = [k for k in keys if squash(k) and wanted.startswith(squash(k))]
    spellings = {n: key for n, (key, via) in index.items() if via != "alias"}
    close = difflib.get_close_matches(wanted, list(spellings), n=8, cutoff=0.5)
    nearest = tuple(dict.fromkeys([*containing, *(spellings[c] for c in close)]))[:3]
    return HardwareMatch(typed, None, "", nearest)


def match_hardware(session: Session, text: str | None) -> HardwareMatch:
    return match_hardware_in(session.scalars(select(Hardware)).all(), text)


def slo_presets(session: Session) -> list[SloPreset]:
    return list(session.scalars(select(SloPreset).order_by(SloPreset.key)).all())


def model_specs(session: Session) -> list[ModelSpec]:
    return list(session.scalars(select(ModelSpec).order_by(ModelSpec.key)).all())


def match_model_spec(session: Session, text: str | None) -> ModelSpec | None:
    """The spec whose key or name equals `text` ignoring case, spaces and punctuation."""
    return model_spec_in(model_specs(session) if squash(text) else [], text)


def model_spec_in(specs: Iterable[ModelSpec], text: str | None) -> ModelSpec | None:
    """`match_model_spec` among specs already read (by key), no query."""
    wanted = squash(text)
    if not wanted:
        return None
    for spec in specs:
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
    phases = [spec.prefill_active_params_b, spec.decode_active_params_b]
    if params_b is not None:
        active = active * params_b / total
        phases = [None if p is None else p * params_b / total for p in phases]
        total = params_b
    prefill, decode = (None if p is None else min(p, total) for p in phases)
    return ModelArch(
        total_params_b=total,
        active_params_b=min(active, total),
        prefill_active_params_b=prefill,
        decode_active_params_b=decode,
        layers=spec.layers,
        kv_heads=spec.kv_heads,
        head_dim=spec.head_dim,
        d_model=spec.d_model,
        kv_lora_rank=spec.kv_lora_rank,
        rope_dim=spec.rope_dim,
        experts=spec.experts,
        top_k=spec.top_k,
    )
