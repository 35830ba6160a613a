"""What every importer produces: sweeps of canonical points, before anything is stored."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from app.domain.columns import POINT_COLUMN_NAMES, SWEEP_COLUMN_NAMES

SAMPLE_FIELDS: tuple[str, ...] = ("ttft_ms", "e2el_ms", "output_len", "input_len", "ok")
SAMPLE_FRAME_SCHEMA: dict[str, pl.DataType] = {
    "ttft_ms": pl.Float64(),
    "e2el_ms": pl.Float64(),
    "output_len": pl.Int64(),
    "input_len": pl.Int64(),
    "ok": pl.Boolean(),
}
Samples = list[tuple[Any, ...]] | pl.DataFrame
HASHED_META: tuple[str, ...] = tuple(
    k for k in SWEEP_COLUMN_NAMES if k not in ("source_tool", "source_kind")
)


@dataclass
class ParsedPoint:
    values: dict[str, Any]  # canonical point columns; absent means not measured
    row: int | None = None  # where it came from, for error messages
    extra: dict[str, Any] = field(default_factory=dict)
    samples: Samples | None = None  # rows of SAMPLE_FIELDS, or a frame of those columns

    @property
    def sample_count(self) -> int:
        return 0 if self.samples is None else len(self.samples)

    def samples_frame(self) -> pl.DataFrame:
        """The samples as a typed frame (a large canonical file stays columnar throughout)."""
        if isinstance(self.samples, pl.DataFrame):
            return self.samples.select(pl.col(c).cast(t) for c, t in SAMPLE_FRAME_SCHEMA.items())
        return pl.DataFrame(self.samples or [], schema=SAMPLE_FRAME_SCHEMA, orient="row")


@dataclass
class ParsedSweep:
    meta: dict[str, Any]  # canonical sweep columns; absent means unknown
    points: list[ParsedPoint]
    source_file: str
    source_format: str  # what the file was recognised as, e.g. "canonical CSV"
    first_row: int | None = None
    warnings: list[str] = field(default_factory=list)  # shown in the preview, kept in notes

    @property
    def name(self) -> str:
        return str(self.meta.get("sweep") or "")

    def missing_meta(
        self, required: tuple[str, ...] = ("sweep", "hardware", "num_gpus")
    ) -> list[str]:
        return [k for k in required if self.meta.get(k) in (None, "")]

    def content_hash(self) -> str:
        """Digest of the canonical content: the same measurements and description hash the same.

        Provenance (which tool, file or kind) and the tool's extra fields are left out, so a
        sweep exported as canonical CSV imports back as the same sweep.
        """
        doc = {
            "meta": {k: _norm(self.meta.get(k)) for k in HASHED_META},
            "points": [
                {
                    "v": {k: _norm(p.values.get(k)) for k in POINT_COLUMN_NAMES},
                    "s": _samples_digest(p),
                }
                for p in self.points
            ],
        }
        text = json.dumps(doc, sort_keys=True, default=str, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def _samples_digest(point: ParsedPoint) -> str | None:
    # CSV text of the typed frame: the same samples give the same bytes, whichever importer.
    if not point.sample_count:
        return None
    text = point.samples_frame().write_csv(float_precision=None)
    return hashlib.sha256(text.encode()).hexdigest()


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        if value.is_integer():
            return int(value)
        return repr(value)
    return value


def name_sweeps(sweeps: list[ParsedSweep], given: str | None) -> None:
    """A name the user gave wins (suffixed by the file's own name when an upload holds several);
    equal names in one upload get a counter so each sweep stays recognisable."""
    if given:
        for sweep in sweeps:
            sweep.meta["sweep"] = given if len(sweeps) == 1 else f"{given} · {sweep.name}"
    seen: dict[str, int] = {}
    for sweep in sweeps:
        count = seen.get(sweep.name, 0) + 1
        seen[sweep.name] = count
        if count > 1:
            sweep.meta["sweep"] = f"{sweep.name} ({count})"


def make_samples(
    ttft_ms: list[float | None],
    e2el_ms: list[float | None],
    output_len: list[int | None],
    input_len: list[int | None],
    ok: list[bool],
) -> list[tuple[Any, ...]]:
    """Request samples of one point from parallel columns (ms and tokens; None where failed)."""
    n = len(ok)
    if not (len(ttft_ms) == len(e2el_ms) == len(output_len) == len(input_len) == n):
        raise ValueError("request sample columns differ in length")
    return list(zip(ttft_ms, e2el_ms, output_len, input_len, ok, strict=True))
