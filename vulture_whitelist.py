"""Names vulture (`make test`, config in pyproject.toml) cannot see used, each with why.

Not imported by anything: vulture reads it beside app/ so that these count as used. Routes,
pydantic validators and exception handlers are skipped by decorator in pyproject.toml.
"""

from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# Keys of answer fragments: TypedDicts a builder spreads into an answer, read by the JSON
# writer (mypy holds each to the answer's own TypedDict where it is spread).
_.e2e_interactivity_tok_s_user  # app.services.readoff.document.E2eField

# Read by Jinja templates (vulture reads only Python).
_.help  # Column.help: column titles on the sweep and upload pages
_.half_width  # Interval.half_width: templates/_ci.html

# Set on library objects, read by the library.
_.total_tokens  # anyio's thread limiter (app.main)
_.auto_reload  # Jinja's environment (app.main)
_.type_annotation_map  # SQLAlchemy's declarative base (app.store.models)
_.readable  # io.RawIOBase protocol (app.ingest.source._GuardedStream)
_.readinto
_.serve_app  # the uvicorn factory, named as "app.main:serve_app" (app.cli)
_._in_memory  # Starlette's UploadFile reads it (app.http.uploads.HeldUpload: no thread to read)

# Read by the answer models' types (app.schemas.answers.common.sweep_field_types), outside
# vulture's paths.
_.stored_null  # SweepColumn.stored_null

# ORM columns and pydantic fields: stored, validated and serialised by name.
_.engine_version
_.measured_at
_.memory_kind
_.tdp_w
_.created_at_s
_.tokens_per_day  # PlanQuery field
_.concurrent_sessions  # PlanQuery field

# Dataclass fields filled by keyword and serialised whole (dataclasses.asdict, getattr).
_.compared_tok_s  # ClaimWork: the claims audit's JSON
_.compared_as
_.ceiling_tok_s_user
_.ceiling_tok_s
_.ceiling_batch
_.required_accepted_length
_.p50  # LatencyStats: read as getattr(stats, percentile)
_.p90
_.p95
_.p99
_.num_failed  # PointMetrics, StoredPoint: every point column, read by name
_.achieved_concurrency
_.ttft_mean_ms
_.ttft_p50_ms
_.ttft_p90_ms
_.ttft_p95_ms
_.ttft_p99_ms
_.tpot_mean_ms
_.tpot_p50_ms
_.tpot_p90_ms
_.tpot_p95_ms
_.tpot_p99_ms
_.itl_mean_ms
_.itl_p50_ms
_.itl_p90_ms
_.itl_p95_ms
_.itl_p99_ms
_.e2el_mean_ms
_.e2el_p95_ms
_.e2el_p99_ms
_.bracket  # ValueAt: which two frontier points an estimate lies between

# Called by bench/ (the speed targets), which vulture does not read.
_.clear_caches  # app.store.points
_.clear_all  # app.web.page_cache

# Read by the tests only (the plain definitions the app is checked against live in
# tests/oracles.py).
_.size_bytes  # PageCache: what the cache holds, so tests see it let pages go
_.warmed  # app.state: the status of the Explore page serve warmed at start (app.web.warm)
_.share_below  # FrontierVerdict: the share a report states (calibration and tests read it)
_.bytecode_cache  # jinja2.Environment reads it when it loads a template (app.http.templating)
_.same_model  # SweepRead: reaches the audit JSON through dataclasses.asdict (claim_verdict)
