"""What the deployment page and its JSON twin (/api/production/{id}) share: the query read as
report options."""

from __future__ import annotations

from app.schemas.production import ProductionQuery
from app.services import production_report


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
            dict.fromkeys([*production_report.PERCENTILES, f"p{query.stat[1:]}", *query.percentile])
        ),
    )
