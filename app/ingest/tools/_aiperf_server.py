"""AIPerf's `server_metrics_export.json`: the serving engine's Prometheus counters over the run,
read for the server's own prefix-cache hit rate (issue 50: cached input *measured* by the
server).

Layout (ai-dynamo/aiperf `docs/tutorials/server-metrics.md` @ dc415a2f and its JSON export
schema; read the same way by SemiAnalysisAI/InferenceX `utils/agentic/aggregation/
server_metrics.py` @ 3ce0186b): `{"schema_version", "summary", "metrics": {<name>: {"type",
"series": [{"endpoint_url", "labels", "stats": {"total", "rate", ...}}]}}, "input_config"}`. A
counter's `stats.total` is its increase over the collection, so over every endpoint and label
set: vLLM Σ `vllm:prefix_cache_hits` ÷ Σ `vllm:prefix_cache_queries` (both in tokens), SGLang
Σ `sglang:cached_tokens` ÷ Σ `sglang:prompt_tokens` (names with or without `_total`). More hits
than queries is refused, naming the file and the metric. The file states no load, so it joins
the run in its folder (or the only run of the upload), as the per-request records do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.domain.covariates import PREFIX_CACHE_HIT_RATE
from app.ingest.common import number
from app.ingest.errors import IngestError
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES
from app.ingest.tools._genai_common import Built

# (cached tokens, tokens queried) counter names per engine.
COUNTERS: tuple[tuple[str, str], ...] = (
    ("vllm:prefix_cache_hits", "vllm:prefix_cache_queries"),
    ("sglang:cached_tokens", "sglang:prompt_tokens"),
)


def is_server_metrics(file: SourceFile) -> bool:
    """True for an AIPerf server_metrics_export.json. Never raises."""
    head = file.head(SNIFF_BYTES)
    if not head.startswith(b"{") or b'"metrics"' not in head:
        return False
    try:
        doc = file.json()
    except IngestError:
        return False
    metrics = doc.get("metrics") if isinstance(doc, dict) else None
    return (
        isinstance(metrics, dict)
        and ("summary" in doc or "schema_version" in doc)
        and all(isinstance(m, dict) and "series" in m for m in list(metrics.values())[:20])
    )


def _total(file: SourceFile, metrics: Mapping[str, Any], name: str) -> tuple[float, str] | None:
    """Σ stats.total over a counter's series, and the name it was found under; None if absent."""
    for found in (name, f"{name}_total"):
        entry = metrics.get(found)
        if not isinstance(entry, Mapping):
            continue
        series = entry.get("series")
        if not isinstance(series, list):
            raise IngestError.one(file.name, f"key 'metrics.{found}.series': expected a list")
        total = 0.0
        for i, one in enumerate(series):
            stats = one.get("stats") if isinstance(one, Mapping) else None
            where = f"metrics.{found}.series[{i}].stats.total"
            value = (
                number(stats.get("total"), file.name, where) if isinstance(stats, Mapping) else None
            )
            if value is None or value < 0:
                raise IngestError.one(file.name, f"key {where!r}: expected a count ≥ 0")
            total += value
        return total, found
    return None


def server_cache(file: SourceFile) -> dict[str, Any]:
    """The run's prefix-cache hit rate measured by the server, and the counts it comes from;
    empty when the engine exported neither counter pair (or queried nothing)."""
    doc = file.json()
    metrics = doc.get("metrics") if isinstance(doc, dict) else None
    if not isinstance(metrics, Mapping):
        return {}
    for hits_name, queries_name in COUNTERS:
        hits, queries = _total(file, metrics, hits_name), _total(file, metrics, queries_name)
        if hits is None or queries is None or not queries[0] > 0:
            continue
        if hits[0] > queries[0]:
            raise IngestError.one(
                file.name,
                f"{hits[0]:g} cached tokens against {queries[0]:g} tokens queried: cached input "
                "must lie between 0 and the input tokens (input = uncached + cached)",
                column=f"metrics.{hits[1]}",
            )
        counts = {"cached_tokens": hits[0], "queried_tokens": queries[0]}
        names = {"cached": hits[1], "queried": queries[1]}
        return {PREFIX_CACHE_HIT_RATE: hits[0] / queries[0], "server_prefix_cache": counts | names}
    return {}


def attach_server(files: list[SourceFile], built: list[Built]) -> None:
    """Give each run the server's cache counts of the export in its folder (or the only run)."""
    taken: dict[int, str] = {}
    for file in files:
        same_folder = [b for b in built if b.run.file.folder == file.folder]
        target = same_folder if len(same_folder) == 1 else built if len(built) == 1 else []
        if len(target) != 1:
            raise IngestError.one(
                file.name,
                "server metrics need their run's profile_export_aiperf.json (or .csv) in the "
                f"same folder of the upload; found {len(same_folder) or len(built)} candidates",
            )
        point = target[0].point
        if id(point) in taken:
            raise IngestError.one(file.name, f"{taken[id(point)]} already gives this run's metrics")
        taken[id(point)] = file.name
        point.extra.update(server_cache(file))
