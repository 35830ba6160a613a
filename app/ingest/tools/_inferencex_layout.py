"""An InferenceX row's parallelism layout (issue 51 §5): the settings `config` keeps and the
name people give it (TP8, DEP16 × 1, "8P+16D · prefill …")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.ingest.tools._vllm_common import text

# The parallelism a row states, per role on multi-node rows (issue 51 §5): fields of the sweep.
PARALLEL = ("tp", "ep", "dp_attention", "pp", "dcp_size", "pcp_size")


def parallel_settings(row: Mapping[str, Any], multinode: bool) -> list[tuple[str, str]]:
    """(key, value) of every parallelism setting the row gives, as `config` keeps them:
    `tp=8 ep=8 dp_attention=true`; on multi-node rows per role, with its worker count."""
    roles = ("prefill_", "decode_") if multinode else ("",)
    keys = [f"{r}{k}" for r in roles for k in (*PARALLEL, *(("num_workers",) if r else ()))]
    return [(k, _setting(row[k])) for k in keys if text(row.get(k)) is not None]


def _setting(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip().lower()


def layout_name(row: Mapping[str, Any], multinode: bool) -> str:
    """The layout as people name it: TP8, TP8 EP8, DEP8 (data-parallel attention with expert
    parallelism over the TP GPUs), with PP; multi-node "4P+12D · prefill DEP4 × 1, decode
    DEP16 × 1" (each role's layout × its workers)."""
    if not multinode:
        return _layout(row, "")
    roles = []
    for role in ("prefill", "decode"):
        layout = _layout(row, f"{role}_")
        workers = text(row.get(f"{role}_num_workers"))
        roles.append(f"{role} {layout}" + (f" × {_setting(workers)}" if workers else ""))
    split = f"{row.get('num_prefill_gpu')}P+{row.get('num_decode_gpu')}D"
    return f"{split} · {', '.join(roles)}"


def _layout(row: Mapping[str, Any], role: str) -> str:
    def size(key: str) -> int | None:
        value = text(row.get(f"{role}{key}"))
        try:
            return int(float(value)) if value is not None else None
        except ValueError:  # a size that is no number names nothing
            return None

    tp, ep, pp = size("tp"), size("ep"), size("pp")
    dpa = _setting(row.get(f"{role}dp_attention")) == "true"
    if dpa:
        name = f"DEP{tp}" if ep and ep > 1 else f"DP{tp}"
    else:
        name = f"TP{tp}" + (f" EP{ep}" if ep and ep > 1 else "")
    return name + (f" PP{pp}" if pp and pp > 1 else "")
