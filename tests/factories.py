"""Small canonical CSVs, written out so each test shows exactly what it uploads."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.domain.columns import POINT_COLUMN_NAMES, SWEEP_COLUMN_NAMES
from app.store.models import Base, PointBlock, SampleBlock

FULL_HEADER = [*SWEEP_COLUMN_NAMES, *POINT_COLUMN_NAMES]


def full_row(**overrides: Any) -> dict[str, Any]:
    """A point with every canonical column set to a distinct, exactly representable value."""
    row: dict[str, Any] = {
        "sweep": "h100-vllm-70b",
        "hardware": "H100",
        "num_gpus": 8,
        "model": "llama-3.1-70b",
        "engine": "vllm",
        "engine_version": "0.11.0",
        "precision": "fp8",
        "spec_decode": "none",
        "isl": 1024,
        "osl": 1024,
        "workload": "random",
        "num_prefill_gpus": 4,
        "num_decode_gpus": 4,
        "source_kind": "measured",
        "source_tool": "vllm bench serve",
        "notes": "lab run, node 7",
        "measured_at": "2026-11-02",
    }
    for i, name in enumerate(POINT_COLUMN_NAMES):
        row[name] = round(1.5 + i * 3.25, 4)
    row.update(
        concurrency=16,
        request_rate="inf",
        num_requests=640,
        num_failed=2,
        goodput_slo="ttft:200 tpot:50",
    )
    # Keep TTFT below E2EL at every statistic.
    for stat in ("mean", "p50", "p90", "p95", "p99"):
        row[f"e2el_{stat}_ms"] = row[f"ttft_{stat}_ms"] + 20000.125
    row.update(overrides)
    return row


def to_csv(rows: list[dict[str, Any]], header: list[str] | None = None) -> bytes:
    header = header or list(rows[0])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else row.get(c) for c in header])
    return out.getvalue().encode()


MINIMAL = (
    b"sweep,hardware,num_gpus,concurrency,tpot_p50_ms,output_tok_s\n"
    b"mini,H100,1,1,10.0,100.0\n"
    b"mini,H100,1,4,12.5,320.0\n"
)


def post_files(client: TestClient, *files: tuple[str, bytes], **fields: Any) -> Any:
    return client.post(
        "/api/sweeps",
        files=[("files", (name, data, "text/csv")) for name, data in files],
        data={k: str(v) for k, v in fields.items()},
    )


def count(session: Session, model: type[Base]) -> int:
    session.expire_all()
    return session.scalar(select(func.count()).select_from(model)) or 0


def point_count(session: Session) -> int:
    """Stored points: those of every sweep's block."""
    session.expire_all()
    return session.scalar(select(func.coalesce(func.sum(PointBlock.points), 0))) or 0


def sample_count(session: Session) -> int:
    """Stored request samples: the rows of every columnar block."""
    session.expire_all()
    return session.scalar(select(func.coalesce(func.sum(SampleBlock.rows), 0))) or 0
