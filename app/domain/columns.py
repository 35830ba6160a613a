"""Canonical column names, units and labels, defined once for ingest, storage, API and charts."""

from __future__ import annotations

from app.domain.column import Column
from app.domain.sweep_fields import SWEEP_COLUMN_NAMES as SWEEP_COLUMN_NAMES
from app.domain.sweep_fields import SWEEP_COLUMNS as SWEEP_COLUMNS

STATS: tuple[str, ...] = ("mean", "p50", "p90", "p95", "p99")
LATENCY_METRICS: tuple[str, ...] = ("ttft", "tpot", "itl", "e2el")
PERCENTILES: tuple[str, ...] = ("p50", "p90", "p95", "p99")


def _latency_columns() -> tuple[Column, ...]:
    names = {
        "ttft": "time to first token",
        "tpot": "time per output token (per request, excl. first token)",
        "itl": "inter-token latency (pooled over tokens)",
        "e2el": "end-to-end request latency",
    }
    return tuple(
        Column(f"{m}_{s}_ms", "float", f"{m.upper()} {s}", "ms", f"{s} of {names[m]}.")
        for m in LATENCY_METRICS
        for s in STATS
    )


POINT_COLUMNS: tuple[Column, ...] = (
    Column("concurrency", "float", "Concurrency", "requests", "Concurrency cap of the load level."),
    Column("request_rate", "float", "Request rate", "req/s", "Offered rate; inf = unlimited."),
    Column("achieved_concurrency", "float", "Achieved concurrency", "requests"),
    Column("num_requests", "int", "Requests", "requests", "Requests completed successfully."),
    Column("num_failed", "int", "Failed", "requests", "Requests that failed."),
    Column("duration_s", "float", "Duration", "s", "Benchmark wall time."),
    Column("input_len", "float", "Mean input length", "tokens"),
    Column("output_len", "float", "Mean output length", "tokens"),
    *_latency_columns(),
    Column("output_tok_s", "float", "Output throughput", "tok/s", "Whole deployment."),
    Column(
        "total_tok_s", "float", "Total throughput", "tok/s", "Input + output, whole deployment."
    ),
    Column("requests_per_s", "float", "Request throughput", "req/s", "Whole deployment."),
    Column(
        "goodput_requests_per_s",
        "float",
        "Reported goodput",
        "req/s",
        "Goodput as the tool reported it, under goodput_slo.",
    ),
    Column("goodput_slo", "str", "Goodput SLO", help="SLO the tool used, e.g. 'ttft:200 tpot:50'."),
)

REQUEST_COLUMNS: tuple[Column, ...] = (
    Column("sweep", "str", "Sweep name"),
    Column("concurrency", "float", "Concurrency", "requests"),
    Column("request_rate", "float", "Request rate", "req/s"),
    Column("ttft_ms", "float", "TTFT", "ms"),
    Column("e2el_ms", "float", "E2EL", "ms"),
    Column("output_len", "int", "Output tokens", "tokens"),
    Column("input_len", "int", "Input tokens", "tokens"),
    Column("ok", "bool", "Succeeded"),
    Column(
        "cached_input_tokens",
        "int",
        "Cached input tokens",
        "tokens",
        "Input tokens served from the prefix cache (part of input_len); optional.",
    ),
    # Multi-turn runs (issue 49): the session (conversation) a request belongs to and its turn.
    Column("session_id", "str", "Session", help="Session (conversation) the request belongs to."),
    Column("turn_index", "int", "Turn", help="Turn of the session, 0 for the first."),
    Column(
        "phase",
        "str",
        "Phase",
        help="warmup or profiling; a warm-up request is counted, never read off. Optional.",
    ),
)

POINT_COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in POINT_COLUMNS)
LATENCY_COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in _latency_columns())
TPOT_COLUMN_NAMES: tuple[str, ...] = tuple(f"tpot_{s}_ms" for s in STATS)
THROUGHPUT_COLUMN_NAMES: tuple[str, ...] = (
    "output_tok_s",
    "total_tok_s",
    "requests_per_s",
    "goodput_requests_per_s",
)
COLUMNS_BY_NAME: dict[str, Column] = {c.name: c for c in (*SWEEP_COLUMNS, *POINT_COLUMNS)}
SOURCE_KINDS: tuple[str, ...] = ("measured", "public", "vendor", "demo")
PROVENANCES: tuple[str, ...] = ("independent", "vendor")
# How each kind is shown: demo sweeps are made up for the first start and never "measured".
SOURCE_KIND_LABELS: dict[str, str] = {
    "measured": "measured",
    "public": "public",
    "vendor": "vendor",
    "demo": "demo (synthetic)",
}
