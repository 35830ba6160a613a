"""SQLAlchemy 2 tables (product.md §3). Missing measurements are NULL, never 0."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from app.store import point_blocks
from app.store.point_blocks import StoredPoint

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {dict[str, Any]: JSON}


class Sweep(Base):
    """One system configuration measured at several load levels."""

    __tablename__ = "sweep"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(300), index=True)
    hardware: Mapped[str] = mapped_column(String(100), index=True)
    num_gpus: Mapped[int] = mapped_column(Integer)
    num_prefill_gpus: Mapped[int | None] = mapped_column(Integer)
    num_decode_gpus: Mapped[int | None] = mapped_column(Integer)
    model: Mapped[str | None] = mapped_column(String(200), index=True)
    engine: Mapped[str | None] = mapped_column(String(100))
    engine_version: Mapped[str | None] = mapped_column(String(100))
    precision: Mapped[str | None] = mapped_column(String(50))
    spec_decode: Mapped[str | None] = mapped_column(String(100))
    # Speculative decoding as the file reports it (issue 37): draft model, tokens proposed per step.
    draft_model: Mapped[str | None] = mapped_column(String(200))
    num_spec_tokens: Mapped[int | None] = mapped_column(Integer)
    isl: Mapped[int | None] = mapped_column(Integer)
    osl: Mapped[int | None] = mapped_column(Integer)
    workload: Mapped[str | None] = mapped_column(String(200))
    # What kind of traffic (fixed-seq-len, chat-multiturn, agentic-coding) and the trace a
    # multi-turn run replays (issue 49): a comparison sets like against like by them.
    scenario: Mapped[str | None] = mapped_column(String(100))
    trace_dataset: Mapped[str | None] = mapped_column(String(200))
    # What sets the sweep apart from its siblings: swept settings, parallelism (issue 47, 51).
    config: Mapped[str | None] = mapped_column(String(500))
    source_kind: Mapped[str] = mapped_column(String(20), default="measured")
    source_tool: Mapped[str | None] = mapped_column(String(100))
    source_file: Mapped[str | None] = mapped_column(String(500))
    # Harness provenance (issue 51): which harness made the numbers, independent of the vendor?
    harness: Mapped[str | None] = mapped_column(String(100))
    harness_version: Mapped[str | None] = mapped_column(String(100))
    provenance: Mapped[str | None] = mapped_column(String(20))
    notes: Mapped[str | None] = mapped_column(Text)
    measured_at: Mapped[dt.date | None] = mapped_column(Date)
    # Which run measured it (issue 51: the public InferenceX record is one run per date).
    run_id: Mapped[str | None] = mapped_column(String(40))
    run_url: Mapped[str | None] = mapped_column(String(500))
    image: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )
    content_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # Format of the sample digests in content_hash (app.ingest.sample_digest): 1 CSV, 2 values.
    sample_digest: Mapped[int] = mapped_column(Integer, server_default="2")

    # The sweep list's order (newest first): a page reads its rows, not a sort of every sweep.
    __table_args__ = (Index("ix_sweep_created_at_id", "created_at", "id"),)

    point_block: Mapped[PointBlock | None] = relationship(
        cascade="all, delete-orphan", passive_deletes=True
    )

    @property
    def points(self) -> list[StoredPoint]:
        """The sweep's points in position order, decoded once per loaded sweep."""
        cached: list[StoredPoint] | None = self.__dict__.get("_decoded_points")
        if cached is None:
            block = self.point_block
            cached = point_blocks.stored_points(self.id, block.data if block else None)
            self.__dict__["_decoded_points"] = cached
        return cached


class PointBlock(Base):
    """A sweep's points in one block (app.store.point_blocks): a row per sweep, not per point.
    `points` is how many there are, so counting needs no decoding."""

    __tablename__ = "point_block"

    sweep_id: Mapped[int] = mapped_column(
        ForeignKey("sweep.id", ondelete="CASCADE"), primary_key=True
    )
    points: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class SampleBlock(Base):
    """Request samples of a sweep, columnar: an LZ4 Parquet blob of up to BLOCK_ROWS requests
    (zstd in blocks written before).

    Columns: position (the point's position in its sweep), ttft_ms, e2el_ms, output_len,
    input_len, ok. A sweep has several blocks when it has many requests (seq orders them);
    `counts` maps each position in the block to its number of requests, so counting needs no
    decoding. Blobs live in the database, so every replica sees them and deletes cascade.
    """

    __tablename__ = "sample_block"
    __table_args__ = (Index("ix_sample_block_sweep_seq", "sweep_id", "seq", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    sweep_id: Mapped[int] = mapped_column(ForeignKey("sweep.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    rows: Mapped[int] = mapped_column(Integer)
    counts: Mapped[dict[str, Any]] = mapped_column(JSON)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Hardware(Base):
    """GPU catalog row: memory, bandwidth, dense TFLOPS, power."""

    __tablename__ = "hardware"

    key: Mapped[str] = mapped_column(String(50), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    vendor: Mapped[str | None] = mapped_column(String(50))
    memory_gb: Mapped[float | None] = mapped_column(Float)
    memory_kind: Mapped[str | None] = mapped_column(String(50))
    mem_bw_tb_s: Mapped[float | None] = mapped_column(Float)
    bf16_tflops: Mapped[float | None] = mapped_column(Float)
    fp8_tflops: Mapped[float | None] = mapped_column(Float)
    fp4_tflops: Mapped[float | None] = mapped_column(Float)
    tdp_w: Mapped[float | None] = mapped_column(Float)
    allin_kw: Mapped[float | None] = mapped_column(Float)
    gpus_per_node: Mapped[int | None] = mapped_column(Integer)  # per node (issue 37)
    source: Mapped[str | None] = mapped_column(Text)
    # Other names for this GPU, e.g. what nvidia-smi or a tool writes ("NVIDIA H100 80GB HBM3").
    aliases: Mapped[list[str] | None] = mapped_column(JSON, default=list)


class ModelSpec(Base):
    """Model architecture for roofline math."""

    __tablename__ = "model_spec"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    total_params_b: Mapped[float] = mapped_column(Float)
    active_params_b: Mapped[float] = mapped_column(Float)
    # Each phase's own active parameters where they differ (issue 50); None = active_params_b.
    prefill_active_params_b: Mapped[float | None] = mapped_column(Float)
    decode_active_params_b: Mapped[float | None] = mapped_column(Float)
    layers: Mapped[int] = mapped_column(Integer)
    d_model: Mapped[int | None] = mapped_column(Integer)
    kv_heads: Mapped[int | None] = mapped_column(Integer)
    head_dim: Mapped[int | None] = mapped_column(Integer)
    kv_lora_rank: Mapped[int | None] = mapped_column(Integer)
    rope_dim: Mapped[int | None] = mapped_column(Integer)
    experts: Mapped[int | None] = mapped_column(Integer)
    top_k: Mapped[int | None] = mapped_column(Integer)
    source: Mapped[str | None] = mapped_column(Text)


class PricingProfile(Base):
    """Rental ($/GPU-hour) or ownership (capex, life, cost of capital, power, colo) pricing."""

    __tablename__ = "pricing_profile"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str | None] = mapped_column(String(100), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))
    hardware: Mapped[str | None] = mapped_column(String(50), index=True)
    usd_per_gpu_hour: Mapped[float | None] = mapped_column(Float)
    capex_usd: Mapped[float | None] = mapped_column(Float)
    life_years: Mapped[float | None] = mapped_column(Float)
    cost_of_capital: Mapped[float | None] = mapped_column(Float)
    power_kw: Mapped[float | None] = mapped_column(Float)
    pue: Mapped[float | None] = mapped_column(Float)
    usd_per_kwh: Mapped[float | None] = mapped_column(Float)
    colo_usd_per_kw_month: Mapped[float | None] = mapped_column(Float)
    other_opex_pct_per_year: Mapped[float | None] = mapped_column(Float)
    utilization: Mapped[float] = mapped_column(Float, default=1.0)
    # API prices by token class, $/Mtok (issue 50); None where the profile gives none.
    usd_per_mtok_input: Mapped[float | None] = mapped_column(Float)
    usd_per_mtok_cached_input: Mapped[float | None] = mapped_column(Float)
    usd_per_mtok_output: Mapped[float | None] = mapped_column(Float)
    tier: Mapped[str | None] = mapped_column(String(50))
    as_of: Mapped[dt.date | None] = mapped_column(Date)
    source: Mapped[str | None] = mapped_column(Text)


class SloPreset(Base):
    """Named SLO: limits in ms, each at its percentile, a per-request attainment target, source."""

    __tablename__ = "slo_preset"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    ttft_ms: Mapped[float | None] = mapped_column(Float)
    tpot_ms: Mapped[float | None] = mapped_column(Float)
    e2el_ms: Mapped[float | None] = mapped_column(Float)
    percentile: Mapped[str] = mapped_column(String(10), default="p90")
    # Each limit's own percentile (None: `percentile`), e.g. p99 TTFT with p50 TPOT.
    ttft_percentile: Mapped[str | None] = mapped_column(String(10))
    tpot_percentile: Mapped[str | None] = mapped_column(String(10))
    e2el_percentile: Mapped[str | None] = mapped_column(String(10))
    attainment: Mapped[float] = mapped_column(Float, default=0.9)
    source: Mapped[str | None] = mapped_column(Text)
    notes: Mapped[str | None] = mapped_column(Text)


class VendorClaim(Base):
    """A vendor's throughput claim, with what it measures and its source."""

    __tablename__ = "vendor_claim"

    id: Mapped[int] = mapped_column(primary_key=True)
    vendor: Mapped[str] = mapped_column(String(200))
    hardware: Mapped[str] = mapped_column(String(50))
    gpu_scope: Mapped[str] = mapped_column(String(20))  # gpu | node | rack
    scope_gpus: Mapped[int] = mapped_column(Integer, default=1)
    model: Mapped[str | None] = mapped_column(String(200))
    precision: Mapped[str | None] = mapped_column(String(50))
    value_tok_s: Mapped[float] = mapped_column(Float)
    measures: Mapped[str] = mapped_column(String(20))  # per_user | per_gpu | system
    token_basis: Mapped[str] = mapped_column(String(20))  # output | total
    interactivity_tok_s_user: Mapped[float | None] = mapped_column(Float)
    batch: Mapped[int | None] = mapped_column(Integer)
    isl: Mapped[int | None] = mapped_column(Integer)
    osl: Mapped[int | None] = mapped_column(Integer)
    spec_decode: Mapped[str | None] = mapped_column(String(100))
    source_url: Mapped[str | None] = mapped_column(Text)
    claimed_at: Mapped[dt.date | None] = mapped_column(Date)
    notes: Mapped[str | None] = mapped_column(Text)
    # Harness provenance (issue 51): who measured the number, and whether that harness ran
    # independently of the vendor (MLPerf, InferenceX, the user's own run) or is the vendor's.
    harness: Mapped[str | None] = mapped_column(String(100))
    provenance: Mapped[str | None] = mapped_column(String(20))
    # A worked example (not a vendor's claim): hidden on Explore unless asked for.
    example: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )


class SweepTag(Base):
    """A label on a sweep (`baseline:main`, `nightly`): the newest sweep with it stands for it."""

    __tablename__ = "sweep_tag"
    __table_args__ = (
        UniqueConstraint("sweep_id", "tag", name="uq_sweep_tag_sweep_id_tag"),
        Index("ix_sweep_tag_tag", "tag"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    sweep_id: Mapped[int] = mapped_column(ForeignKey("sweep.id", ondelete="CASCADE"))
    tag: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )


class SweepCheck(Base):
    """One run of `paretoscope check` (or POST /api/check): a candidate against its baseline."""

    __tablename__ = "sweep_check"
    __table_args__ = (Index("ix_sweep_check_candidate_id", "candidate_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    candidate_id: Mapped[int] = mapped_column(ForeignKey("sweep.id", ondelete="CASCADE"))
    baseline_id: Mapped[int] = mapped_column(ForeignKey("sweep.id", ondelete="CASCADE"))
    candidate_ref: Mapped[str] = mapped_column(String(300))  # as given: id, name or tag
    baseline_ref: Mapped[str] = mapped_column(String(300))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)  # SLO, prices, tolerance
    verdict: Mapped[str] = mapped_column(String(20))  # pass | regression
    headline: Mapped[str] = mapped_column(String(500))  # one line: what moved
    summary: Mapped[str] = mapped_column(Text)  # the markdown summary
    created_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )


class StagedUpload(Base):
    """Files uploaded once for the upload page's preview, kept until saved or expired.

    In the database (not a worker's memory or disk), so a preview and its confirm may reach
    different workers or replicas. `files` lists each file's name and size; `data` holds the
    files' bytes one after another in that order. Times are Unix seconds, the same on SQLite
    and Postgres.
    """

    __tablename__ = "staged_upload"

    token: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at_s: Mapped[int] = mapped_column(BigInteger)
    expires_at_s: Mapped[int] = mapped_column(BigInteger, index=True)
    total_bytes: Mapped[int] = mapped_column(BigInteger)
    files: Mapped[list[Any]] = mapped_column(JSON)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    # Every result file a sweep of its own (the API's keep_apart), as chosen when staged.
    keep_apart: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class CatalogVersion(Base):
    """One row whose `token` is renewed by every change to a catalog table (hardware, model
    specs, pricing profiles, SLO presets, vendor claims), in the same transaction: triggers set
    up by migration 0011 do it, whatever made the change (the app, a seed, psql). A process that
    keeps the catalog reads this row to know whether what it keeps is still right."""

    __tablename__ = "catalog_version"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    token: Mapped[str] = mapped_column(String(64))


class SweepVersion(Base):
    """One row whose `token` is renewed by every change to a sweep or its tags, in the same
    transaction (triggers of migration 0012), whatever made it. Points and request samples
    change only with their sweep's row. A process that keeps a rendered page reads this row
    (and catalog_version's) to know whether the page is still right."""

    __tablename__ = "sweep_version"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    token: Mapped[str] = mapped_column(String(64))


class Deployment(Base):
    """A production deployment whose serving metrics are read as windows (issue #36)."""

    __tablename__ = "deployment"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(300), unique=True)
    model: Mapped[str | None] = mapped_column(String(200))
    hardware: Mapped[str | None] = mapped_column(String(100))
    num_gpus: Mapped[int | None] = mapped_column(Integer)
    engine: Mapped[str | None] = mapped_column(String(100))
    engine_version: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )


class ProductionWindow(Base):
    """One window of a deployment's serving metrics: counter increases and the latency
    histograms' bucket increases (so any percentile or SLO is read later), with provenance.
    Times are Unix seconds, the same on SQLite and Postgres."""

    __tablename__ = "production_window"
    __table_args__ = (
        UniqueConstraint(
            "deployment_id", "start_s", "end_s", name="uq_production_window_deployment_id_span"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    deployment_id: Mapped[int] = mapped_column(ForeignKey("deployment.id", ondelete="CASCADE"))
    start_s: Mapped[float] = mapped_column(Float)
    end_s: Mapped[float] = mapped_column(Float)
    source: Mapped[str] = mapped_column(String(20))  # snapshots | range | live
    selector: Mapped[str] = mapped_column(String(500))  # PromQL matchers, "" for none
    requests: Mapped[float] = mapped_column(Float)
    output_tokens: Mapped[float] = mapped_column(Float)
    prompt_tokens: Mapped[float | None] = mapped_column(Float)
    # The server's prefix-cache counters' increases (issue 50); null where not exported.
    cached_tokens: Mapped[float | None] = mapped_column(Float)
    queried_tokens: Mapped[float | None] = mapped_column(Float)
    num_gpus: Mapped[int | None] = mapped_column(Integer)
    concurrency: Mapped[float | None] = mapped_column(Float)
    # {measure: {"name": series, "bounds_ms": finite bounds, "counts": cumulative, +Inf last}}
    histograms: Mapped[dict[str, Any]] = mapped_column(JSON)
    notes: Mapped[list[Any]] = mapped_column(JSON)
