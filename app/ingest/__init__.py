"""Upload pipeline: bytes of one or more files → validated sweeps, chosen by content, not name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from app.ingest import canonical
from app.ingest.errors import IngestError, RowError
from app.ingest.parsed import ParsedPoint, ParsedSweep

__all__ = ["IngestError", "ParsedSweep", "RowError", "UploadFile", "parse_upload"]


@dataclass(frozen=True)
class UploadFile:
    name: str
    data: bytes


@dataclass
class _Recognised:
    file: str
    fmt: str
    sweeps: list[ParsedSweep]
    requests: pl.DataFrame | None = None


def decode_text(file: str, data: bytes) -> str:
    """UTF-8 (a BOM is allowed); anything else is refused rather than guessed."""
    if not data.strip():
        raise IngestError.one(file, "the file is empty")
    if b"\x00" in data[:65536]:
        raise IngestError.one(file, "binary content: not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise IngestError.one(
            file,
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} cannot be decoded",
            row=line,
        ) from exc


def parse_upload(
    files: list[UploadFile], defaults: dict[str, Any], require_meta: bool = True
) -> list[ParsedSweep]:
    """Parse every file; per-request files attach to the points of sweeps in the same upload."""
    if not files:
        raise IngestError.one("(upload)", "no file was uploaded")
    recognised: list[_Recognised] = []
    errors: list[RowError] = []
    for upload in files:
        try:
            recognised.append(_recognise(upload, defaults, require_meta))
        except IngestError as exc:
            errors.extend(exc.errors)
    if errors:
        raise IngestError(errors)
    sweeps = [s for r in recognised for s in r.sweeps]
    for r in recognised:
        if r.requests is not None:
            _attach_requests(r.file, r.requests, sweeps, errors)
    if errors:
        raise IngestError(errors)
    if not sweeps:
        raise IngestError.one(
            ", ".join(f.name for f in files),
            "per-request samples need their sweep's points file in the same upload",
        )
    return sweeps


def _recognise(upload: UploadFile, defaults: dict[str, Any], require_meta: bool) -> _Recognised:
    text = decode_text(upload.name, upload.data)
    header = canonical.read_frame(upload.name, text).columns
    if canonical.is_request_header(header):
        frame = canonical.parse_requests_csv(upload.name, text)
        return _Recognised(upload.name, canonical.FORMAT_REQUESTS, [], frame)
    sweeps = canonical.parse_sweeps_csv(upload.name, text, defaults, require_meta)
    return _Recognised(upload.name, canonical.FORMAT_SWEEPS, sweeps)


def _attach_requests(
    file: str, frame: pl.DataFrame, sweeps: list[ParsedSweep], errors: list[RowError]
) -> None:
    by_name = {s.name: s for s in sweeps}
    groups = frame.group_by(["sweep", "concurrency", "request_rate"], maintain_order=True)
    for (name, concurrency, rate), group in groups:
        first_row = int(group["__row"][0])
        sweep = by_name.get(str(name))
        if sweep is None:
            errors.append(
                RowError(file, f"no sweep named {name!r} in this upload", first_row, "sweep")
            )
            continue
        point = _find_point(sweep.points, concurrency, rate)
        if point is None:
            load = f"concurrency {concurrency}" if concurrency is not None else f"rate {rate}"
            errors.append(
                RowError(file, f"sweep {name!r} has no point at {load}", first_row, "concurrency")
            )
            continue
        if point.samples is not None:
            errors.append(RowError(file, f"sweep {name!r} has two points at this load", first_row))
            continue
        point.samples = list(
            group.select("ttft_ms", "e2el_ms", "output_len", "input_len", "ok").iter_rows()
        )


def _find_point(points: list[ParsedPoint], concurrency: Any, rate: Any) -> ParsedPoint | None:
    matches = [
        p
        for p in points
        if (concurrency is None or p.values.get("concurrency") == concurrency)
        and (rate is None or p.values.get("request_rate") == rate)
    ]
    return matches[0] if len(matches) == 1 else None
