"""The requests of one point that missed the SLO, and which limit each missed (issue 50): what
clicking a point on Explore lists, and /api/readoff/misses. Each request is judged as per-request
mode judges it (vLLM semantics: equality passes; a failed request misses every limit; a
one-token request has no TPOT and cannot miss a TPOT limit)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
from sqlalchemy.orm import Session

from app.domain.request_goodput import request_tpot_expr
from app.domain.verdict import Slo
from app.schemas.answers.typed.ttft_context import (
    MissedRequestDict,
    MissesAmongDict,
    MissesOutDict,
)
from app.store import points as point_queries
from app.store.point_blocks import sweep_of
from app.store.sweeps import NotFound

MAX_LISTED = 200  # requests listed at most (the counts cover them all)


@dataclass(frozen=True)
class Among:
    """Which of the point's requests to judge: a prompt-length bucket [low, high) and a turn of
    a session (a marker of the sweep page's TTFT-against-context charts); None is any."""

    input_tokens_low: int | None = None
    input_tokens_high: int | None = None
    turn_index: int | None = None

    def keep(self, samples: pl.DataFrame) -> pl.DataFrame:
        keep = pl.lit(True)
        if self.input_tokens_low is not None:
            keep = keep & (pl.col("input_len") >= self.input_tokens_low).fill_null(False)
        if self.input_tokens_high is not None:
            keep = keep & (pl.col("input_len") < self.input_tokens_high).fill_null(False)
        if self.turn_index is not None:
            if "turn_index" not in samples.columns:
                return samples.clear()
            keep = keep & (pl.col("turn_index") == self.turn_index).fill_null(False)
        return samples.filter(keep)

    def as_json(self) -> MissesAmongDict:
        return {
            "input_tokens_low": self.input_tokens_low,
            "input_tokens_high": self.input_tokens_high,
            "turn_index": self.turn_index,
        }


def misses(
    session: Session, sweep_id: int, point_id: int, slo: Slo, among: Among | None = None
) -> MissesOutDict:
    """Per request that missed: its place among the point's requests, lengths, TTFT, TPOT and
    E2EL, and the limits it missed ("failed" for a failed request); counts of all requests (of
    those `among` keeps: one bucket of prompt lengths, one turn)."""
    if sweep_of(point_id)[0] != sweep_id:
        raise NotFound(f"point {point_id} is not a point of sweep {sweep_id}")
    among = among or Among()
    # The request number is its place among all the point's requests, before any filter.
    samples = among.keep(point_queries.samples_frame(session, [point_id]).with_row_index("request"))
    limits = slo.limits()
    body: MissesOutDict = {
        "sweep_id": sweep_id,
        "point_id": point_id,
        "among": among.as_json(),
        "limits": [{"metric": m, "limit_ms": v} for m, v in limits],
        "issued": samples.height,
        "missed": 0,
        "listed": 0,
        "requests": [],
        "rule": "each request judged against every limit (equality passes); a failed request "
        "misses all; a one-token request has no TPOT",
        "reason": None if samples.height else "no request samples at this point" + _there(among),
    }
    if not samples.height:
        return body
    ok = pl.col("ok").fill_null(False)
    value = {"ttft": pl.col("ttft_ms"), "tpot": request_tpot_expr(), "e2el": pl.col("e2el_ms")}
    judged = samples.with_columns(
        tpot_ms=request_tpot_expr(),
        **{f"miss_{m}": ok & (value[m] > v).fill_null(True) for m, v in limits},
    )
    flags = [pl.col(f"miss_{m}") for m, _ in limits]
    missed = judged.filter(~ok | pl.any_horizontal(flags) if flags else ~ok)
    body["missed"] = missed.height
    rows: list[MissedRequestDict] = []
    for row in missed.head(MAX_LISTED).iter_rows(named=True):
        which: list[str] = (
            ["failed"] if not row["ok"] else [m for m, _ in limits if row[f"miss_{m}"]]
        )
        rows.append(
            {
                "request": row["request"] + 1,
                "input_len": row["input_len"],
                "output_len": row["output_len"],
                "ttft_ms": row["ttft_ms"],
                "tpot_ms": row["tpot_ms"] if (row["output_len"] or 0) > 1 else None,
                "e2el_ms": row["e2el_ms"],
                "missed": which,
            }
        )
    body["requests"] = rows
    body["listed"] = len(rows)
    return body


def _there(among: Among) -> str:
    return "" if among == Among() else " in this bucket"
