"""Percentiles over a point's request samples: what percentile mode compares with its limits
when the samples can say more than the tool's own statistics (app.domain.slo).

Pure math: imports only the standard library and polars (no web, database or settings modules).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from app.domain.point import Metric, float_or_none
from app.domain.request_goodput import defined_tpot_expr
from app.domain.verdict import SampleValue, percentile_percent


def sample_percentiles(
    samples: pl.DataFrame, wanted: Sequence[tuple[Metric, str]]
) -> dict[int, dict[tuple[Metric, str], SampleValue]]:
    """Per point id, each wanted (metric, percentile) over the point's request samples.

    Over successful requests only. TPOT over those with more than one output token: a
    one-token request has no TPOT (undefined, not 0), so it is left out and counted
    (SampleValue.undefined). Linear interpolation between closest ranks, numpy.percentile's
    default (as vLLM reports).
    """
    checked = list(dict.fromkeys(wanted))
    if samples.is_empty() or not checked:
        return {}
    ok = samples.filter(pl.col("ok").fill_null(False))
    aggs: list[pl.Expr] = []
    for metric, stat in checked:
        value = defined_tpot_expr() if metric == "tpot" else pl.col(f"{metric}_ms")
        q = percentile_percent(stat) / 100
        aggs.append(value.quantile(q, "linear").alias(f"{metric}|{stat}|v"))
        aggs.append(value.count().alias(f"{metric}|{stat}|n"))
    aggs.append((pl.col("output_len") <= 1).sum().alias("|one-token"))
    table = ok.group_by("point_id").agg(aggs)
    out: dict[int, dict[tuple[Metric, str], SampleValue]] = {}
    for row in table.iter_rows(named=True):
        one_token = int(row["|one-token"] or 0)
        out[int(row["point_id"])] = {
            (metric, stat): SampleValue(
                float_or_none(row[f"{metric}|{stat}|v"]),
                int(row[f"{metric}|{stat}|n"]),
                one_token if metric == "tpot" else 0,
            )
            for metric, stat in checked
        }
    # Points whose every request failed still have samples: their percentiles are over none.
    for point_id in samples["point_id"].unique().to_list():
        out.setdefault(int(point_id), {(m, s): SampleValue(None, 0) for m, s in checked})
    return out
