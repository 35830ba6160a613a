"""A read-off query (app.schemas.readoff) as analysis parameters, and what an SLO preset sets."""

from __future__ import annotations

from typing import Any

from app.schemas.readoff import ReadoffQuery
from app.services.analysis import Params
from app.store.models import SloPreset


def params_of(query: ReadoffQuery) -> Params:
    """The analysis parameters the query asks for."""
    return Params(
        query.slo(),
        query.mode,
        query.basis,
        query.stat,
        query.interpolation,
        query.ci_level,
        query.accounting,
        query.interactivity,
        query.e2e_percentile,
    )


def preset_limits(preset: SloPreset) -> dict[str, Any]:
    """The query fields a preset sets (a TPOT limit replaces any minimum tok/s/user)."""
    return {
        "ttft_ms": preset.ttft_ms,
        "tpot_ms": preset.tpot_ms,
        "min_tok_s_user": None,
        "e2el_ms": preset.e2el_ms,
        "percentile": preset.percentile,
        "ttft_percentile": preset.ttft_percentile,
        "tpot_percentile": preset.tpot_percentile,
        "e2el_percentile": preset.e2el_percentile,
        "attainment": preset.attainment,
    }
