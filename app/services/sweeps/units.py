"""A sweep's count of accounting units from its description and its hardware's catalog row."""

from __future__ import annotations

from collections.abc import Mapping

from app.domain.accounting import Accounting, Deployment, Units, units
from app.domain.sweep_meta import SweepMeta
from app.store.catalog import hardware_in
from app.store.models import Hardware


def sweep_units(
    accounting: Accounting,
    meta: SweepMeta,
    hardware: tuple[Hardware, ...],
    allin_kw: Mapping[str, float],
) -> Units:
    """The sweep's count of accounting units from its split and its hardware's catalog row."""
    row = hardware_in(hardware, meta.hardware)
    deployment = Deployment(
        meta.num_gpus,
        meta.num_prefill_gpus,
        meta.num_decode_gpus,
        row.gpus_per_node if row is not None else None,
        row.allin_kw if row is not None else allin_kw.get((meta.hardware or "").lower()),
    )
    return units(accounting, deployment)
