"""AIPerf's multi-run files (`aiperf profile --num-profile-runs N`, issue 51): what they state
beside the runs they summarise.

`aggregate/profile_export_aiperf_aggregate.json` (`metadata.aggregation_type` "confidence"):
statistics of RUN-LEVEL values, per metric and statistic a block {mean, std, min, max, cv, se,
ci_low, ci_high, t_critical, unit} under keys such as `time_to_first_token_p99`, `ttft_p99_ms`,
`request_throughput_avg` (its `mean` is the mean over runs of each run's figure).
`aggregate/profile_export_aiperf_collated.json` ("detailed"): every run's requests POOLED into
one population, per metric `combined` {mean, std, p50, p90, p95, p99, count} (checked against
ai-dynamo/aiperf `docs` "independent schema versions" and `AggregateDetailedJsonExporter`). The
collated file writes no unit (AIPerf's record metrics are in ms): its latencies are read as ms.

Neither is a point of its own: both describe the runs under the same artifact directory
(`<dir>/profile_runs/run_NNNN/profile_export_aiperf.json`, uploaded with them). Each run's
point keeps what they state, with the same column of every run of the upload, in extra
`aiperf_aggregates` (app.services.sweeps.stated_figures shows them beside Paretoscope's mean
of the runs' own figures, with the per-run or pooled rule).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from app.domain.numbers import finite_number
from app.ingest.errors import IngestError
from app.ingest.grouping import sweep_files
from app.ingest.parsed import ParsedSweep
from app.ingest.source import SourceFile
from app.ingest.text import SNIFF_BYTES

KINDS = {"confidence": "aggregate", "detailed": "collated"}
EXTRA_KEY = "aiperf_aggregates"
BASES = {
    "time_to_first_token": "ttft",
    "ttft": "ttft",
    "inter_token_latency": "tpot",
    "request_latency": "e2el",
    "request_throughput": "requests_per_s",
    "output_token_throughput": "output_tok_s",
}
LATENCY_STATS = {"avg": "mean", "mean": "mean", "p50": "p50", "median": "p50", "p90": "p90"}
LATENCY_STATS |= {"p95": "p95", "p99": "p99"}
TO_MS = {"ms": 1.0, "s": 1000.0, "sec": 1000.0, "us": 1e-3, "ns": 1e-6}
_KEY = re.compile(r"^(?P<base>[a-z_]+?)(?:_(?P<stat>avg|mean|median|p\d+))?(?:_ms)?$")


def aggregate_kind(file: SourceFile) -> str | None:
    """'aggregate' or 'collated' for AIPerf's multi-run files, else None. Never raises."""
    head = file.head(SNIFF_BYTES)
    if head[:1] != b"{" or b'"aggregation_type"' not in head:
        return None
    try:
        doc = file.json()
    except IngestError:
        return None
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    kind = meta.get("aggregation_type") if isinstance(meta, dict) else None
    return KINDS.get(kind) if isinstance(kind, str) else None


def column_of(key: str) -> tuple[str, bool] | None:
    """(canonical column, is a latency) an aggregate key states: `ttft_p99_ms` → ttft_p99_ms."""
    match = _KEY.match(key)
    base = BASES.get(match["base"]) if match else None
    if match is None or base is None:
        return None
    stat = match["stat"] or "avg"
    if base in ("requests_per_s", "output_tok_s"):
        return (base, False) if stat in ("avg", "mean") else None
    column_stat = LATENCY_STATS.get(stat)
    return (f"{base}_{column_stat}_ms", True) if column_stat else None


def stated(file: SourceFile, kind: str) -> dict[str, Any]:
    """{kind, file, runs, figures: {column: value}} of one aggregate or collated file."""
    doc = file.json()
    metrics = doc.get("metrics") if isinstance(doc, dict) else None
    if not isinstance(metrics, dict):
        raise IngestError.one(file.name, "key 'metrics': expected an object of statistics")
    figures: dict[str, float] = {}
    for key, block in metrics.items():
        if kind == "collated":
            figures |= _collated(key, block)
            continue
        found = column_of(key) if isinstance(block, dict) else None
        value = finite_number(block.get("mean"), text=False) if found else None
        if found is None or value is None:
            continue
        figures[found[0]] = value * (_scale(block.get("unit")) if found[1] else 1.0)
    meta = doc.get("metadata")
    runs = meta.get("num_successful_runs") if isinstance(meta, dict) else None
    return {
        "kind": kind,
        "file": file.name,
        "runs": runs if isinstance(runs, int) and not isinstance(runs, bool) else None,
        "figures": figures,
    }


def _collated(key: str, block: Any) -> dict[str, float]:
    combined = block.get("combined") if isinstance(block, dict) else None
    base = BASES.get(key)
    if not isinstance(combined, dict) or base is None or base in ("requests_per_s", "output_tok_s"):
        return {}
    scale = _scale(combined.get("unit") or block.get("unit"))
    out = {}
    for stat, column_stat in LATENCY_STATS.items():
        value = finite_number(combined.get(stat), text=False)
        if value is not None:
            out[f"{base}_{column_stat}_ms"] = value * scale
    return out


def _scale(unit: Any) -> float:
    return TO_MS.get(str(unit).strip().lower(), 1.0) if unit else 1.0


def attach_aggregates(files: Sequence[tuple[SourceFile, str]], sweeps: list[ParsedSweep]) -> None:
    """Each aggregate or collated file's figures onto the points of the runs under its artifact
    directory, with every such run's own value of each column; refused naming the file when
    the upload holds none of its runs."""
    for file, kind in files:
        root = _root(file.folder)
        runs = [s for s in sweeps if any(_under(f, root) for f in sweep_files(s))]
        points = [p for s in runs for p in s.points]
        if not points:
            raise IngestError.one(
                file.name,
                f"AIPerf's {kind} file states statistics of its runs: upload it with the runs' "
                "profile_export_aiperf.json (profile_runs/run_*/)",
            )
        found = stated(file, kind)
        found["run_values"] = {
            column: [v for p in points if isinstance(v := p.values.get(column), int | float)]
            for column in found["figures"]
        }
        for point in points:
            point.extra.setdefault(EXTRA_KEY, []).append(found)


def _root(folder: str) -> str:
    parts = [p for p in folder.split("/") if p]
    if parts and parts[-1] in ("aggregate", "sweep_aggregate"):
        parts = parts[:-1]
    return "/".join(parts)


def _under(name: str, root: str) -> bool:
    return not root or name.startswith(root + "/")


def split_aggregates(
    files: Sequence[SourceFile],
) -> tuple[list[tuple[SourceFile, str]], list[SourceFile]]:
    """(aggregate and collated files with their kind, the other files)."""
    kinds = [(f, aggregate_kind(f)) for f in files]
    return [(f, k) for f, k in kinds if k is not None], [f for f, k in kinds if k is None]
