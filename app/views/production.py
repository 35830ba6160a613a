"""What the deployment page and its JSON twin (/api/production/{id}) share: the query read as
report options."""

from __future__ import annotations

from app.schemas.production import ProductionQuery
from app.services.telemetry import options as production_report

LIMITS = {"ttft_ms", "tpot_ms", "e2el_ms", "attainment"}


def options_of(query: ProductionQuery) -> production_report.ReportOptions:
    return production_report.ReportOptions(
        sweep_id=query.sweep,
        stat=query.stat,
        basis=query.basis,
        interpolation=query.interpolation,
        ttft_ms=query.ttft_ms,
        tpot_ms=query.tpot_ms,
        e2el_ms=query.e2el_ms,
        attainment=query.attainment,
        min_efficiency=query.min_efficiency,
        usd_per_gpu_hour=query.usd_per_gpu_hour,
        pricing=query.pricing,
        percentiles=tuple(
            dict.fromkeys(
                [
                    *production_report.PERCENTILES,
                    *([] if query.stat == "mean" else [query.stat]),
                    *query.percentile,
                ]
            )
        ),
        # Limits given without a preset are the user's own; nothing given: the default preset.
        preset=query.preset or ("custom" if query.model_fields_set & LIMITS else None),
    )
