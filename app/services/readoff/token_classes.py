"""A sweep's tokens by class (uncached input, cached input, output) at each point and at its
operating point: the cached share of input and where it comes from, revenue at the user's API
prices, the blended $/Mtok of the measured mix and the break-even price of each class under
each price column's GPU-hour (issue 50)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl
from sqlalchemy.orm import Session

from app.domain.cost import usd_per_useful_hour
from app.domain.point import PointMetrics
from app.domain.token_classes import (
    CLASSES,
    SPLIT_RULE,
    UNKNOWN_SOURCE,
    CachedShare,
    ClassPrices,
    ClassRevenue,
    TokenMix,
    break_even,
    class_revenue,
    point_share,
    token_mix,
)
from app.schemas.answers.typed.token_classes import (
    BreakEvenOutDict,
    ByClassDict,
    PointClassesOutDict,
    PricesByClassDict,
    SweepTokenClassesOutDict,
    TokenClassesOutDict,
)
from app.services.analysis import SweepAnalysis
from app.services.readoff.price_columns import PriceCell
from app.store import points as point_queries
from app.store.models import PricingProfile

CACHED = "cached_input_tokens"


def sample_counts(samples: pl.DataFrame) -> dict[int, tuple[int, int]]:
    """Per point id: (Σ cached, Σ input tokens) of the successful requests that report both.

    Integer sums, so input = uncached + cached holds exactly for the requests counted."""
    if CACHED not in samples.columns or samples[CACHED].null_count() == samples.height:
        return {}  # (an empty frame has no count either)
    known = pl.col("ok").fill_null(False) & pl.col(CACHED).is_not_null()
    known = known & pl.col("input_len").is_not_null()
    sums = (
        samples.filter(known)
        .group_by("point_id")
        .agg(pl.col(CACHED).cast(pl.Int64).sum(), pl.col("input_len").cast(pl.Int64).sum())
    )
    return {int(i): (int(c), int(n)) for i, c, n in sums.iter_rows()}


def counts_for(session: Session, result: SweepAnalysis) -> dict[int, tuple[int, int]]:
    """The sweep's per-point request counts: from the samples the analysis read, else from the
    store (decoded once per process)."""
    samples = result.samples
    if samples is None:
        samples = point_queries.samples_frame(session, [p.point_id for p in result.points])
    return sample_counts(samples)


@dataclass(frozen=True)
class PointClasses:
    """One point's tokens by class per GPU (None with the reason when unknown)."""

    share: CachedShare | None
    mix: TokenMix | None
    reason: str | None


def point_classes(
    point: PointMetrics,
    num_gpus: int | None,
    covariates: dict[str, float],
    counts: tuple[int, int] | None,
    prices: ClassPrices,
) -> PointClasses:
    """The point's mix per total GPU: input = total − output throughput, cached = input × the
    point's own cached share. Without a share, all input is uncached only when no cached price
    is given (then the cached class is not billed apart); else the mix is unknown."""
    share = point_share(covariates, point.input_len, counts)
    out, total = point.output_tok_s, point.total_tok_s
    if not num_gpus:
        return PointClasses(share, None, "GPU count unknown")
    if out is None or total is None or total < out:
        return PointClasses(share, None, "needs the point's output and total throughput")
    if share is None and prices.usd_per_mtok_cached_input is not None:
        return PointClasses(None, None, "the file reports no cached input tokens")
    mix = token_mix((total - out) / num_gpus, out / num_gpus, 0.0 if share is None else share.share)
    return PointClasses(share, mix, None)


def all_point_classes(
    result: SweepAnalysis, counts: dict[int, tuple[int, int]], prices: ClassPrices
) -> list[PointClasses]:
    covariates = result.point_covariates or [{} for _ in result.points]
    return [
        point_classes(p, result.meta.num_gpus, c, counts.get(p.point_id), prices)
        for p, c in zip(result.points, covariates, strict=True)
    ]


UNKNOWN_WORDS = "unknown: the file reports no cached input tokens"


def by_class(values: Mapping[str, float]) -> ByClassDict:
    """A figure per token class, in the answers' order."""
    return {
        "uncached_input": values["uncached_input"],
        "cached_input": values["cached_input"],
        "output": values["output"],
    }


def prices_by_class(prices: ClassPrices) -> PricesByClassDict:
    given = prices.by_class()
    return {
        "uncached_input": given["uncached_input"],
        "cached_input": given["cached_input"],
        "output": given["output"],
    }


def point_json(found: PointClasses, prices: ClassPrices) -> PointClassesOutDict:
    """One point's classes: the cached share and its source (measured, client or theoretical;
    `unknown`, with a null share, where the file reports none, never 0), tok/s per GPU by
    class, and the revenue at the API prices (null figures with the reason without them)."""
    mix, share = found.mix, found.share
    revenue: ClassRevenue | str | None = None
    if mix is not None and prices.given():
        revenue = class_revenue(mix, prices)
    elif not prices.given():
        revenue = "no API prices given (usd_per_mtok_input, _cached_input, _output)"
    else:
        revenue = found.reason
    earned = revenue if isinstance(revenue, ClassRevenue) else None
    return {
        "cached_input_share": None if share is None else share.share,
        "cached_input_source": UNKNOWN_SOURCE if share is None else share.source,
        "cached_input_source_words": UNKNOWN_WORDS if share is None else share.source_words,
        "cached_input_from": None if share is None else share.how,
        "tok_s_per_gpu": None if mix is None else by_class(mix.by_class()),
        "reason": found.reason,
        "revenue_usd_per_gpu_hour": None if earned is None else by_class(earned.usd_per_hour),
        "revenue_total_usd_per_gpu_hour": None if earned is None else earned.total_usd_per_hour,
        "blended_usd_per_mtok": None if earned is None else earned.blended_usd_per_mtok,
        "tokens_per_usd": None if earned is None else earned.tokens_per_usd,
        "revenue_reason": None if isinstance(revenue, ClassRevenue) else revenue,
    }


def operating_json(
    result: SweepAnalysis,
    classes: list[PointClasses],
    prices: ClassPrices,
    cells: list[PriceCell],
    source: str | None,
) -> TokenClassesOutDict:
    """At the operating point: the point's classes and, per price column, the break-even
    price of each class (SPLIT_RULE); null figures with the reason elsewhere. `source`: where
    the API prices came from."""
    op = result.readoff.operating_point
    at = next((i for i, p in enumerate(result.points) if op and p.point_id == op.point_id), None)
    if at is None:
        empty = PointClasses(None, None, "no operating point at this SLO")
        return _classes_out(None, point_json(empty, prices), prices, [], source)
    found = classes[at]
    body = point_json(found, prices)
    revenue = class_revenue(found.mix, prices) if found.mix and prices.given() else None
    rows: list[BreakEvenOutDict] = []
    for cell in cells:
        cost = cell.cost
        hourly = (
            None
            if cost is None
            else usd_per_useful_hour(cost.price.usd_per_gpu_hour, cost.price.utilization)
        )
        even = None
        if isinstance(revenue, ClassRevenue) and hourly is not None:
            even = break_even(revenue, hourly)
        rows.append(
            {
                "label": cell.label,
                "usd_per_gpu_hour": cell.usd_per_gpu_hour,
                "usd_per_mtok": None if even is None else by_class(even.usd_per_mtok),
                "gpu_usd_per_hour": None if even is None else by_class(even.gpu_usd_per_hour),
                "reason": _break_even_reason(cell, revenue, even is None),
            }
        )
    return _classes_out(op.point_id if op else None, body, prices, rows, source)


def _classes_out(
    point_id: int | None,
    body: PointClassesOutDict,
    prices: ClassPrices,
    rows: list[BreakEvenOutDict],
    source: str | None,
) -> TokenClassesOutDict:
    # Written out, not spread: `points` is added after, where asked.
    return {
        "point_id": point_id,
        "cached_input_share": body["cached_input_share"],
        "cached_input_source": body["cached_input_source"],
        "cached_input_source_words": body["cached_input_source_words"],
        "cached_input_from": body["cached_input_from"],
        "tok_s_per_gpu": body["tok_s_per_gpu"],
        "reason": body["reason"],
        "revenue_usd_per_gpu_hour": body["revenue_usd_per_gpu_hour"],
        "revenue_total_usd_per_gpu_hour": body["revenue_total_usd_per_gpu_hour"],
        "blended_usd_per_mtok": body["blended_usd_per_mtok"],
        "tokens_per_usd": body["tokens_per_usd"],
        "revenue_reason": body["revenue_reason"],
        "api_prices": prices_by_class(prices),
        "split_rule": SPLIT_RULE,
        "break_even": rows,
        "api_prices_from": source,
    }


def _break_even_reason(cell: PriceCell, revenue: object, missing: bool) -> str | None:
    if not missing:
        return None
    if cell.cost is None:
        return cell.reason
    if revenue is None:
        return "give API prices to set the classes' ratios"
    if isinstance(revenue, str):
        return revenue
    return "the given prices earn nothing"


def result_json(
    session: Session | None,
    result: SweepAnalysis,
    prices: ClassPrices,
    cells: list[PriceCell],
    with_points: bool,
) -> TokenClassesOutDict:
    """A read-off's "token_classes": at the operating point, and per point when asked. The API
    prices are the query's; without any, those of the first price column whose profile (of the
    sweep's own GPU) carries prices by class; `api_prices_from` names which."""
    source = "query" if prices.given() else None
    if source is None and session is not None:
        prices, source = profile_prices(session, cells)
    counts = counts_for(session, result) if session is not None else _counts_kept(result)
    classes = all_point_classes(result, counts, prices)
    body = operating_json(result, classes, prices, cells, source)
    if with_points:
        body["points"] = [
            {"point_id": p.point_id, **point_json(c, prices)}
            for p, c in zip(result.points, classes, strict=True)
        ]
    return body


def profile_prices(session: Session, cells: list[PriceCell]) -> tuple[ClassPrices, str | None]:
    """Prices by class of the first cell whose profile gives any, and that profile's name."""
    for cell in cells:
        profile_id = None if cell.cost is None else cell.cost.price.profile_id
        profile = None if profile_id is None else session.get(PricingProfile, profile_id)
        if profile is None:
            continue
        found = ClassPrices(
            profile.usd_per_mtok_input,
            profile.usd_per_mtok_cached_input,
            profile.usd_per_mtok_output,
        )
        if found.given():
            return found, profile.name
    return ClassPrices(), None


def _counts_kept(result: SweepAnalysis) -> dict[int, tuple[int, int]]:
    return {} if result.samples is None else sample_counts(result.samples)


def by_sweep(
    session: Session,
    results: list[SweepAnalysis],
    prices: ClassPrices,
    cells: dict[int, list[PriceCell]],
) -> dict[int, TokenClassesOutDict]:
    """Each sweep's token classes at its operating point, by sweep id (CLI and exports)."""
    return {
        int(r.meta.id): result_json(session, r, prices, cells[int(r.meta.id)], False)
        for r in results
    }


def for_results(
    session: Session, results: list[SweepAnalysis], prices: ClassPrices, columns: list[Any]
) -> dict[int, TokenClassesOutDict]:
    """Each result's token classes under the page's price columns (Explore, Compare, Plan)."""
    from app.services.readoff.price_columns import price_cells

    return {
        int(r.meta.id): result_json(session, r, prices, price_cells(r, columns), False)
        for r in results
    }


def listed(bodies: dict[int, TokenClassesOutDict]) -> list[SweepTokenClassesOutDict]:
    """The bodies as a JSON list, each naming its sweep; [] when they say nothing (no API
    prices given and no cached share known), as the pages then show no table."""
    if not worth_showing(bodies.values()):
        return []
    return [{"sweep_id": sweep_id, **body} for sweep_id, body in bodies.items()]


def csv_header(labels: list[str]) -> list[str]:
    """The read-off CSV's token-class columns (after the price columns)."""
    head = ["cached_input_share", "cached_input_source"]
    head += [f"tok_s_per_gpu_{k}" for k in CLASSES]
    head += [f"revenue_usd_per_gpu_hour_{k}" for k in CLASSES]
    head += ["blended_usd_per_mtok", "tokens_per_usd", "token_classes_reason"]
    head += [f"break_even_usd_per_mtok_{k} [{label}]" for label in labels for k in CLASSES]
    return head


def csv_cells(body: Mapping[str, Any]) -> list[Any]:
    """One sweep's token-class cells, in `csv_header`'s order (empty where unknown)."""
    tok = body["tok_s_per_gpu"] or {}
    revenue = body["revenue_usd_per_gpu_hour"] or {}
    cells: list[Any] = [body["cached_input_share"], body["cached_input_source"]]
    cells += [tok.get(k) for k in CLASSES]
    cells += [revenue.get(k) for k in CLASSES]
    cells += [
        body["blended_usd_per_mtok"],
        body["tokens_per_usd"],
        body["reason"] or body["revenue_reason"],
    ]
    for row in body["break_even"]:
        cells += [(row["usd_per_mtok"] or {}).get(k) for k in CLASSES]
    return cells


def shown(
    session: Session, results: list[SweepAnalysis], prices: ClassPrices, columns: list[Any]
) -> dict[int, TokenClassesOutDict] | None:
    """`by_sweep` when there is something to show (API prices given, or a cached share known
    at an operating point), else None: a table without either keeps its columns."""
    from app.services.readoff.price_columns import price_cells

    found = by_sweep(
        session, results, prices, {int(r.meta.id): price_cells(r, columns) for r in results}
    )
    return found if worth_showing(found.values()) else None


def worth_showing(bodies: Iterable[Mapping[str, Any]]) -> bool:
    """Whether token classes say anything: API prices given, or a cached share known."""
    return any(
        b["api_prices_from"] is not None or b["cached_input_share"] is not None for b in bodies
    )
