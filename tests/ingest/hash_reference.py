"""The content hash as its definition reads (app/ingest/content_hash.py), written plainly,
value by value, so the columnar code is checked against the words rather than against itself."""

from __future__ import annotations

import hashlib
import json
import math
import struct
from collections.abc import Sequence
from typing import Any

from app.domain.columns import POINT_COLUMNS
from app.ingest.parsed import HASHED_META, HASHED_WHEN_GIVEN, ParsedPoint, ParsedSweep

NUMERIC = sorted(c.name for c in POINT_COLUMNS if c.kind in ("int", "float"))
TEXT = sorted(c.name for c in POINT_COLUMNS if c.kind not in ("int", "float"))


def norm(value: Any) -> Any:
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        return int(value) if value.is_integer() else repr(value)
    return value


def reference_hash(
    sweep: ParsedSweep | dict[str, Any],
    points: Sequence[ParsedPoint | dict[str, Any]],
    samples: Sequence[tuple[int, str]] = (),
) -> str:
    meta = sweep if isinstance(sweep, dict) else sweep.meta
    doc = {k: norm(meta.get(k)) for k in HASHED_META}
    # Columns added after format 2 are hashed only when given (every older hash stands).
    doc |= {k: norm(meta[k]) for k in HASHED_WHEN_GIVEN if meta.get(k) is not None}
    out = bytearray(b"paretoscope sweep content 2\n")
    out += json.dumps(doc, sort_keys=True, default=str, separators=(",", ":")).encode() + b"\n"
    out += struct.pack("<q", len(points))
    measured = bytearray()
    others: list[list[Any]] = []
    for i, point in enumerate(points):
        values = point if isinstance(point, dict) else point.values
        for name in NUMERIC:
            value, number = values.get(name), None
            if value is not None:
                try:
                    number = float(value)
                except (TypeError, ValueError, OverflowError):
                    others.append([i, name, value if isinstance(value, str) else str(value)])
            if number is None:
                out += struct.pack("<d", 0.0)
                measured.append(0)
            else:
                number = math.nan if math.isnan(number) else number + 0.0  # one NaN; no -0.0
                out += struct.pack("<d", number)
                measured.append(1)
        others += [[i, n, values[n]] for n in TEXT if values.get(n) is not None]
    out += measured
    out += json.dumps(others, separators=(",", ":")).encode()
    out += json.dumps([list(s) for s in samples], separators=(",", ":")).encode()
    return hashlib.sha256(out).hexdigest()
