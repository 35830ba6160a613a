"""Canonical column names, units and labels, defined once for ingest, storage, API and charts."""

from __future__ import annotations

from dataclasses import dataclass

STATS: tuple[str, ...] = ("mean", "p50", "p90", "p95", "p99")
LATENCY_METRICS: tuple[str, ...] = ("ttft", "tpot", "itl", "e2el")
PERCENTILES: tuple[str, ...] = ("p50", "p90", "p95", "p99")


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # "str", "int", "float", "date"
    label: str
    unit: str = ""
    help: str = ""


# Sweep-level columns: may be given per row (one file may hold several sweeps) or as form fields.
SWEEP_COLUMNS: tuple[Column, ...] = (
    Column("sweep", "str", "Sweep name", help="Name of the sweep this row belongs to."),
    Column("hardware", "str", "Hardware", help="GPU key from the hardware catalog, e.g. H100."),
    Column(
        "num_gpus",
        "int",
        "GPUs",
        help="All GPUs of the deployment (prefill + decode for disaggregated serving).",
    ),
    Column("model", "str", "Model"),
    Column("engine", "str", "Engine", help="Serving engine, e.g. vllm, sglang, trt-llm."),
    Column("engine_version", "str", "Engine version"),
    Column("precision", "str", "Precision", help="Weight precision, e.g. bf16, fp8, fp4."),
    Column("spec_decode", "str", "Speculative decoding", help="e.g. none, mtp, eagle."),
    Column("draft_model", "str", "Draft model", help="Speculative decoding's draft model."),
    Column("num_spec_tokens", "int", "Speculative tokens", "tokens", "Tokens proposed per step."),
    Column("isl", "int", "ISL", "tokens", "Nominal input sequence length."),
    Column("osl", "int", "OSL", "tokens", "Nominal output sequence length."),
    Column("workload", "str", "Workload", help="Free-form workload tag, e.g. random, sharegpt."),
    Column(
        "scenario",
        "str",
        "Scenario",
        help="fixed-seq-len, chat-multiturn, agentic-coding, ... (what kind of traffic).",
    ),
    Column("trace_dataset", "str", "Trace dataset", help="The trace a multi-turn run replays."),
    Column("num_prefill_gpus", "int", "Prefill GPUs", help="Disaggregated serving only."),
    Column("num_decode_gpus", "int", "Decode GPUs", help="Disaggregated serving only."),
    Column(
        "config",
        "str",
        "Config",
        help="What sets this sweep apart from its siblings, as key=value pairs: a swept server "
        "setting (max_num_seqs=8) or the parallelism layout (tp=8 ep=8 dp_attention=true).",
    ),
    Column(
        "source_kind", "str", "Source kind", help="measured, public, vendor or demo (synthetic)."
    ),
    Column("source_tool", "str", "Source tool", help="Benchmark tool that wrote the results."),
    Column("harness", "str", "Harness", help="Benchmark harness that produced the numbers."),
    Column("harness_version", "str", "Harness version", help="e.g. an MLPerf round, v4.1."),
    Column(
        "provenance",
        "str",
        "Provenance",
        help="independent (MLPerf, InferenceX, your own run) or vendor (the vendor's own setup).",
    ),
    Column("notes", "str", "Notes"),
    Column("measured_at", "date", "Measured at", help="Date the benchmark ran (YYYY-MM-DD)."),
    Column(
        "run_id",
        "str",
        "Run id",
        help="The CI run that measured it (InferenceX: the GitHub Actions run id).",
    ),
    Column("run_url", "str", "Run URL", help="Where that run's logs and artifacts are."),
    Column("image", "str", "Image", help="Container image the server ran, as the file names it."),
)


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

SWEEP_COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in SWEEP_COLUMNS)
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
