"""Sweeps as the API answers them: listed, one with its points, edited, exported, tagged."""

from __future__ import annotations

from typing import Literal

from pydantic import JsonValue

from app.schemas.answers.common import Answer, sweep_field_types
from app.schemas.answers.histograms import SweepHistogramAttainment
from app.schemas.answers.ttft_context import TtftContextPoint

# A request rate of "inf": a run with no rate limit (JSON has no infinity).
Rate = float | Literal["inf"]


class SweepFields(Answer):
    """A sweep's stored columns (app.domain.columns.SWEEP_COLUMNS, `sweep` as `name`)."""

    # Its keys and types from the sweep fields' one definition (app.domain.sweep_fields).
    __annotations__ = {
        "id": int,
        **sweep_field_types(stored=True),
        "source_file": str | None,
        "created_at": str,
    }


class SweepListed(SweepFields):
    points: int
    tags: list[str]


class SweepList(Answer):
    sweeps: list[SweepListed]
    total: int
    page: int
    per_page: int


class StoredPoint(Answer):
    """A point with every stored column (app.domain.columns.POINT_COLUMNS); `extra` keeps what
    the tool reported beyond them, as it reported it."""

    id: int
    position: int
    concurrency: float | None
    request_rate: Rate | None
    achieved_concurrency: float | None
    num_requests: int | None
    num_failed: int | None
    duration_s: float | None
    input_len: float | None
    output_len: float | None
    ttft_mean_ms: float | None
    ttft_p50_ms: float | None
    ttft_p90_ms: float | None
    ttft_p95_ms: float | None
    ttft_p99_ms: float | None
    tpot_mean_ms: float | None
    tpot_p50_ms: float | None
    tpot_p90_ms: float | None
    tpot_p95_ms: float | None
    tpot_p99_ms: float | None
    itl_mean_ms: float | None
    itl_p50_ms: float | None
    itl_p90_ms: float | None
    itl_p95_ms: float | None
    itl_p99_ms: float | None
    e2el_mean_ms: float | None
    e2el_p50_ms: float | None
    e2el_p90_ms: float | None
    e2el_p95_ms: float | None
    e2el_p99_ms: float | None
    output_tok_s: float | None
    total_tok_s: float | None
    requests_per_s: float | None
    goodput_requests_per_s: float | None
    goodput_slo: str | None
    extra: dict[str, JsonValue]
    request_samples: int
    # TTFT against prompt length from the point's request samples (issue 50): in one sweep's
    # detail, where the point has samples.
    ttft_vs_context: TtftContextPoint | None = None


class StatedFigureOut(Answer):
    """An aggregate the file states beside Paretoscope's recomputation of it (issue 51):
    `status` agrees (within 0.5 %), explained (by `rule`) or flagged (no known rule)."""

    point_id: int
    position: int
    load: float | None
    load_kind: Literal["concurrency", "request_rate"]
    figure: str
    unit: str
    theirs: float
    ours: float
    ours_from: str
    difference_pct: float
    status: Literal["agrees", "explained", "flagged"]
    rule: str | None


class TurnRow(Answer):
    """A point's sessions and turns (issue 49): sessions seen (cut ones included), TTFT of the
    first and later turns at p50 and p90, E2E-normalized interactivity at p90, and the records
    its file dropped (warm-up, errors) where it counts them."""

    point_id: int
    concurrency: float | None
    sessions: int
    cut: int
    unsessioned_requests: int
    ttft_first_p50_ms: float | None
    ttft_first_p90_ms: float | None
    ttft_later_p50_ms: float | None
    ttft_later_p90_ms: float | None
    first_requests: int | None
    later_requests: int | None
    e2e_interactivity_p90_tok_s_user: float | None
    e2el_per_token_p90_ms: float | None
    warmup_dropped: int | None
    error_dropped: int | None


class CachedInputRow(Answer):
    """A point's cached (prefix-hit) share of input tokens and its source (issue 50):
    `measured` by the server, reported by the `client`, `theoretical` (never measured), or
    `unknown` (share null)."""

    point_id: int
    concurrency: float | None
    request_rate: float | None
    cached_input_share: float | None
    cached_input_source: Literal["measured", "client", "theoretical", "unknown"]
    cached_input_source_words: str
    cached_input_from: str | None  # what the share was computed from


class SweepDetail(SweepFields):
    """One sweep with its points, and the measured mean ISL/OSL beside the configured ones
    (`length_note` set when they differ by more than 10 %)."""

    points: list[StoredPoint]
    measured_isl: float | None
    measured_osl: float | None
    length_note: str | None
    tags: list[str]
    # "8P + 8D", or "varies: 4P + 12D … 8P + 8D (3 splits)" when it changes along the sweep
    # (each point's own in its extra fields); null for aggregated serving.
    split: str | None
    stated_figures: list[StatedFigureOut]
    # SLO attainment off the file's latency histograms at the default SLO; null without any.
    histogram_attainment: SweepHistogramAttainment | None = None
    turns: list[TurnRow]  # per point with session ids; [] for a single-turn sweep
    cached_input: list[CachedInputRow]  # per point; [] when no point reports cached input


class SweepEdited(SweepFields):
    points: int
    warnings: list[str]


class ExportedSweep(SweepFields):
    points: list[StoredPoint]


class ExportedSweeps(Answer):
    sweeps: list[ExportedSweep]


class SweepTags(Answer):
    sweep_id: int
    tags: list[str]
