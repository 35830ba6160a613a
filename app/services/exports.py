"""Canonical CSV and JSON exports of stored sweeps (they re-import to the same sweeps)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Mapping
from typing import Any

import polars as pl

from app.domain.accounting import SPLIT_COLUMNS, UNIT_WORDS, Split, point_split
from app.domain.columns import POINT_COLUMN_NAMES, SWEEP_COLUMN_NAMES
from app.domain.phases import PHASE
from app.domain.sessions import axis_words
from app.ingest.parsed import CACHED_INPUT, SAMPLE_FIELDS
from app.schemas.answers.typed.sweeps import ExportedSweepDict
from app.services.analysis import Params, SweepAnalysis
from app.services.bands import SweepBand
from app.services.prices import Cost
from app.services.readoff import token_classes
from app.services.readoff.document import e2e_at
from app.services.readoff.intervals import cost_interval
from app.services.readoff.price_columns import PriceColumn, price_cells
from app.services.sweeps.sessions import agents_json, sessions_json, turns_json
from app.store.models import Sweep
from app.store.sweeps import point_dict, sweep_fields

FORMULA_PREFIXES = ("=", "+", "-", "@")


def neutralise(cell: str) -> str:
    """Spreadsheet apps run cells that start with = + - @; a leading quote makes them text."""
    if cell.startswith(FORMULA_PREFIXES) and not _is_number(cell):
        return "'" + cell
    return cell


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "inf" if value == float("inf") else repr(value)
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return neutralise(str(value))


def sweeps_csv(sweeps: list[Sweep]) -> str:
    """One row per point with the sweep-level columns repeated (a point's own split in place of
    the sweep's); extra fields are not exported."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*SWEEP_COLUMN_NAMES, *POINT_COLUMN_NAMES])
    for sweep in sweeps:
        meta = [
            _cell(sweep.name if c == "sweep" else getattr(sweep, c)) for c in SWEEP_COLUMN_NAMES
        ]
        for point in sweep.points:
            own = point_split(point.extra) if point.extra else None
            row = meta if own is None else _with_split(meta, own)
            writer.writerow([*row, *(_cell(getattr(point, c)) for c in POINT_COLUMN_NAMES)])
    return out.getvalue()


# Where a point's own prefill:decode split (a split changing along the sweep) replaces the
# sweep's, so the file imports back as the same sweep.
_SPLIT_AT = tuple(SWEEP_COLUMN_NAMES.index(k) for k in SPLIT_COLUMNS)


def _with_split(meta: list[str], own: Split) -> list[str]:
    row = list(meta)
    for at, value in zip(_SPLIT_AT, own, strict=True):
        row[at] = _cell(value)
    return row


def requests_csv(sweeps: list[Sweep], samples: Mapping[int, pl.DataFrame]) -> str:
    """Canonical per-request CSV of every point that has samples (frames keyed by point id).

    Written by polars column by column: a million requests make no Python object each.
    """
    # Cached input tokens only when some request has them: files without keep their columns
    # (and a round trip keeps its content hash).
    cached = any(
        CACHED_INPUT in f.columns and f[CACHED_INPUT].null_count() < f.height
        for f in samples.values()
    )
    fields = [*SAMPLE_FIELDS, CACHED_INPUT] if cached else list(SAMPLE_FIELDS)
    # The phase (warm-up or profiling) likewise, only when the file stated one.
    if any(PHASE in f.columns and f[PHASE].null_count() < f.height for f in samples.values()):
        fields.append(PHASE)
    header = ["sweep", "concurrency", "request_rate", *fields]
    parts = []
    for sweep in sweeps:
        for point in sweep.points:
            frame = samples.get(point.id)
            if frame is None or frame.is_empty():
                continue
            keys = {
                "sweep": _cell(sweep.name),
                "concurrency": _cell(point.concurrency),
                "request_rate": _cell(point.request_rate),
            }
            parts.append(
                frame.select(
                    *(pl.lit(v, pl.String).alias(k) for k, v in keys.items()),
                    *(pl.col(c) for c in fields),
                )
            )
    if not parts:
        return ",".join(header) + "\n"
    return pl.concat(parts).write_csv(float_precision=None, line_terminator="\n")


def sweeps_zip(sweeps: list[Sweep], samples: Mapping[int, pl.DataFrame]) -> bytes:
    """points.csv, plus requests.csv when any point has samples: re-imports as the same sweeps."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("points.csv", sweeps_csv(sweeps))
        if any(not f.is_empty() for f in samples.values()):
            archive.writestr("requests.csv", requests_csv(sweeps, samples))
    return buffer.getvalue()


def rows_csv(header: list[str], rows: list[list[Any]]) -> str:
    """Any table as CSV, with every text cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return out.getvalue()


def sweeps_json(sweeps: list[Sweep], samples: Mapping[tuple[int, int], int]) -> str:
    """{"sweeps": [...]}, a sweep (with its points and each point's number of request samples,
    `samples` by sweep id and position) per line. Not `indent=2`: Python encodes an indented
    document in pure Python, 4× slower (0.9 s for 1,000 sweeps of 32 points)."""
    lines = []
    for sweep in sweeps:
        doc: ExportedSweepDict = {
            **sweep_fields(sweep),
            "points": [point_dict(p, samples.get((sweep.id, p.position), 0)) for p in sweep.points],
        }
        lines.append(json.dumps(doc))
    return '{"sweeps": [\n' + ",\n".join(lines) + "\n]}\n" if lines else '{"sweeps": []}\n'


READOFF_HEADER = [
    "sweep_id", "sweep", "hardware", "num_gpus", "model", "engine", "precision", "slo", "mode",
    "basis", "throughput_per", "status", "meets_slo", "goodput_tok_s_per_gpu",
    "goodput_statistic", "best_run_tok_s_per_gpu", "goodput_requests_per_s",
    "concurrency", "request_rate", "interactivity_tok_s_user", "estimate_tok_s_per_gpu",
    "tok_s_per_mw", "reason", "ci_level", "ci_method", "goodput_ci_low", "goodput_ci_high",
    "attainment", "attainment_ci_low", "attainment_ci_high", "ci_reason",
    # Multi-turn runs (issue 49): the x axis read, and sessions, turns and agents at the SLO.
    "interactivity_axis", "e2e_interactivity_tok_s_user", "scenario", "sessions",
    "sessions_met", "session_attainment", "session_attainment_ci_low",
    "session_attainment_ci_high", "sessions_cut", "sessions_reason", "ttft_first_turn_ms",
    "ttft_later_turns_ms", "agents_at_slo", "agents_per_gpu", "agents_per_mw",
    "agents_per_usd_hour",
]  # fmt: skip


def readoff_csv(
    results: list[SweepAnalysis],
    params: Params,
    columns: list[PriceColumn],
    classes: Mapping[int, Mapping[str, Any]] | None = None,
) -> str:
    """One row per sweep; per price column the $/Mtok and the $/GPU-hour of its own GPU (or the
    user's own price), and why there is no $/Mtok: never another GPU's price.

    `status` is pass, borderline, fail or unknown; `meets_slo` is empty when unknown. Each
    interval's ends follow its value's columns (empty, with `ci_reason`, when there is none).
    In percentile mode with repeated passing runs at the operating load the goodput is their
    geometric mean (`goodput_statistic` says so; the interval is from the same runs) and the
    best run is its own labelled column, `best_run_tok_s_per_gpu` (empty otherwise).
    With `classes` (app.services.readoff.token_classes.by_sweep), the token-class columns follow.
    """
    header = [
        *READOFF_HEADER,
        *(
            name
            for c in columns
            for name in (
                f"usd_per_mtok [{c.label}]",
                f"usd_per_gpu_hour [{c.label}]",
                f"usd_per_mtok_ci_low [{c.label}]",
                f"usd_per_mtok_ci_high [{c.label}]",
                f"usd_per_mtok_ci_reason [{c.label}]",
                f"usd_per_mtok_reason [{c.label}]",
            )
        ),
    ]
    if classes is not None:
        header += token_classes.csv_header([c.label for c in columns])
    rows = []
    for result in results:
        prices = [
            value
            for cell in price_cells(result, columns)
            for value in (
                cell.usd_per_mtok,
                cell.usd_per_gpu_hour,
                *_cost_ends(result, cell.cost),
                cell.reason,
            )
        ]
        more = [] if classes is None else token_classes.csv_cells(classes[int(result.meta.id)])
        rows.append([*_readoff_row(result, params), *prices, *more])
    return rows_csv(header, rows)


def _readoff_row(result: SweepAnalysis, params: Params) -> list[Any]:
    meta, readoff = result.meta, result.readoff
    op = readoff.operating_point
    return [
        meta.id, meta.name, meta.hardware, meta.num_gpus, meta.model,
        meta.engine, meta.precision, params.slo.describe(params.mode == "requests"),
        params.mode, params.basis, UNIT_WORDS[params.accounting],
        readoff.shown_status, readoff.meets_slo, readoff.goodput_tok_s_per_gpu,
        *_best_run_cells(result), readoff.goodput_requests_per_s,
        op.concurrency if op else None, op.request_rate if op else None,
        op.interactivity_tok_s_user if op else None, result.estimate_tok_s_per_gpu,
        result.tok_s_per_mw, readoff.reason, *_interval_cells(result, params),
        *_session_cells(result, params),
    ]  # fmt: skip


def _session_cells(result: SweepAnalysis, params: Params) -> list[Any]:
    """The axis read and the sweep's sessions, turns and agents (empty where unknown)."""
    op = result.readoff.operating_point
    sessions = sessions_json(result.sessions)
    turns = turns_json(result.sessions)
    agents = agents_json(result.sessions)
    return [
        axis_words(params.interactivity, params.stat, params.e2e_percentile),
        None if op is None else e2e_at(result, op.point_id),
        result.meta.scenario,
        sessions["count"], sessions["met"], sessions["attainment"],
        sessions["attainment_low"], sessions["attainment_high"], sessions["cut"],
        sessions["reason"], turns["ttft_first_ms"], turns["ttft_later_ms"],
        agents["concurrent_sessions"], agents["per_gpu"], agents["per_mw"],
        agents["per_usd_hour"],
    ]  # fmt: skip


def _best_run_cells(result: SweepAnalysis) -> list[Any]:
    """goodput_statistic and best_run_tok_s_per_gpu: set only when the goodput is a statistic
    of repeated runs (a single measured figure is its own best run)."""
    ivs = result.intervals
    if ivs is None or ivs.statistic is None:
        return [None, None]
    return [ivs.statistic, ivs.best_run_tok_s_per_gpu]


def _interval_cells(result: SweepAnalysis, params: Params) -> list[Any]:
    """ci_level … ci_reason of READOFF_HEADER: the goodput's and the attainment's intervals."""
    ivs = result.intervals
    if ivs is None:
        return [params.ci_level, None, None, None, None, None, None, "no interval"]
    g, a = ivs.goodput_tok_s_per_gpu, ivs.attainment
    return [
        ivs.level, g.method if g.known else None, g.low, g.high,
        a.value, a.low, a.high, g.reason,
    ]  # fmt: skip


def _cost_ends(
    result: SweepAnalysis, cost: Cost | None
) -> tuple[float | None, float | None, str | None]:
    """$/Mtok's interval ends and, where an end is missing, why (a bare empty end reads as a
    figure nobody measured). No $/Mtok at all: its own reason column says why."""
    if cost is None or cost.usd_per_mtok is None:
        return None, None, None
    iv = cost_interval(result, cost)
    if iv is None:
        return None, None, "no interval"
    ends_missing = iv.low is None or iv.high is None
    return iv.low, iv.high, (iv.reason or "no interval") if ends_missing else None


BAND_HEADER = [
    "sweep_id", "sweep", "throughput_per", "ci_level", "method", "interpolation", "resamples",
    "seed", "x_tok_s_user", "tok_s_per_gpu", "low_tok_s_per_gpu", "high_tok_s_per_gpu", "reason",
]  # fmt: skip


def frontier_band_csv(found: list[SweepBand], params: Params) -> str:
    """Each sweep's frontier band as the pages draw it (/api/explore's `bands`): one row per
    grid interactivity with the frontier's throughput and its interval's ends (empty where
    there is none there); a sweep without a band is one row with only the reason. Seeded: the
    same query gives the same file."""
    rows: list[list[Any]] = []
    unit = UNIT_WORDS[params.accounting]
    for sb in found:
        meta, b = sb.result.meta, sb.band
        if b is None:
            rows.append([meta.id, meta.name, unit, params.ci_level, *[None] * 8, sb.reason])
            continue
        head = [meta.id, meta.name, unit, b.level, b.method, b.interpolation, b.resamples, b.seed]
        for k, x in enumerate(b.x):
            rows.append([*head, x, b.y[k], b.low[k], b.high[k], sb.reason])
    return rows_csv(BAND_HEADER, rows)
