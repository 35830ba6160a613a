"""Small helpers the tool importers share: typed reads that name the file and key on failure."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from typing import Any

from app.ingest.errors import IngestError
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES

# Canonical statistic → the keys tools use for it (first present wins).
STAT_ALIASES: dict[str, tuple[str, ...]] = {
    "mean": ("mean", "avg", "average"),
    "p50": ("p50", "median", "50"),
    "p90": ("p90", "90"),
    "p95": ("p95", "95"),
    "p99": ("p99", "99"),
}


def number(value: Any, file: str, key: str, *, allow_inf: bool = False) -> float | None:
    """A float from a JSON value; None stays None; strings like "inf" or "1,234.5" are accepted.

    Anything else (lists, dicts, words, NaN, or ±inf unless allowed) raises an IngestError that
    names the file and the key.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise IngestError.one(file, f"key {key!r}: expected a number, got {value!r}")
    if isinstance(value, int | float):
        result = float(value)
    elif isinstance(value, str):
        try:
            result = float(value.replace(",", "").strip())
        except ValueError:
            raise IngestError.one(file, f"key {key!r}: expected a number, got {value!r}") from None
    else:
        kind = type(value).__name__
        raise IngestError.one(file, f"key {key!r}: expected a number, got a {kind}")
    if math.isnan(result) or (math.isinf(result) and not allow_inf):
        raise IngestError.one(file, f"key {key!r}: {value!r} is not a finite number")
    return result


def integer(value: Any, file: str, key: str) -> int | None:
    result = number(value, file, key)
    if result is None:
        return None
    if not result.is_integer():
        raise IngestError.one(file, f"key {key!r}: expected a whole number, got {value!r}")
    return int(result)


def refuse_duplicate_columns(file: str, header: list[str], row: int = 1) -> None:
    """CSV readers keep the last of two equal column names (polars renames it): refuse instead,
    naming the column, since which one holds the data cannot be known."""
    seen: dict[str, int] = {}
    for position, name in enumerate(header, start=1):
        key = name.strip()
        if not key:
            continue
        if key in seen:
            raise IngestError.one(
                file,
                f"column {key!r} appears twice in the header (columns {seen[key]} and {position})",
                row=row,
                column=key,
            )
        seen[key] = position


def obj(value: Any) -> Mapping[str, Any]:
    """The value if it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def dig(value: Any, *keys: str) -> Any:
    """The value under nested keys, or None where a level is missing or not a mapping."""
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def require(obj: Any, keys: tuple[str, ...], file: str, where: str = "") -> Mapping[str, Any]:
    """The object as a mapping that has every key; otherwise an error naming the missing key."""
    place = f" in {where}" if where else ""
    if not isinstance(obj, Mapping):
        raise IngestError.one(file, f"expected a JSON object{place}, got {type(obj).__name__}")
    for key in keys:
        if key not in obj:
            raise IngestError.one(file, f"required key {key!r} is missing{place}")
    return obj


def stats_into(
    values: dict[str, Any],
    metric: str,
    source: Mapping[str, Any] | None,
    file: str,
    key: str,
    *,
    scale: float = 1.0,
) -> None:
    """Copy mean/p50/p90/p95/p99 of `source` (a tool's stats object) into `{metric}_{stat}_ms`.

    `scale` converts to ms (1000 for seconds). Statistics the tool did not measure stay absent.
    """
    if source is None:
        return
    if not isinstance(source, Mapping):
        raise IngestError.one(file, f"key {key!r}: expected an object of statistics")
    for stat, aliases in STAT_ALIASES.items():
        for alias in aliases:
            if alias in source and source[alias] is not None:
                value = number(source[alias], file, f"{key}.{alias}")
                if value is not None:
                    values[f"{metric}_{stat}_ms"] = value * scale
                break


# Keys whose values never go into `extra` (tool configs carry API keys and auth headers).
SECRET_KEYS = frozenset(
    {"api_key", "token", "hf_token", "access_key", "secret_key", "header", "headers"}
)
REDACTED = "(redacted)"
_SECRET_ARGS = re.compile(r"(--api-key|--header|-H)(\s+|=)(\"[^\"]*\"|'[^']*'|\S+)")


def json_safe(value: Any) -> Any:
    """A copy fit for the JSON `extra` column: ±inf and NaN as strings (Postgres JSON refuses
    them), dates as ISO strings, secrets redacted, anything else exotic as its text."""
    if isinstance(value, Mapping):
        return {
            str(k): REDACTED if str(k).lower() in SECRET_KEYS and v else json_safe(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, str):
        return _SECRET_ARGS.sub(rf'\1\2"{REDACTED}"', value)
    if value is None or isinstance(value, int | float | bool):
        return value
    return str(value)


def first_record(file: SourceFile, marker: bytes) -> Mapping[str, Any] | None:
    """The first object of a file that is a JSON list of objects and names `marker` near its
    start (a sniffer's cheap test first); None otherwise. Never raises."""
    head = file.head(SNIFF_BYTES)
    if not head.startswith(b"[") or marker not in head:
        return None
    try:
        doc = file.json()
    except IngestError:  # not UTF-8 text, or past a JSON bound
        return None
    if not isinstance(doc, list) or not doc or not isinstance(doc[0], Mapping):
        return None
    return doc[0]
